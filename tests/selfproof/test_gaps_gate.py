"""The gates' pure parts in the cases the first round left open (docs/gate.md): the
test-only verdicts (production identical at base and branch), a branch-side collection
error, parametrized ids that hold brackets, base classes that are not plain names, folder
limits, and the JSON keys of ``--require-tests``. No git, no pytest sides."""

from __future__ import annotations

import ast
import locale

import pytest

from deskcheck.gate.layout import PytestNaming, TestLayout
from deskcheck.gate.redfirst import RedFirstReport, judge, judge_test_only
from deskcheck.gate.runner import SideResult
from deskcheck.gate.selection import (
    ADDED,
    MODIFIED,
    SelectedTest,
    _test_functions,
    _within,
    changed_tests,
)
from tests.selfproof.test_gate_pure import FakeRepo


def side(name: str, outcomes: dict[str, str], records: dict[str, dict] | None = None,
         collection_errors: tuple[tuple[str, str], ...] = ()) -> SideResult:
    tests = {k: {"outcome": v, **(records or {}).get(k, {})} for k, v in outcomes.items()}
    return SideResult(name, 1, tests, [{"nodeid": n, "message": m}
                                       for n, m in collection_errors], None)


F = "t/test_a.py::test_p"


@pytest.mark.parametrize(("outcome", "verdict"), [
    ("passed", "TEST_ONLY"), ("failed", "RED_ON_BRANCH"), ("error", "RED_ON_BRANCH"),
    ("skipped", "NO_EVIDENCE"), ("xfailed", "NO_EVIDENCE"),
])
def test_a_test_only_change_is_judged_on_the_branch_alone(outcome, verdict):
    chosen = [SelectedTest(F, "t/test_a.py", 3, MODIFIED)]
    [got] = judge_test_only(chosen, side("branch", {F: outcome}), {F: F})
    assert got.verdict == verdict, (
        f"production is identical at base and branch, so a test {outcome} on the branch must "
        f"be {verdict} (docs/gate.md); got {got.verdict}")
    assert (got.id, got.function, got.change, got.base, got.branch) == (
        F, F, MODIFIED, "not run", outcome), (
            f"a test-only verdict must name the test, its function, its change, the base as "
            f"'not run' and the branch outcome; got {got}")


def test_a_test_only_verdict_says_why_the_base_was_not_run_and_what_the_branch_did():
    chosen = [SelectedTest(F, "t/test_a.py", 3, ADDED)]
    branch = side("branch", {F: "failed"}, {F: {"when": "call", "exc_type": "AssertionError",
                                                "pin": "holds on base"}})
    [got] = judge_test_only(chosen, branch, {F: F})
    assert got.detail == ("base: not run (production identical at base and branch); "
                          "branch: failed in call with AssertionError"), (
        f"the detail must say the base was not run and why, then the branch's failure phase "
        f"and exception; got {got.detail!r}")
    assert got.pin == "holds on base", f"the branch's pin reason was lost: {got.pin!r}"


def test_a_test_only_change_gives_each_parameter_set_a_verdict_and_a_collection_error_is_red():
    chosen = [SelectedTest(F, "t/test_a.py", 3, ADDED),
              SelectedTest("t/test_b.py::test_q", "t/test_b.py", 1, ADDED)]
    branch = side("branch", {F + "[1]": "passed", F + "[2]": "failed"},
                  collection_errors=(("t/test_b.py", "E   SyntaxError: bad\n"),))
    got = {v.id: (v.verdict, v.pin, v.detail.rpartition("; ")[2])
           for v in judge_test_only(chosen, branch, {F: F, "t/test_b.py::test_q":
                                                     "t/test_b.py::test_q"})}
    assert got == {
        F + "[1]": ("TEST_ONLY", None, "branch: passed"),
        F + "[2]": ("RED_ON_BRANCH", None, "branch: failed"),
        "t/test_b.py::test_q": ("RED_ON_BRANCH", None,
                                "branch: collection error (E   SyntaxError: bad)"),
    }, (f"each parameter set gets its own test-only verdict, and a test whose file does not "
        f"collect on the branch is RED_ON_BRANCH quoting the error; got {got}")


