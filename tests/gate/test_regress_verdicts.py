"""The regression gate's sorting of failures (docs/gate.md, *deskcheck regress*): regressions,
flaky, repairs and pre-existing failures, when the gate holds (``--strict``) and its JSON."""

from __future__ import annotations

import pytest

from deskcheck.gate.regress import FailingId, RegressReport, compare
from tests.gate.pure_sides import side


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
