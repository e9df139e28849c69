"""The gates' pure parts (docs/gate.md), without git or pytest sides: which test functions a
branch adds or changes, the per-item red-first verdicts of the selected functions, and when
each gate holds (exit codes, ``--strict``). Git is replaced by a small in-memory repository."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from deskcheck.gate.layout import PytestNaming, TestLayout
from deskcheck.gate.redfirst import RedFirstReport, TestVerdict, judge
from deskcheck.gate.regress import FailingId, RegressReport, compare
from deskcheck.gate.runner import SideResult
from deskcheck.gate.selection import ADDED, MODIFIED, SelectedTest, _test_functions, changed_tests

BASE_TESTS = '''
import unittest

def test_same():
    assert 1

def test_body_changes():
    assert 1

def helper():
    return 1

class TestBox:
    def test_kept(self):
        assert 1

class Plain(unittest.TestCase):
    def test_case(self):
        self.assertTrue(1)
'''

BRANCH_TESTS = '''
import unittest

def test_same():
    # a comment and other formatting are no change
    assert (1)

def test_body_changes():
    assert 2

def test_added():
    assert 1

def helper():
    return 2

class TestBox:
    def test_kept(self):
        assert 1

    def test_new_method(self):
        assert 1

class Plain(unittest.TestCase):
    def test_case(self):
        self.assertTrue(2)
'''


class FakeRepo:
    """What ``changed_tests`` asks git: the base tree's blobs, the working files, their blob
    ids, and a file's text at a commit."""

    def __init__(self, root: Path, base: dict[str, str], work: dict[str, str]):
        self.root, self.base, self.work = root, base, work
        for path, text in work.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(textwrap.dedent(text), encoding="utf-8")

    def tree_blobs(self, commit: str) -> dict[str, str]:
        assert commit == "base", f"the base tree was read at {commit!r}, not the base commit"
        return {p: f"blob:{hash(textwrap.dedent(t))}" for p, t in self.base.items()}

    def working_files(self) -> list[str]:
        return sorted(self.work)

    def working_blob_ids(self, paths: list[str]) -> dict[str, str]:
        return {p: f"blob:{hash(textwrap.dedent(self.work[p]))}" for p in paths}

    def show(self, commit: str, path: str) -> str:
        assert commit == "base", f"{path} was read at {commit!r}, not the base commit"
        return textwrap.dedent(self.base[path])


def selected(tmp_path: Path, base: dict[str, str], work: dict[str, str],
             limit_to: list[str] | None = None):
    change = changed_tests(FakeRepo(tmp_path, base, work), "base", TestLayout(), limit_to)
    return change, {s.id: s.change for s in change.selected}


def test_only_added_and_changed_test_functions_are_selected(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS},
                           {"tests/test_x.py": BRANCH_TESTS})
    expected = {
        "tests/test_x.py::test_body_changes": MODIFIED,
        "tests/test_x.py::test_added": ADDED,
        "tests/test_x.py::TestBox::test_new_method": ADDED,
        "tests/test_x.py::Plain::test_case": MODIFIED,
    }
    assert got == expected, (
        f"red-first selected {got}; it must select exactly the test functions and Test* / "
        f"TestCase methods whose ast differs (not test_same, changed only in comments and "
        f"parentheses, not the helper, not the unchanged test_kept): {expected}")
    assert change.changed_test_files == ["tests/test_x.py"], (
        f"the changed test files are {change.changed_test_files}, not ['tests/test_x.py']")


def test_a_new_test_file_contributes_all_its_tests_with_their_lines(tmp_path):
    change, got = selected(tmp_path, {}, {"tests/test_new.py": BASE_TESTS})
    assert set(got.values()) == {ADDED} and len(got) == 4, (
        f"a new test file must contribute its 4 tests, each ADDED; got {got}")
    lines = {s.id.rpartition("::")[2]: s.line for s in change.selected}
    assert lines["test_same"] == 4 and lines["test_kept"] == 14, (
        f"each selected test must carry its def line (test_same at 4, test_kept at 14): {lines}")


def test_an_unchanged_file_and_files_outside_the_paths_select_nothing(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS, "other/test_y.py": ""},
                           {"tests/test_x.py": BASE_TESTS, "other/test_y.py": BRANCH_TESTS,
                            "tests_more/test_z.py": BRANCH_TESTS}, limit_to=["tests"])
    assert got == {} and change.changed_test_files == [], (
        f"with TEST_PATHS = tests, an unchanged tests/test_x.py and changes outside tests/ "
        f"(other/, tests_more/) must select nothing; got {got}, files "
        f"{change.changed_test_files}")