def test_a_branch_collection_error_detail_quotes_the_branchs_error():
    chosen = [SelectedTest(F, "t/test_a.py", 3, MODIFIED)]
    base = side("base", {F: "failed"})
    branch = side("branch", {}, collection_errors=(("t/test_a.py", "E   NameError: x"),))
    [got] = judge(chosen, base, branch, {F: F})
    assert got.verdict == "RED_ON_BRANCH" and got.detail == (
        "base: failed; branch: collection error (E   NameError: x)"), (
            f"a test whose file does not collect on the branch is RED_ON_BRANCH and the detail "
            f"quotes the branch's own collection error; got {got.verdict}: {got.detail!r}")


def test_a_parametrized_case_whose_id_holds_brackets_is_still_the_functions_case():
    chosen = [SelectedTest(F, "t/test_a.py", 3, ADDED)]
    case = F + "[a[0]]"  # @pytest.mark.parametrize("s", ["a[0]"])
    base = side("base", {case: "failed"})
    branch = side("branch", {case: "passed"})
    got = [(v.id, v.verdict) for v in judge(chosen, base, branch, {F: F})]
    assert got == [(case, "RED_GREEN")], (
        f"the case {case!r} of the selected function must be judged by its own id (its "
        f"parameter text holds brackets); got {got}")


@pytest.mark.parametrize("base", ["Generic[T]", "make_base()", "bases[0]"])
def test_a_class_with_a_base_that_is_not_a_name_is_walked_without_error(base):
    tree = ast.parse(f"class TestBox({base}):\n    def test_x(self):\n        pass\n"
                     f"class Other({base}):\n    def test_y(self):\n        pass\n")
    got = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert got == ["TestBox::test_x"], (
        f"a class whose base is {base!r} (no name to read) is collected by its Test* name "
        f"alone, and a non-Test class with such a base is not a unittest case; got {got}")


@pytest.mark.parametrize(("path", "prefix", "within"), [
    ("XLA/test_a.py", "XLA", True), ("XLA/test_a.py", "XLA/", True),
    ("tests/X/test_a.py", "tests/X", True), ("tests/Xa/test_a.py", "tests/X", False),
    ("tests/test_a.py", "/tests/", True), ("tests/test_a.py", ".", True),
])
def test_a_path_limit_is_a_folder_whatever_its_name(path, prefix, within):
    assert _within(path, prefix) is within, (
        f"{path!r} is {'' if within else 'not '}under the limit {prefix!r}: a limit names a "
        f"folder (leading/trailing '/' ignored, '.' the whole tree), matched by whole "
        f"folder names")


def test_redfirst_json_carries_the_require_tests_keys():
    report = RedFirstReport({"base": "abc"}, [], [], [], False,
                            untested_production_change=["pkg/x.py"], require_tests=True)
    data = report.to_json()
    got = {k: data.get(k) for k in ("untested_production_change", "require_tests", "holds",
                                    "exit_code")}
    assert got == {"untested_production_change": ["pkg/x.py"], "require_tests": True,
                   "holds": False, "exit_code": 1}, (
        f"with --require-tests a production change with no test fails, and the JSON says "
        f"which files under 'untested_production_change' (docs/gate.md); got {got}")


@pytest.fixture
def ascii_locale():
    """The process's locale encoding set to ASCII (a C-locale or Windows-like machine) for the
    test: a file read without an explicit encoding then fails on non-ASCII text."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_a_changed_test_file_is_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    base = {"t/test_a.py": "def test_one():\n    assert 1\n"}
    work = {"t/test_a.py": "def test_one():\n    assert 'café'\n"}
    change = changed_tests(FakeRepo(tmp_path, base, work), "base", TestLayout())
    got = [(s.id, s.change) for s in change.selected]
    assert change.unparsable == [] and got == [("t/test_a.py::test_one", MODIFIED)], (
        f"a test file is Python source, UTF-8 by definition: under an ASCII locale its changed "
        f"test must still be selected as modified, not the file run whole as unparsable; got "
        f"selected {got}, unparsable {change.unparsable}")
