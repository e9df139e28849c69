"""docs/auto.md, *Your pytest configuration*: "A covering test that is skipped or xfailed on
clean code owns nothing (it cannot see a defect) while another covering test can"; and the
owners of a line are its covering tests, fastest first. Pure: a recorded coverage pass."""

from __future__ import annotations

from pathlib import Path

from deskcheck.mutants.auto.owners import CoveragePass

SKIP, XFAIL, SLOW, FAST = ("t.py::test_skip", "t.py::test_xfail", "t.py::test_slow",
                           "t.py::test_fast")


def covering(*tests: str) -> CoveragePass:
    # pytest reports an xfailed test with the outcome "skipped"
    return CoveragePass(root=Path("."), lines={"pkg/mod.py": {3: frozenset(tests)}},
                        outcomes={SKIP: "skipped", XFAIL: "skipped", SLOW: "passed",
                                  FAST: "passed"},
                        durations={SKIP: 0.0, XFAIL: 0.0, SLOW: 2.0, FAST: 0.5})


def test_a_skipped_or_xfailed_covering_test_owns_nothing_beside_a_live_one():
    owners = covering(SKIP, XFAIL, SLOW).owners_for("pkg/mod.py", [3])
    assert owners == [SLOW], (
        "docs/auto.md: a covering test skipped or xfailed on clean code owns nothing while "
        f"another covering test can; the owners of line 3 were {owners}, expected [{SLOW}]")


def test_the_covering_tests_own_a_line_fastest_first():
    owners = covering(SLOW, FAST).owners_for("pkg/mod.py", [3, 4])
    assert owners == [FAST, SLOW], (
        "every covering test owns the line, fastest first (0.5 s before 2.0 s); the owners "
        f"were {owners}")
    assert covering(SLOW).owners_for("pkg/mod.py", [4]) == [], (
        "a line no test ran (4) has no owner (NO_COVERAGE)")