def test_an_unparsable_branch_file_runs_whole(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS},
                           {"tests/test_x.py": "def test_broken(:\n"})
    assert got == {"tests/test_x.py": MODIFIED} and change.unparsable == ["tests/test_x.py"], (
        f"a changed test file that does not parse must be selected whole (its collection "
        f"error is the branch's verdict); got {got}, unparsable {change.unparsable}")


def test_nested_test_classes_are_walked_and_other_classes_are_not():
    tree = ast.parse(textwrap.dedent('''
        class TestOuter:
            class TestInner:
                def test_deep(self): pass
            def helper_test(self): pass
        class Helper:
            def test_hidden(self): pass
        async def test_async(): pass
    '''))
    names = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert names == ["TestOuter::TestInner::test_deep", "test_async"], (
        f"pytest collects test functions in Test* classes (nested too) and async tests, "
        f"never methods of a non-test class; the selection walked {names}")


def side(name: str, outcomes: dict[str, str], records: dict[str, dict] | None = None,
         collection_errors: tuple[tuple[str, str], ...] = ()) -> SideResult:
    tests = {k: {"outcome": v, **(records or {}).get(k, {})} for k, v in outcomes.items()}
    return SideResult(name, 1, tests, [{"nodeid": n, "message": m}
                                       for n, m in collection_errors], None)


def test_every_parameter_set_of_a_selected_function_gets_its_own_verdict():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, ADDED)]
    base = side("base", {"t/test_a.py::test_p[1]": "failed", "t/test_a.py::test_p[2]": "passed",
                         "t/test_a.py::test_pq": "failed"})
    branch = side("branch", {"t/test_a.py::test_p[1]": "passed",
                             "t/test_a.py::test_p[2]": "passed",
                             "t/test_a.py::test_pq": "passed"})
    got = {v.id: v.verdict for v in judge(chosen, base, branch,
                                           {"t/test_a.py::test_p": "t/test_a.py::test_p"})}
    assert got == {"t/test_a.py::test_p[1]": "RED_GREEN",
                   "t/test_a.py::test_p[2]": "GREEN_ON_BASE"}, (
        f"the selected function test_p has two parameter sets (red then green on base) and "
        f"test_pq is another function: the verdicts are {got}")


def test_a_selected_test_missing_on_base_is_a_weak_red_with_its_collection_error():
    chosen = [SelectedTest("t/test_a.py::test_new", "t/test_a.py", 3, ADDED)]
    base = side("base", {}, collection_errors=(("t/test_a.py",
                                                "E   ImportError: cannot import name 'x'"),))
    branch = side("branch", {"t/test_a.py::test_new": "passed"})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_new": "t/test_a.py::test_new"})
    assert verdict.verdict == "WEAK_RED" and verdict.base == "collection_error", (
        f"a test whose file does not collect on base must be WEAK_RED with base "
        f"'collection_error'; got {verdict.verdict}, base {verdict.base!r}")
    assert "collection error (E   ImportError: cannot import name 'x')" in verdict.detail, (
        f"the detail must quote the base's collection error: {verdict.detail!r}")


def test_a_pin_without_a_reason_says_how_to_give_one():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": "passed"})
    branch = side("branch", {"t/test_a.py::test_p": "passed"}, {"t/test_a.py::test_p":
                                                                  {"pin": ""}})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_p": "t/test_a.py::test_p"})
    assert verdict.verdict == "GREEN_ON_BASE" and "pin() needs a reason" in verdict.detail, (
        f"pin() without a reason must be judged GREEN_ON_BASE with a hint; got "
        f"{verdict.verdict}: {verdict.detail!r}")


def test_a_failure_detail_names_the_phase_and_exception():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": "failed"},
                {"t/test_a.py::test_p": {"when": "call", "exc_type": "AssertionError"}})
    branch = side("branch", {"t/test_a.py::test_p": "passed"})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_p": "t/test_a.py::test_p"})
    assert verdict.detail == "base: failed in call with AssertionError; branch: passed", (
        f"the detail of a red-green test must name the base failure's phase and exception: "
        f"{verdict.detail!r}")


def _report(verdicts: list[str], strict: bool) -> RedFirstReport:
    tests = [TestVerdict(f"t::{i}", f"t::{i}", ADDED, "failed", "passed", v, None, "")
             for i, v in enumerate(verdicts)]
    return RedFirstReport({}, tests, [], [], strict)


