"""Direct checks of docs/gate.md's sentences on the gates' pure rules: the red-first verdict
table, the failure line that names ranks, one fix per verdict group, regress's worker choice
and what ``history`` records for a gate run."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deskcheck.gate.record import gate_summary
from deskcheck.gate.redfirst import classify, failure_line
from deskcheck.gate.render import fixes_by_verdict
from deskcheck.gate.workers import choose


def test_an_import_error_on_base_is_a_weak_red():
    verdict = classify("failed", "passed", pin=None, base_import_error=True)
    assert verdict == "WEAK_RED", (
        f"a test failing on base with an ImportError was judged {verdict}, expected WEAK_RED")
    assert classify("failed", "passed", pin=None, base_import_error=False) == "RED_GREEN", (
        "a test failing on base without an ImportError and passing on the branch must be "
        f"RED_GREEN; it is {classify('failed', 'passed', pin=None, base_import_error=False)}"
    )


def test_a_module_not_found_in_the_test_is_recorded_as_an_import_error(monkeypatch):
    import deskcheck.gate.probe_plugin as probe

    monkeypatch.setattr(probe, "_STATE", SimpleNamespace())
    item = SimpleNamespace(get_closest_marker=lambda name: None)
    for error in (ModuleNotFoundError("No module named 'added_on_branch'"), ImportError("x")):
        call = SimpleNamespace(excinfo=SimpleNamespace(type=type(error), value=error))
        hook = probe.pytest_runtest_makereport(item, call)
        next(hook)
        with pytest.raises(StopIteration) as done:
            hook.send(SimpleNamespace())
        assert done.value.value.deskcheck_import_error is True, (
            f"a {type(error).__name__} raised in the test is an `ImportError` in the test, a weak "
            "red (docs/gate.md:43, :111); the probe recorded it as no import error, so red-first "
            "would judge it RED_GREEN")


def test_a_pin_without_a_reason_is_green_on_base():
    verdict = classify("passed", "passed", pin="", base_import_error=False)
    assert verdict == "GREEN_ON_BASE", (
        f"pin() without a reason was judged {verdict}; docs: judged as GREEN_ON_BASE")
    assert classify("passed", "passed", pin="why", base_import_error=False) == "PIN", (
        "a test green on base with pin(\"why\") must be PIN; it is "
        f"{classify('passed', 'passed', pin='why', base_import_error=False)}"
    )


def test_the_failure_line_keeps_the_lines_that_name_ranks():
    message = ("congruence arm 'admit' failed\nrank 1 diverged: decided 3 where ranks 0, 2 "
               "decided 2\nrank by rank (enforcer on):\nrank 0 | 2")
    said = failure_line(message)
    assert said == "rank 1 diverged: decided 3 where ranks 0, 2 decided 2", (
        f"the failure line is {said!r}: the line naming ranks (before the rank-by-rank table) "
        "must be kept instead of the exception's first line")


def test_a_fix_is_said_once_per_verdict_group():
    failing = [SimpleNamespace(verdict="GREEN_ON_BASE") for _ in range(3)]
    failing.append(SimpleNamespace(verdict="RED_ON_BRANCH"))
    fixes = fixes_by_verdict(failing)
    assert [(v, n) for v, n, _ in fixes] == [("GREEN_ON_BASE", 3), ("RED_ON_BRANCH", 1)], (
        f"the fixes were {[(v, n) for v, n, _ in fixes]}: expected one per verdict group with "
        "its test count (GREEN_ON_BASE x3, RED_ON_BRANCH x1)")


@pytest.mark.parametrize("suite_s", [0.5, 5.0, 19.9])
def test_a_suite_under_twenty_seconds_runs_without_workers(suite_s):
    choice = choose(suite_s, "in-process on base", cpus=16)
    assert choice.workers == 0, (
        f"a {suite_s} s suite chose -n {choice.workers}; under 20 s it must be -n 0")
    assert "-n 0 chosen" in choice.reason, (
        f"the reason for a {suite_s} s suite must say '-n 0 chosen'; it says {choice.reason!r}"
    )


def test_workers_are_one_per_ten_seconds_at_most_eight():
    assert choose(40.0, "on base", cpus=16).workers == 4, "a 40 s suite did not get -n 4"
    many = choose(600.0, "on base", cpus=64)
    assert many.workers == 8, f"a 600 s suite on 64 CPUs chose -n {many.workers}, at most 8"
    few = choose(600.0, "on base", cpus=3)
    assert few.workers == 3, f"a 600 s suite on 3 CPUs chose -n {few.workers}, at most the CPUs"


def test_history_counts_green_on_base_as_not_held():
    payload = {"command": "redfirst", "holds": False,
               "counts": {"RED_GREEN": 1, "GREEN_ON_BASE": 2, "RED_ON_BRANCH": 1},
               "tests": [{}, {}, {}, {}]}
    summary = gate_summary(payload)
    assert summary["tests"] == 4 and summary["held"] == 1, (
        f"a redfirst run of 4 tests with 2 GREEN_ON_BASE and 1 RED_ON_BRANCH was recorded as "
        f"{summary['held']} held of {summary['tests']}, expected 1 of 4")


@pytest.mark.parametrize(("suite_s", "workers"), [(20.0, 2), (29.9, 2), (30.0, 3)])
def test_from_twenty_seconds_up_each_ten_seconds_is_a_worker(suite_s, workers):
    choice = choose(suite_s, "in-process on base", cpus=16)
    assert choice.workers == workers, (
        f"docs/gate.md: from 20 s up, one worker per 10 s of suite; a {suite_s} s suite on 16 "
        f"CPUs chose -n {choice.workers}, expected -n {workers}")
    assert f"-n {workers} chosen" in choice.reason, (
        f"the note for a {suite_s} s suite must say '-n {workers} chosen'; it says "
        f"{choice.reason!r}")


def test_one_cpu_never_gets_workers():
    choice = choose(600.0, "on base", cpus=1)
    assert choice.workers == 0, (
        f"docs/gate.md: workers are at most the CPUs; a 600 s suite on 1 CPU chose "
        f"-n {choice.workers}, expected -n 0")
