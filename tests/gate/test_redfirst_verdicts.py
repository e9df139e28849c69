"""The red-first gate's per-item verdicts and when it holds (docs/gate.md, *deskcheck
redfirst*), as pure functions of the two sides' outcomes: every parameter set gets its own
verdict, details name the phase and exception, a test-only change is judged on the branch
alone, ``--strict`` and the JSON keys (``--require-tests`` included)."""

from __future__ import annotations

import pytest

from deskcheck.gate.redfirst import RedFirstReport, TestVerdict, judge, judge_test_only
from deskcheck.gate.selection import (
    ADDED,
    MODIFIED,
    SelectedTest,
)
from tests.gate.pure_sides import side


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


def test_a_conftest_import_error_on_base_is_a_weak_red_quoting_it():
    from deskcheck.gate.runner import SideResult

    chosen = [SelectedTest("t/test_a.py::test_new", "t/test_a.py", 3, ADDED)]
    base = SideResult("base", None, {}, [], {"kind": "conftest", "exc_type": "ImportError",
                                             "message": "E   ImportError: cannot import 'y'"})
    branch = side("branch", {"t/test_a.py::test_new": "passed"})
    [verdict] = judge(chosen, base, branch, {"t/test_a.py::test_new": "t/test_a.py::test_new"})
    assert (verdict.verdict, verdict.base) == ("WEAK_RED", "collection_error"), (
        f"docs/gate.md: a conftest import error on base (the test passing on the branch) is a "
        f"WEAK_RED; it was {verdict.verdict} with base {verdict.base!r}")
    assert "collection error (E   ImportError: cannot import 'y')" in verdict.detail, (
        f"the detail must quote the base's conftest error: {verdict.detail!r}")