@pytest.mark.parametrize(("verdict", "fails", "fails_strict"), [
    ("RED_GREEN", False, False), ("PIN", False, False), ("WEAK_RED", False, True),
    ("NO_EVIDENCE", False, True), ("GREEN_ON_BASE", True, True), ("RED_ON_BRANCH", True, True),
])
def test_when_redfirst_holds(verdict, fails, fails_strict):
    for strict, expected in ((False, fails), (True, fails_strict)):
        report = _report(["RED_GREEN", verdict], strict)
        assert report.exit_code == int(expected), (
            f"redfirst{' --strict' if strict else ''} with a {verdict} test exited "
            f"{report.exit_code}, not {int(expected)} (docs/gate.md's verdict table)")
        data = report.to_json()
        assert data["holds"] is (not expected) and data["counts"][verdict] >= 1, (
            f"redfirst's JSON for a {verdict} test says holds={data['holds']} with counts "
            f"{data['counts']}")


def test_regress_sorts_failures_into_regressions_flaky_repairs_and_pre_existing():
    base = side("base", {"a": "passed", "b": "failed", "c": "failed", "f": "passed"})
    branch = side("branch", {"a": "failed", "b": "passed", "c": "failed", "f": "failed",
                             "n": "failed"})
    rerun = side("rerun", {"a": "failed", "f": "passed", "n": "failed"})
    regressions, flaky, repairs, pre_existing = compare(base, branch, rerun)
    got = {"regressions": regressions, "flaky": flaky, "repairs": repairs,
           "pre_existing": pre_existing}
    expected = {
        "regressions": [FailingId("a", "passed", "failed"),
                        FailingId("n", "absent", "failed", new_test=True)],
        "flaky": [FailingId("f", "passed", "failed")],
        "repairs": [FailingId("b", "failed", "passed")],
        "pre_existing": [FailingId("c", "failed", "failed")],
    }
    for key, want in expected.items():
        assert got[key] == want, f"regress listed {got[key]} as {key}, not {want}"


@pytest.mark.parametrize(("regressions", "flaky", "strict", "code"), [
    (0, 0, False, 0), (1, 0, False, 1), (0, 1, False, 0), (0, 1, True, 1), (0, 0, True, 0),
])
def test_when_regress_holds(regressions, flaky, strict, code):
    one = FailingId("t::x", "passed", "failed")
    report = RegressReport({}, {}, [one] * regressions, [one] * flaky, [], [], strict)
    assert report.exit_code == code, (
        f"regress{' --strict' if strict else ''} with {regressions} regression(s) and "
        f"{flaky} flaky test(s) exited {report.exit_code}, not {code}")
    data = report.to_json()
    assert data["counts"] == {"regressions": regressions, "flaky": flaky, "repairs": 0,
                              "pre_existing": 0} and data["holds"] is (code == 0), (
        f"regress's JSON counts/holds do not match the report: {data['counts']}, "
        f"holds={data['holds']}")


def test_redfirst_json_has_every_stable_key():
    chosen = SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, ADDED)
    verdict = TestVerdict("t/test_a.py::test_p", "t/test_a.py::test_p", ADDED, "failed",
                          "passed", "RED_GREEN", None, "base: failed; branch: passed")
    report = RedFirstReport({"base": "abc"}, [verdict], [chosen], ["t/test_a.py"], False,
                            sides={"base": {"n": 1}}, notes=["a note"],
                            timings_s={"total": 1.5})
    data = report.to_json()
    expected = {"command": "redfirst", "schema": 1, "holds": True, "exit_code": 0,
                "strict": False, "context": {"base": "abc"},
                "changed_test_files": ["t/test_a.py"], "sides": {"base": {"n": 1}},
                "notes": ["a note"], "timings_s": {"total": 1.5}}
    got = {k: data.get(k) for k in expected}
    assert got == expected, f"redfirst's JSON keys differ from docs/gate.md's: {got}"
    assert data["tests"][0]["verdict"] == "RED_GREEN" and data["selected"][0] == {
        "id": "t/test_a.py::test_p", "path": "t/test_a.py", "line": 3, "change": ADDED}, (
        f"redfirst's JSON tests/selected are wrong: {data['tests']}, {data['selected']}")
    assert data["counts"]["RED_GREEN"] == 1 and sum(data["counts"].values()) == 1, (
        f"redfirst's JSON counts must count each verdict: {data['counts']}")


