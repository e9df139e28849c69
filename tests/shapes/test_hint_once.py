"""Issue 30, case 7: the fix of a verdict is said once per verdict group, not under each test."""

from __future__ import annotations

from deskcheck.gate.redfirst import RedFirstReport, TestVerdict
from deskcheck.gate.render import VERDICT_FIXES, redfirst_markdown, redfirst_text

CONTEXT = {"ref": "main", "merge_base": "a" * 40, "head": "b" * 40, "dirty": False,
           "dirty_policy": ""}


def _green(index: int) -> TestVerdict:
    nodeid = f"tests/test_v.py::test_case[{index}]"
    return TestVerdict(id=nodeid, function="tests/test_v.py::test_case", change="added",
                       base="passed", branch="passed", verdict="GREEN_ON_BASE", pin=None,
                       detail="base: passed; branch: passed")


def test_the_fix_is_said_once_per_verdict_group() -> None:
    report = RedFirstReport(CONTEXT, [_green(i) for i in range(30)], [], [], False)
    fix = VERDICT_FIXES["GREEN_ON_BASE"]
    text, markdown = redfirst_text(report), redfirst_markdown(report)
    text = " ".join(text.split())  # the terminal wraps long lines at the screen's width
    assert text.count(fix) == 1, f"the terminal says the fix {text.count(fix)} times, not once"
    assert markdown.count(fix) == 1, (
        f"the Markdown says the fix {markdown.count(fix)} times, not once")
    assert "fix (GREEN_ON_BASE, 30 tests): " + fix in text, (
        "the fix line does not say which verdict and how many tests it is for")
