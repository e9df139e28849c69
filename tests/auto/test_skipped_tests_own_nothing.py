"""docs/auto.md, *Your pytest configuration*: "A covering test that is skipped or xfailed on
clean code owns nothing (it cannot see a defect) while another covering test can"; and the
owners of a line are its covering tests, fastest first. Pure: a recorded coverage pass."""

from __future__ import annotations

from pathlib import Path

import pytest

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


XFAIL_PROJECT = {
    "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
                      '[tool.pytest.ini_options]\npythonpath = ["."]\n',
    "pkg/__init__.py": "",
    "pkg/a.py": "def inc(x):\n    return x + 1\n",
    "tests/test_a.py": (
        "import pytest\n\nfrom pkg.a import inc\n\n\n"
        "def test_live():\n    assert inc(1) == 2\n\n\n"
        "@pytest.mark.xfail(reason='known')\n"
        "def test_known_failure():\n    assert inc(1) == 3\n"),
}


def test_a_real_coverage_pass_leaves_an_xfailed_covering_test_out_of_the_owners(tmp_path):
    """The same promise through the coverage pass's own pytest plugin: the outcome it records
    for an xfailed test is one the owners leave out (not a live owner beside test_live)."""
    from deskcheck.mutants.auto.owners import run_coverage_pass

    for rel, text in XFAIL_PROJECT.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    measured = run_coverage_pass(tmp_path, ["pkg/a.py"], ["tests"])
    xfail = "tests/test_a.py::test_known_failure"
    assert xfail in measured.lines.get("pkg/a.py", {}).get(2, ()), (
        f"the xfailed test runs inc's body (line 2), so it covers it: {measured.lines}")
    owners = measured.owners_for("pkg/a.py", [2])
    assert owners == ["tests/test_a.py::test_live"], (
        "docs/auto.md: a covering test xfailed on clean code owns nothing while another "
        f"covering test can; the owners of inc's body were {owners} (the pass recorded the "
        f"xfailed test as {measured.outcomes.get(xfail)!r})")


def test_the_pass_plugin_records_an_xfailed_test_as_an_outcome_the_owners_leave_out(monkeypatch):
    """In-process half of the test above (a mutant of the plugin is applied here, not in the
    pass's own pytest): the outcome the plugin records from pytest's reports of an xfailed
    test (call phase: outcome "skipped" with ``wasxfail``) must leave it out of the owners."""
    from deskcheck.mutants.auto import coverage_plugin

    monkeypatch.setattr(coverage_plugin, "_outcomes", {})
    monkeypatch.setattr(coverage_plugin, "_durations", {})
    for when, outcome in (("setup", "passed"), ("call", "skipped"), ("teardown", "passed")):
        report = pytest.TestReport(nodeid=XFAIL, location=("t.py", 0, "test_xfail"),
                                   keywords={}, outcome=outcome, longrepr=None, when=when)
        if when == "call":
            report.wasxfail = "known"
        coverage_plugin.pytest_runtest_logreport(report)
    recorded = coverage_plugin._outcomes[XFAIL]
    passes = CoveragePass(root=Path("."), lines={"pkg/mod.py": {3: frozenset({XFAIL, SLOW})}},
                          outcomes={XFAIL: recorded, SLOW: "passed"},
                          durations={XFAIL: 0.0, SLOW: 2.0})
    owners = passes.owners_for("pkg/mod.py", [3])
    assert owners == [SLOW], (
        "docs/auto.md: a covering test xfailed on clean code owns nothing while another "
        f"covering test can; the plugin recorded the xfailed test as {recorded!r} and the "
        f"owners of line 3 were {owners}, expected [{SLOW}]")