def test_regress_json_lists_each_failing_id():
    one = FailingId("t::x", "passed", "failed", new_test=False)
    new = FailingId("t::n", "absent", "failed", new_test=True)
    report = RegressReport({"base": "abc"}, {"base": {}}, [one, new], [], [one], [], False,
                           notes=["n"], timings_s={"total": 2.0})
    data = report.to_json()
    assert (data["command"], data["schema"], data["holds"], data["exit_code"], data["strict"],
            data["flaky"], data["pre_existing"]) == ("regress", 1, False, 1, False, [], []), (
        f"regress's JSON head is wrong: {data}")
    none = {"base_subtests_failed": (), "branch_subtests_failed": ()}
    assert data["regressions"] == [
        {"id": "t::x", "base": "passed", "branch": "failed", "new_test": False, **none},
        {"id": "t::n", "base": "absent", "branch": "failed", "new_test": True, **none}] and \
        data["repairs"] == [{"id": "t::x", "base": "passed", "branch": "failed",
                             "new_test": False, **none}], (
            f"regress's JSON must list each id with both outcomes and new_test: {data}")
    assert (data["context"], data["sides"], data["notes"], data["timings_s"]) == (
        {"base": "abc"}, {"base": {}}, ["n"], {"total": 2.0}), (
        f"regress's JSON context/sides/notes/timings are wrong: {data}")


def test_paths_limit_the_selection_by_folder_not_by_prefix(tmp_path):
    work = {"tests/test_x.py": BASE_TESTS, "tests2/test_y.py": BASE_TESTS,
            "t/test_z.py": BASE_TESTS}
    for limit, expected in ((["tests"], {"tests/test_x.py"}),
                            (["tests/"], {"tests/test_x.py"}),
                            (["."], set(work)), ([""], set(work)),
                            (["tests/test_x.py"], {"tests/test_x.py"})):
        change, _ = selected(tmp_path, {}, work, limit_to=limit)
        assert set(change.changed_test_files) == expected, (
            f"TEST_PATHS {limit} must select the files {sorted(expected)} (a folder, never a "
            f"mere prefix like tests2/; '.' or '' is everything); got "
            f"{sorted(change.changed_test_files)}")


def test_a_base_version_that_does_not_parse_makes_every_test_added(tmp_path):
    _, got = selected(tmp_path, {"tests/test_x.py": "def test_same(:\n"},
                      {"tests/test_x.py": BASE_TESTS})
    assert set(got.values()) == {ADDED} and len(got) == 4, (
        f"when the base version of a test file does not parse, every test of the branch "
        f"version is new; got {got}")


@pytest.mark.parametrize(("outcome", "when", "exc"), [("error", "setup", "FixtureLookupError"),
                                                      ("xfailed", "call", "AssertionError")])
def test_a_red_base_detail_names_phase_and_exception_for_errors_and_xfails(outcome, when, exc):
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": outcome},
                {"t/test_a.py::test_p": {"when": when, "exc_type": exc}})
    branch = side("branch", {"t/test_a.py::test_p": "passed"})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_p": "t/test_a.py::test_p"})
    assert verdict.detail.startswith(f"base: {outcome} in {when} with {exc};"), (
        f"a base {outcome} in {when} with {exc} must be named so in the detail: "
        f"{verdict.detail!r}")


@pytest.mark.parametrize(("message", "shown"), [
    ("\n  \n", ""), ("E   " + "x" * 200, "E   " + "x" * 156)])
def test_a_collection_error_detail_quotes_its_last_line_cut_at_160(message, shown):
    chosen = [SelectedTest("t/test_a.py::test_new", "t/test_a.py", 3, ADDED)]
    base = side("base", {}, collection_errors=(("t/test_a.py", message),))
    branch = side("branch", {"t/test_a.py::test_new": "passed"})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_new": "t/test_a.py::test_new"})
    assert verdict.detail.startswith(f"base: collection error ({shown});"), (
        f"the detail must quote the last non-blank line of the collection error, cut at 160 "
        f"characters ({shown[:20]!r}..., {len(shown)} long); it is {verdict.detail[:200]!r}")


@pytest.mark.parametrize(("base", "verdict"), [("xfailed", "RED_GREEN"),
                                               ("xpassed", "GREEN_ON_BASE")])
def test_an_xfail_on_base_is_red_and_an_xpass_is_green(base, verdict):
    from deskcheck.gate.redfirst import classify

    got = classify(base, "passed", pin=None, base_import_error=False)
    assert got == verdict, (
        f"a test {base} on base and passed on the branch was judged {got}, not {verdict}")


def test_every_field_of_a_test_verdict_is_filled():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": "passed"})
    branch = side("branch", {"t/test_a.py::test_p": "passed"},
                  {"t/test_a.py::test_p": {"pin": "unchanged on purpose"}})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_p": "t/test_a.py::test_p"})
    got = (verdict.id, verdict.function, verdict.change, verdict.base, verdict.branch,
           verdict.verdict, verdict.pin)
    assert got == ("t/test_a.py::test_p", "t/test_a.py::test_p", MODIFIED, "passed", "passed",
                   "PIN", "unchanged on purpose"), (
        f"a pinned test green on both sides must be a PIN carrying its reason, with every "
        f"field filled: {got}")


