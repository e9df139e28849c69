"""An item any of whose subtests failed has failed, whatever its own call report says after
(unittest reports the test passed), in both gates (docs/gate.md, *Subtests*). Driven through
the probe plugin's report hook with pytest-shaped reports."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deskcheck.gate import probe_plugin

NODE = "tests/test_q.py::TestQuote::test_quotes"


def subtest_report(failed: bool) -> SimpleNamespace:
    crash = SimpleNamespace(message="AssertionError: '\"' != 'x'")
    return SimpleNamespace(nodeid=NODE, location=("tests/test_q.py", 3, "test_quotes"),
                           when="call", failed=failed, passed=not failed, outcome="failed"
                           if failed else "passed", duration=0.0,
                           context=SimpleNamespace(msg=None, kwargs={"given": '"'}),
                           longrepr=SimpleNamespace(reprcrash=crash))


def item_report(when: str, passed: bool = True) -> SimpleNamespace:
    return SimpleNamespace(nodeid=NODE, location=("tests/test_q.py", 3, "test_quotes"),
                           when=when, passed=passed, failed=not passed, skipped=False,
                           outcome="passed" if passed else "failed", duration=0.0)


@pytest.fixture
def state(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    fake = SimpleNamespace(tests={})
    monkeypatch.setattr(probe_plugin, "_STATE", fake)
    return fake


def test_a_passed_call_report_after_a_failed_subtest_leaves_the_item_failed(state):
    for report in (item_report("setup"), subtest_report(failed=True), item_report("call"),
                   item_report("teardown")):
        probe_plugin.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    record = state.tests[NODE]
    assert record["outcome"] == "failed", (
        f"an item whose subtest failed was recorded {record['outcome']!r} after unittest's "
        "passed call report: a failed subtest must fail its item")
    assert record["subtests_failed"] == ["(given=\")"], record["subtests_failed"]


def test_a_failed_subtest_fails_an_item_already_recorded_passed():
    record = {"outcome": "passed", "when": "call", "exc_type": None, "subtests_failed": []}
    probe_plugin._record_subtest(record, subtest_report(failed=True))
    assert record["outcome"] == "failed", (
        "a failed subtest reported after the item was recorded passed did not fail the item")
    assert record["exc_type"] == "AssertionError", (
        "a failed subtest must record AssertionError as the item's exception; it recorded "
        f"{record['exc_type']!r}"
    )


def test_passing_subtests_leave_the_item_as_its_own_report_says(state):
    for report in (item_report("setup"), subtest_report(failed=False), item_report("call")):
        probe_plugin.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    assert state.tests[NODE]["outcome"] == "passed", "a passing subtest failed its item"
