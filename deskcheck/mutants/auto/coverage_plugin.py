"""pytest plugin loaded only inside the owners coverage pass (``-p`` on its command line).

It labels coverage data with the running test's node id, in this process and in every process
the test starts:

- this process: ``Coverage.current().switch_context(nodeid)`` around each test;
- forked children (gloo ranks by fork, ``os.fork``): coverage's ``patch = fork`` restarts
  measurement in the child; the at-fork hook registered here (after coverage's) switches the
  child's context to the test that forked it;
- spawned children and ``subprocess`` pythons: they start coverage from ``COVERAGE_PROCESS_START``
  whose ``context = ${DESKCHECK_AUTO_CONTEXT-}`` reads the node id this plugin exports.

Per-test outcomes and pytest's rootdir go to the JSON file named by ``DESKCHECK_AUTO_OUTCOMES`` (the baseline).
"""

from __future__ import annotations

import json
import os

import pytest

CONTEXT_ENV = "DESKCHECK_AUTO_CONTEXT"
OUTCOMES_ENV = "DESKCHECK_AUTO_OUTCOMES"

_outcomes: dict[str, str] = {}
_durations: dict[str, float] = {}


def _switch_to_current_test() -> None:
    try:
        import coverage
    except ImportError:  # pragma: no cover - the pass always runs under coverage
        return
    cov = coverage.Coverage.current()
    if cov is not None:
        cov.switch_context(os.environ.get(CONTEXT_ENV, ""))


os.register_at_fork(after_in_child=_switch_to_current_test)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    os.environ[CONTEXT_ENV] = item.nodeid
    _switch_to_current_test()
    try:
        yield
    finally:
        os.environ.pop(CONTEXT_ENV, None)
        _switch_to_current_test()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    previous = _outcomes.get(report.nodeid)
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.when == "call" or previous is None:
        _outcomes[report.nodeid] = previous if previous == "failed" else report.outcome


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get(OUTCOMES_ENV)
    if path:
        tests = {nodeid: {"outcome": outcome, "duration_s": round(_durations[nodeid], 6)}
                 for nodeid, outcome in _outcomes.items()}
        payload = {"rootdir": str(session.config.rootpath), "tests": tests}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1, sort_keys=True)