def test_an_import_error_on_base_makes_a_weak_red_and_the_pin_hint_is_appended():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED),
              SelectedTest("t/test_a.py::test_q", "t/test_a.py", 9, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": "failed", "t/test_a.py::test_q": "passed"},
                {"t/test_a.py::test_p": {"import_error": True}})
    branch = side("branch", {"t/test_a.py::test_p": "passed", "t/test_a.py::test_q": "passed"},
                  {"t/test_a.py::test_q": {"pin": ""}})
    p, q = judge(chosen, base, branch, {c.id: c.id for c in chosen})
    assert p.verdict == "WEAK_RED", (
        f"a base failure caused by an ImportError must be WEAK_RED; got {p.verdict}")
    assert q.detail == ('base: passed; branch: passed; pin() needs a reason: '
                        'pin("why this holds on base")'), (
        f"the pin hint must be appended to both sides' details; got {q.detail!r}")


def test_the_branch_detail_names_its_failure_too():
    chosen = [SelectedTest("t/test_a.py::test_p", "t/test_a.py", 3, MODIFIED)]
    base = side("base", {"t/test_a.py::test_p": "passed"})
    branch = side("branch", {"t/test_a.py::test_p": "failed"},
                  {"t/test_a.py::test_p": {"when": "call", "exc_type": "ValueError"}})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_p": "t/test_a.py::test_p"})
    assert verdict.detail == "base: passed; branch: failed in call with ValueError", (
        f"a red branch must name its phase and exception: {verdict.detail!r}")


def test_counts_add_up_per_verdict():
    report = _report(["RED_GREEN", "RED_GREEN", "PIN"], strict=False)
    counts = report.counts()
    assert counts["RED_GREEN"] == 2 and counts["PIN"] == 1 and sum(counts.values()) == 3, (
        f"two RED_GREEN and one PIN must be counted as such: {counts}")


def test_regress_without_a_rerun_and_with_skipped_or_xfailed_reruns():
    base = side("base", {"a": "passed", "b": "passed", "c": "passed"},
                collection_errors=(("t/test_gone.py", ""),))
    branch = side("branch", {"a": "failed", "b": "failed", "c": "failed"})
    regressions, flaky, _, _ = compare(base, branch, None)
    assert [r.id for r in regressions] == ["a", "b", "c"] and flaky == [], (
        f"without a re-run (--no-rerun) every candidate is a regression: {regressions}, "
        f"flaky {flaky}")
    rerun = side("rerun", {"a": "skipped", "b": "xfailed", "c": "failed"})
    regressions, flaky, repairs, _ = compare(base, branch, rerun)
    assert [f.id for f in flaky] == ["a", "b"] and [r.id for r in regressions] == ["c"], (
        f"a candidate that is skipped or xfailed on the re-run is flaky, not a regression: "
        f"flaky {flaky}, regressions {regressions}")
    assert repairs == [FailingId("t/test_gone.py", "collection_error", "absent")], (
        f"a module that failed to collect on base only is a repair named as a collection "
        f"error: {repairs}")


def test_selection_reads_every_changed_file_and_numbers_each_test(tmp_path):
    work = {"tests/test_a.py": BASE_TESTS, "tests/test_b.py": "def test_x(:\n",
            "tests/test_c.py": BRANCH_TESTS}
    change, got = selected(tmp_path, {"tests/test_a.py": BASE_TESTS,
                                      "tests/test_c.py": BASE_TESTS}, work)
    assert "tests/test_b.py" in got and "tests/test_c.py::test_added" in got, (
        f"an unchanged file and an unparsable one must not stop the selection of the files "
        f"after them; selected {sorted(got)}")
    lines = {(s.id, s.path, s.line) for s in change.selected}
    assert ("tests/test_b.py", "tests/test_b.py", 1) in lines and \
        ("tests/test_c.py::test_body_changes", "tests/test_c.py", 8) in lines and \
        ("tests/test_c.py::test_added", "tests/test_c.py", 11) in lines, (
            f"each selected test must carry its file and def line (an unparsable file: line "
            f"1); got {sorted(lines)}")


def test_a_unittest_case_imported_by_name_is_collected():
    tree = ast.parse("from unittest import TestCase\nclass Plain(TestCase):\n"
                     "    def test_x(self): pass\nclass Other(object):\n"
                     "    def test_y(self): pass\n")
    names = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert names == ["Plain::test_x"], (
        f"a TestCase subclass is collected whatever its name, a plain class is not: {names}")
