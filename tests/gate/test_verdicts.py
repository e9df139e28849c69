"""The verdict tables of both gates, as pure functions."""

from __future__ import annotations

import pytest

from deskcheck.gate import classify, compare
from deskcheck.gate.render import side_counts
from deskcheck.gate.runner import STARTUP_ERROR_ID, SideResult


@pytest.mark.parametrize(("base", "branch", "pin", "import_error", "verdict"), [
    ("failed", "passed", None, False, "RED_GREEN"),
    ("error", "passed", None, False, "RED_GREEN"),
    ("failed", "passed", "why", False, "RED_GREEN"),
    ("failed", "passed", None, True, "WEAK_RED"),
    ("collection_error", "passed", None, False, "WEAK_RED"),
    ("not_collected", "passed", None, False, "WEAK_RED"),
    ("passed", "passed", "unchanged behaviour", False, "PIN"),
    ("passed", "passed", None, False, "GREEN_ON_BASE"),
    ("passed", "passed", "", False, "GREEN_ON_BASE"),  # a pin needs a reason
    ("passed", "failed", "why", False, "RED_ON_BRANCH"),
    ("failed", "error", None, False, "RED_ON_BRANCH"),
    ("collection_error", "collection_error", None, False, "RED_ON_BRANCH"),
    ("failed", "skipped", None, False, "NO_EVIDENCE"),
    ("failed", "xfailed", None, False, "NO_EVIDENCE"),  # docs/gate.md: branch xfailed
    ("failed", "not_collected", None, False, "NO_EVIDENCE"),  # or not collected
    ("passed", "skipped", "why", False, "NO_EVIDENCE"),  # a pin skipped on the branch
    ("skipped", "passed", None, False, "NO_EVIDENCE"),
])
def test_redfirst_classification(base, branch, pin, import_error, verdict) -> None:
    got = classify(base, branch, pin=pin, base_import_error=import_error)
    assert got == verdict, (
        f"red-first classified a test {base} on base and {branch} on the branch (pin reason "
        f"{pin!r}, ImportError on base: {import_error}) as {got}, not {verdict}")


def _side(name: str, outcomes: dict[str, str], collection_errors=()) -> SideResult:
    return SideResult(name, 1, {k: {"outcome": v} for k, v in outcomes.items()},
                      [{"nodeid": c, "message": ""} for c in collection_errors], None)


def test_regress_comparison() -> None:
    base = _side("base", {"a": "failed", "b": "passed", "c": "error", "d": "passed",
                          "f": "passed"}, ["t/test_gone.py"])
    branch = _side("branch", {"a": "failed", "b": "failed", "c": "passed", "d": "failed",
                              "f": "failed", "new": "failed"}, ["t/test_broken.py"])
    rerun = _side("branch", {"b": "failed", "d": "passed", "f": "failed", "new": "failed"},
                  ["t/test_broken.py"])
    regressions, flaky, repairs, pre_existing = compare(base, branch, rerun)
    got = [(r.id, r.new_test) for r in regressions]
    want = [("b", False), ("f", False), ("new", True), ("t/test_broken.py", True)]
    assert got == want, (
        f"regress named {got} as the regressions (id, new test), not the ids that fail on the "
        f"branch but not on base: {want}")
    assert [f.id for f in flaky] == ["d"], (
        "regress must call d flaky (fails on the branch, passes on the re-run); flaky "
        f"{[f.id for f in flaky]}"
    )
    assert [r.id for r in repairs] == ["c", "t/test_gone.py"], (
        "the repairs must be c and t/test_gone.py (red on base, not on the branch); repairs "
        f"{[r.id for r in repairs]}"
    )
    assert [p.id for p in pre_existing] == ["a"], (
        "the pre-existing failure must be a (fails on both sides); pre_existing "
        f"{[p.id for p in pre_existing]}"
    )
    no_rerun = compare(base, branch, None)
    assert [r.id for r in no_rerun[0]] == ["b", "d", "f", "new", "t/test_broken.py"], (
        "without a re-run every branch-only failure must be a regression; they are "
        f"{[r.id for r in no_rerun[0]]}"
    )


def test_counts_read_like_the_manual_workflow() -> None:
    assert side_counts({"failed": 246, "passed": 4648, "skipped": 18, "error": 8}) == (
        "246 failed / 4648 passed / 18 skipped / 8 errors"), (
        "side counts must read '246 failed / 4648 passed / 18 skipped / 8 errors'; they read "
        f"{side_counts({'failed': 246, 'passed': 4648, 'skipped': 18, 'error': 8})!r}"
    )
    assert side_counts({}) == "no tests", (
        f"a side with no tests must read 'no tests'; it reads {side_counts({})!r}"
    )


def test_a_conftest_that_breaks_a_whole_side_is_a_failing_id() -> None:
    broken = SideResult("branch", None, {}, [], {"kind": "conftest", "exc_type": "ImportError",
                                                 "message": "boom"})
    regressions, _, _, _ = compare(_side("base", {"a": "passed"}), broken, None)
    assert [r.id for r in regressions] == [STARTUP_ERROR_ID], (
        f"a conftest that breaks a whole side must be the one failing id {STARTUP_ERROR_ID}; "
        f"regressions {[r.id for r in regressions]}"
    )
    assert broken.collection_error_for("tests/test_x.py::t")["message"] == "boom", (
        "a broken side must give its startup error (message boom) as every test's collection error"
    )


def test_the_failing_ids_are_failures_errors_and_collection_errors_only() -> None:
    side = _side("branch", {"f": "failed", "e": "error", "p": "passed", "s": "skipped",
                            "xf": "xfailed", "xp": "xpassed"}, ["t/test_broken.py"])
    got = sorted(side.failing_ids())
    assert got == ["e", "f", "t/test_broken.py"], (
        f"docs/gate.md: regress compares the failing node ids (failed, setup/teardown error, "
        f"collection error), never a passed, skipped, xfailed or xpassed one; they are {got}")
