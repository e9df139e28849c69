"""pytest plugin loaded only inside the owners coverage pass (``-p`` on its command line).

It labels coverage data with the running test's node id, in this process and in every process
the test starts:

- this process: ``Coverage.current().switch_context(nodeid)`` around each test;
- forked children (gloo ranks by fork, ``os.fork``): coverage's ``patch = fork`` restarts
  measurement in the child; the at-fork hook registered here (after coverage's) switches the
  child's context to the test that forked it;
- spawned children and ``subprocess`` pythons: they start coverage from ``COVERAGE_PROCESS_START``
  whose ``context = ${DESKCHECK_AUTO_CONTEXT-}`` reads the node id this plugin exports.

Two ways to measure (``owners.run_coverage_pass`` picks one):

- ``coverage run -m pytest`` (``DESKCHECK_AUTO_RCFILE`` unset): coverage runs from interpreter
  start, so lines run at import and collection are measured too (outside any test: empty
  context). The persistent coverage map needs them (a changed module-level line).
- ``python -m pytest`` with ``DESKCHECK_AUTO_RCFILE`` set: this plugin starts coverage (the
  ``coverage.Coverage`` API, that rcfile) when the first test starts, and stops and saves it at
  the end of the session. pytest's start-up, plugin imports and collection run untraced (on
  Python 3.11 the tracer's cost there was most of the pass), and child processes are measured
  only when a test starts them (``COVERAGE_PROCESS_START`` is exported from then on, when
  ``DESKCHECK_AUTO_CHILDREN`` is set). Every line a test runs is recorded under that test as
  before; lines run only at import or collection are not measured at all, which the owners
  answer (tests only) never used. The plugin also combines the data and writes each line's
  tests to the JSON file ``DESKCHECK_AUTO_LINES`` names (coverage is imported here already:
  the caller then need not import it).

Per-test outcomes and pytest's rootdir go to the JSON file named by ``DESKCHECK_AUTO_OUTCOMES`` (the baseline).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from deskcheck.mutants.auto.coverage_env import (
    CHILDREN_ENV,
    CONTEXT_ENV,
    LINES_ENV,
    OUTCOMES_ENV,
    RCFILE_ENV,
)

_outcomes: dict[str, str] = {}
_durations: dict[str, float] = {}
_started: list[Any] = []  # the Coverage this plugin started (RCFILE_ENV mode), at most one
_notes: list[str] = []  # what the pass did about another coverage collector
FOREIGN_COLLECTOR_NOTE = (
    "another coverage collector was running (a coverage plugin in the project's pytest "
    "options): deskcheck's own measurement took over for the tests, and handed it back after "
    "the last test")


def _switch_to_current_test() -> None:
    try:
        import coverage
    except ImportError:  # pragma: no cover - the pass always runs under coverage
        return
    cov = coverage.Coverage.current()
    if cov is not None:
        cov.switch_context(os.environ.get(CONTEXT_ENV, ""))


def _start_measuring() -> None:
    """RCFILE_ENV mode: start coverage once, when the first test starts."""
    rcfile = os.environ.get(RCFILE_ENV)
    if not rcfile or _started:
        return
    import coverage

    if coverage.Coverage.current() is not None:  # e.g. a plugin started one at configure
        _notes.append(FOREIGN_COLLECTOR_NOTE)
    os.environ.pop(CONTEXT_ENV, None)  # the rcfile's ``context = ${...-}`` expands to ""

    cov = coverage.Coverage(config_file=rcfile)
    cov.start()  # applies ``patch = fork, _exit`` and the multiprocessing patch
    _started.append(cov)
    # after coverage's own at-fork hook (registered by start()), which restarts measurement
    # in the child with an empty context
    os.register_at_fork(after_in_child=_switch_to_current_test)
    if os.environ.get(CHILDREN_ENV):
        os.environ["COVERAGE_PROCESS_START"] = rcfile


def _stop_measuring() -> None:
    if not _started:
        return
    cov = _started.pop()
    cov.stop()
    cov.save()
    request = os.environ.get(LINES_ENV)
    if request:
        from pathlib import Path

        from deskcheck.mutants.auto.owners import read_contexts

        asked = json.loads(Path(request).read_text(encoding="utf-8"))
        lines = read_contexts(Path(os.environ[RCFILE_ENV]), Path(asked["data"]),
                              Path(asked["root"]), asked["paths"])
        Path(asked["out"]).write_text(json.dumps(
            {path: {str(line): sorted(tests) for line, tests in by_line.items()}
             for path, by_line in lines.items()}), encoding="utf-8")


if not os.environ.get(RCFILE_ENV):  # ``coverage run``: coverage already started, hook after it
    os.register_at_fork(after_in_child=_switch_to_current_test)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _start_measuring()  # before the export: the rcfile's static context must stay empty
    os.environ[CONTEXT_ENV] = item.nodeid
    _switch_to_current_test()
    try:
        yield
    finally:
        os.environ.pop(CONTEXT_ENV, None)
        _switch_to_current_test()


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtestloop(session: pytest.Session):
    """Stop measuring as soon as the last test ran, innermost of every plugin's wrapper: a
    coverage plugin that stops its own collector when the loop ends (pytest-cov) then finds
    its collector current again (coverage.py's collectors stop in the order they started)."""
    try:
        return (yield)
    finally:
        _stop_measuring()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    previous = _outcomes.get(report.nodeid)
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.when == "call" or previous is None:
        _outcomes[report.nodeid] = previous if previous == "failed" else report.outcome


def pytest_sessionfinish(session: pytest.Session) -> None:
    _stop_measuring()
    path = os.environ.get(OUTCOMES_ENV)
    if path:
        tests = {nodeid: {"outcome": outcome, "duration_s": round(_durations[nodeid], 6)}
                 for nodeid, outcome in _outcomes.items()}
        payload = {"rootdir": str(session.config.rootpath), "tests": tests,
                   "notes": list(dict.fromkeys(_notes))}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1, sort_keys=True)
