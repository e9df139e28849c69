"""The mutant child: runs inside a process forked from the warm parent.

It applies the mutant in memory, exports the environment for processes the tests start,
runs the already-collected pytest items through pytest's own runtest protocol (owners
first, fastest first), and streams one JSON line per event to the parent.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from deskcheck.mutants.crashes import arm as arm_crash_records
from deskcheck.mutants.mutated import MutatedFunction
from deskcheck.mutants.process_hook import (
    arm_stack_dumps,
    child_environment,
    label_process,
    label_torch_ranks,
)
from deskcheck.mutants.procs import die_with_parent
from deskcheck.mutants.verdicts import ItemResult, failure_reason

TEXT_LIMIT = 6000


@dataclass
class ChildJob:
    """What one child runs. ``mutated`` is None for a clean (baseline) run."""

    key: str
    mutated: MutatedFunction | None
    owner_items: Sequence[pytest.Item]
    other_items: Sequence[pytest.Item] = ()
    expect: str | None = None
    wrong_failure_types: Sequence[str] = ()
    full_matrix: bool = False  # run everything, stop at nothing
    probe_non_owners: bool = False  # owners all passed -> look for a non-owner kill
    stop_at_kill: bool = True
    clean_passed: frozenset[str] = frozenset()  # non-owners known green on clean code
    clean_red: frozenset[str] = frozenset()  # known red on clean code: not run as non-owners
    notes: dict[str, Any] = field(default_factory=dict)


def relative_to_root(text: str, root: str | None) -> str:
    """``text`` with the project folder ``root`` (as given and as resolved) written relative,
    so what a failure says, and what an ``expect`` matches, is the same on every checkout."""
    if not root:
        return text
    for folder in dict.fromkeys((root, os.path.realpath(root))):
        text = text.replace(folder.rstrip(os.sep) + os.sep, "")
    return text


def summarize(nodeid: str, reports: Sequence[pytest.TestReport],
              root: str | None = None) -> ItemResult:
    """One item's outcome from its reports; paths under ``root`` are written relative."""
    result = ItemResult(nodeid=nodeid, outcome="passed",
                        duration=sum(r.duration for r in reports))
    for report in reports:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            text = relative_to_root(report.longreprtext, root)
            result.outcome, result.when = "failed", report.when
            result.message = (relative_to_root(crash.message, root) if crash is not None
                              else text.strip()[-300:])
            result.text = text[-TEXT_LIMIT:]
            return result
        if report.skipped and report.when in ("setup", "call"):
            result.outcome, result.when = "skipped", report.when
    return result


class ReportCollector:
    """Catches the reports of the item running now. Items run through the whole
    ``pytest_runtest_protocol`` hook, as in a plain pytest run, so the wrappers other plugins
    put around a test hold in a mutant child too: assertion explanations (and their
    verbosity), ``filterwarnings`` marks and ``-W error``, timeouts."""

    def __init__(self) -> None:
        self.reports: list[pytest.TestReport] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)

    def run(self, item: pytest.Item, nextitem: pytest.Item | None) -> list[pytest.TestReport]:
        self.reports = []
        item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        return self.reports


def _collector(config: pytest.Config) -> ReportCollector:
    """This process's collector, registered once (a forked child starts without one)."""
    name = f"deskcheck-mutant-reports-{os.getpid()}"
    collector = config.pluginmanager.get_plugin(name)
    if collector is None:
        collector = ReportCollector()
        config.pluginmanager.register(collector, name)
    return collector


def _writer(fd: int) -> Callable[[dict[str, Any]], None]:
    def write(event: dict[str, Any]) -> None:
        event["t"] = time.monotonic()
        data = (json.dumps(event) + "\n").encode()
        while data:
            written = os.write(fd, data)
            data = data[written:]

    return write


def _run_items(job: ChildJob, write: Callable[[dict[str, Any]], None]) -> None:
    owners = {item.nodeid for item in job.owner_items}
    killed = owner_failed = False
    # The universe is listed only when the child goes on to run it: every item it touches
    # costs a copy-on-write page fault in this forked child (issue 13: 7 us per item).
    phases = [("owners", job.owner_items), ("others", job.other_items)]
    for phase, given in phases:
        if phase == "others" and not job.full_matrix and (
                killed or owner_failed or not job.probe_non_owners):
            break
        items = list(given)
        if phase == "others":
            items = [i for i in items if i.nodeid not in job.clean_red]
        for index, item in enumerate(items):
            nextitem = items[index + 1] if index + 1 < len(items) else None
            write({"event": "start", "nodeid": item.nodeid, "phase": phase})
            reports = _collector(item.config).run(item, nextitem)
            result = summarize(item.nodeid, reports, root=str(item.config.rootpath))
            write({"event": "item", "phase": phase, **result.to_json()})
            if job.mutated is None or job.full_matrix or result.outcome != "failed":
                continue
            if item.nodeid in owners:
                owner_failed = True
                if failure_reason(result, job.expect, job.wrong_failure_types) == "kill":
                    killed = True
                    if job.stop_at_kill:
                        break
            elif item.nodeid in job.clean_passed:
                break  # a non-owner kill is enough to tell OWNER_MISSED from SURVIVED
        else:
            continue
        break
    first = next(iter(job.owner_items), None)
    if first is None:
        first = next(iter(job.other_items), None)
    if first is not None:
        try:  # fixtures left set up when a run stops early (their errors judge nothing)
            first.session._setupstate.teardown_exact(None)
        except Exception as exc:
            write({"event": "teardown_error", "message": f"{type(exc).__name__}: {exc}"})


def child_main(job: ChildJob, fd: int, stacks_dir: str, token: str) -> None:
    """Body of the forked child; never returns (``os._exit``)."""
    code = 0
    try:
        os.setsid()
        die_with_parent()
        sys.dont_write_bytecode = True
        write = _writer(fd)

        def close_pipe() -> None:
            try:
                os.close(fd)
            except OSError:
                pass

        os.register_at_fork(after_in_child=close_pipe)
        payload = job.mutated.payload() if job.mutated is not None else None
        os.environ.update(child_environment(payload, stacks_dir, token))
        arm_stack_dumps(stacks_dir)
        arm_crash_records()
        label_process("test process")
        label_torch_ranks()
        write({"event": "ready"})
        if job.mutated is not None:
            from deskcheck.mutants.injection import inject
            from deskcheck.mutants.mutated import BrokenMutant, NotInjectable

            try:
                inject(job.mutated)
            except NotInjectable as exc:
                write({"event": "not_injectable", "message": str(exc)})
                os._exit(0)
            except BrokenMutant as exc:
                write({"event": "broken", "message": str(exc)})
                os._exit(0)
        _run_items(job, write)
        write({"event": "done"})
    except BaseException:  # report anything to the parent, then leave
        code = 1
        try:
            _writer(fd)({"event": "error", "message": traceback.format_exc()[-TEXT_LIMIT:]})
        except OSError:
            pass
    finally:
        _close_pools()  # os._exit skips atexit: the pools' ranks and folders go now
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _close_pools() -> None:
    """Close the rank pools the tests left warm in this child (only if the suites part was
    imported: a child that never used a pool imports nothing)."""
    pool = sys.modules.get("deskcheck.suites.pool")
    if pool is None:
        return
    try:
        pool.close_all_pools()
    except Exception:  # noqa: BLE001 - leaving anyway; the sweep reaps what remains
        pass
