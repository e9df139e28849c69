"""docs/gate.md's words in the terminal report and the Markdown (the PR comment) alike: the
untested production change, the dirty working tree, one fix per failing verdict group, and a
failing new test marked ``(new test)``. Pure renders of hand-made reports (no pytest run)."""

from __future__ import annotations

import pytest

from deskcheck.gate.redfirst import RedFirstReport, TestVerdict
from deskcheck.gate.regress import FailingId, RegressReport
from deskcheck.gate.render import (
    redfirst_markdown,
    redfirst_text,
    regress_markdown,
    regress_text,
)
from deskcheck.gate.selection import ADDED

POLICY = "uncommitted changes and untracked files are part of the branch"


def _context(dirty: bool = False) -> dict:
    return {"ref": "main", "merge_base": "1fa9d51afa53" * 3, "head": "1d2b51932ce9" * 3,
            "dirty": dirty, "dirty_paths": ["tests/test_ops.py"] if dirty else [],
            "dirty_policy": POLICY}


def _verdicts(*verdicts: str) -> list[TestVerdict]:
    return [TestVerdict(f"tests/test_ops.py::test_{i}", f"tests/test_ops.py::test_{i}", ADDED,
                        "passed", "passed", v, None, "base: passed; branch: passed")
            for i, v in enumerate(verdicts)]


@pytest.mark.parametrize(("require_tests", "verdict"), [(False, "HOLDS"), (True, "FALLS SHORT")])
def test_an_untested_production_change_is_said_in_the_verdict_line_and_the_markdown(
        require_tests: bool, verdict: str) -> None:
    report = RedFirstReport(_context(), [], [], [], strict=False,
                            untested_production_change=["pkg/x.py"],
                            require_tests=require_tests)
    last = redfirst_text(report, width=80).splitlines()[-1]
    assert last.startswith(f"{verdict}: production changed, no test changed"), (
        f"docs/gate.md: a production change with no test changed is said in the verdict line "
        f"(and holds unless --require-tests: {verdict}); the line is {last!r}")
    markdown = redfirst_markdown(report)
    assert "production changed, no test changed**: `pkg/x.py`" in markdown, (
        f"the Markdown must say 'production changed, no test changed' naming pkg/x.py; it "
        f"is:\n{markdown}")


@pytest.mark.parametrize("command", ["redfirst", "regress"])
def test_a_dirty_tree_is_said_in_the_text_and_the_markdown_and_a_clean_one_is_not(
        command: str) -> None:
    def render(dirty: bool) -> tuple[str, str]:
        if command == "redfirst":
            report = RedFirstReport(_context(dirty), _verdicts("RED_GREEN"), [], [], False)
            return redfirst_text(report, width=200), redfirst_markdown(report)
        report = RegressReport(_context(dirty), {}, [], [], [], [], False)
        return regress_text(report, width=200), regress_markdown(report)

    text, markdown = render(True)
    assert "+ working-tree changes" in text.splitlines()[0] and f"policy: {POLICY}" in text, (
        f"docs/gate.md: a dirty working tree is part of the branch and the {command} report "
        f"says so in the text; it is:\n{text}")
    assert f"Working tree was dirty: {POLICY}" in markdown, (
        f"docs/gate.md: a dirty working tree is said in the {command} Markdown too; it is:\n"
        f"{markdown}")
    text, markdown = render(False)
    assert "working-tree changes" not in text and "dirty" not in markdown, (
        f"a clean tree's {command} report must not call it dirty:\n{text}\n{markdown}")


def test_each_failing_verdicts_fix_is_said_once_for_its_group_in_text_and_markdown() -> None:
    report = RedFirstReport(_context(), _verdicts("GREEN_ON_BASE", "GREEN_ON_BASE",
                                                  "GREEN_ON_BASE", "RED_GREEN"), [], [], False)
    text = redfirst_text(report, width=200)
    markdown = redfirst_markdown(report)
    got = (text.count("fix (GREEN_ON_BASE"), text.count("fix (GREEN_ON_BASE, 3 tests)"),
           markdown.count("**fix** (GREEN_ON_BASE, 3 tests)"), text.count("fix (RED_GREEN"))
    assert got == (1, 1, 1, 0), (
        f"docs/gate.md: each failing verdict's fix is said once for its group "
        f"('fix (GREEN_ON_BASE, 3 tests): ...'), in the terminal and the Markdown, and none "
        f"for a verdict that holds; (text, text with count, markdown, RED_GREEN) counts are "
        f"{got}")


def test_a_failing_new_test_is_a_regression_marked_new_test_in_text_and_markdown() -> None:
    new = FailingId("tests/test_ops.py::test_broken_on_branch", "absent", "failed",
                    new_test=True)
    old = FailingId("tests/test_ops.py::test_div_true", "passed", "failed")
    report = RegressReport(_context(), {}, [new, old], [], [], [], False)
    text, markdown = regress_text(report, width=200), regress_markdown(report)
    lines = {ln.split()[0]: ln for ln in text.splitlines() if "::" in ln}
    assert lines[new.id].endswith("(new test)") and "(new test)" not in lines[old.id], (
        f"docs/gate.md: new tests that fail are regressions too, marked (new test), and only "
        f"they; the text says:\n{text}")
    assert f"`{new.id}` (new test)" in markdown and f"`{old.id}` (new test)" not in markdown, (
        f"the Markdown must mark the new test (new test), and only it:\n{markdown}")
    assert text.splitlines()[-1] == "FALLS SHORT: 2 regressions, 0 flaky, 0 repairs, " \
                                    "0 pre-existing", (
        f"regressions fail the gate; the summary line is {text.splitlines()[-1]!r}")


def test_the_redfirst_report_counts_red_weak_pins_and_marks_each_failing_test() -> None:
    verdicts = ("RED_GREEN", "RED_GREEN", "WEAK_RED", "PIN", "GREEN_ON_BASE", "RED_ON_BRANCH")
    report = RedFirstReport(_context(), _verdicts(*verdicts), [], [], strict=False)
    lines = redfirst_text(report, width=200).splitlines()
    assert lines[1] == "RED-FIRST on base: 3 of 6 red (1 weak); 1 pins", (
        f"docs/gate.md's example: RED_GREEN and WEAK_RED are the red ones, the weak and the "
        f"pins counted apart: 'RED-FIRST on base: 3 of 6 red (1 weak); 1 pins'; it is "
        f"{lines[1]!r}")
    assert lines[-1] == ("FALLS SHORT: 2 RED_GREEN, 1 WEAK_RED, 1 PIN, 1 GREEN_ON_BASE, "
                         "1 RED_ON_BRANCH"), (
        f"docs/gate.md's example summary line, verdicts in the table's order; it is "
        f"{lines[-1]!r}")
    marks = {ln.split()[1]: ln.split()[0] for ln in lines if "::test_" in ln}
    assert marks == {"RED_GREEN": "ok", "WEAK_RED": "ok", "PIN": "ok",
                     "GREEN_ON_BASE": "FAIL", "RED_ON_BRANCH": "FAIL"}, (
        f"only GREEN_ON_BASE and RED_ON_BRANCH fail the gate (WEAK_RED too with --strict); "
        f"the marks are {marks}")
    strict = RedFirstReport(_context(), _verdicts(*verdicts), [], [], strict=True)
    weak = next(ln for ln in redfirst_text(strict, width=200).splitlines() if "WEAK_RED " in ln)
    assert weak.split()[0] == "FAIL", f"with --strict a WEAK_RED fails; its line is {weak!r}"
