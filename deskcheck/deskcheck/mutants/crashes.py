"""Crash records of the processes a mutant's tests start (ranks, spawned pythons, workers).

A rank that dies of an exception while its test waits for it (``queue.get(timeout=30)``, a
collective) looks like a hang from outside: the test times out long after the real event.
Every process of a mutant run therefore records its uncaught exception and exit status in
the run's scratch folder (``DESKCHECK_STACKS_DIR``): the mutant child arms this once and
forked children inherit it; pythons started below it arm it at start (``_bootstrap``).
The sweep reads the records and names the crash in the verdict.

Covered: ``multiprocessing.Process`` (fork, spawn, forkserver: its ``_bootstrap`` catches
the exception itself, so ``run`` is wrapped per process), a python's uncaught exception
(``sys.excepthook``: ``subprocess`` pythons, torchrun workers).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STACKS_ENV = "DESKCHECK_STACKS_DIR"
_SUFFIX = ".crash.json"
_armed: dict[str, Any] = {}


@dataclass(frozen=True)
class Crash:
    """One process that died of an uncaught exception."""

    pid: int
    process: str  # e.g. "multiprocessing Process-1", "python -c ...", a rank label
    exception: str  # the exception's class name
    message: str
    where: str  # file:line of the innermost frame
    exit_status: int | None
    at: float  # time.monotonic() when recorded
    stack: str = ""

    def describe(self) -> str:
        status = "" if self.exit_status is None else f", exit status {self.exit_status}"
        return (f"{self.process} (pid {self.pid}) died: {self.exception}: {self.message} "
                f"at {self.where}{status}")

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _write(record: dict[str, Any]) -> None:
    folder = os.environ.get(STACKS_ENV)
    if not folder:
        return
    path = Path(folder) / f"{os.getpid()}{_SUFFIX}"
    try:
        path.write_text(json.dumps(record), encoding="utf-8")
    except OSError:
        pass


def _record(exc: BaseException, process: str, exit_status: int | None) -> dict[str, Any]:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
    record = {"pid": os.getpid(), "process": process, "exception": type(exc).__name__,
              "message": str(exc)[:500], "where": where, "exit_status": exit_status,
              "at": time.monotonic(),
              "stack": "".join(traceback.format_exception(exc))[-3000:]}
    _write(record)
    return record


def _process_name() -> str:
    argv = " ".join(sys.argv)[:120] if sys.argv and sys.argv[0] else "python"
    return f"python {argv}".strip()


def arm() -> None:
    """Record this process's (and its forked children's) uncaught exceptions. Idempotent."""
    if _armed.get("armed"):
        return
    _armed["armed"] = True
    previous = sys.excepthook

    def excepthook(kind, value, tb):
        if not isinstance(value, KeyboardInterrupt | SystemExit):
            try:
                _record(value.with_traceback(tb), _process_name(), 1)
            except Exception:  # recording must never hide the user's traceback
                pass
        previous(kind, value, tb)

    sys.excepthook = excepthook
    _wrap_multiprocessing()


def _wrap_multiprocessing() -> None:
    import multiprocessing.process as mp_process

    base = mp_process.BaseProcess
    if getattr(base._bootstrap, "_deskcheck_crashes", False):
        return
    original = base._bootstrap

    def _bootstrap(self, *args: Any, **kwargs: Any):
        run, state = self.run, {}

        def recording_run() -> None:
            try:
                run()
            except BaseException as exc:
                if not isinstance(exc, SystemExit | KeyboardInterrupt):
                    state["record"] = _record(exc, f"multiprocessing {self.name}", None)
                raise

        self.run = recording_run
        code = original(self, *args, **kwargs)
        if "record" in state:  # the exit status is known only now
            state["record"]["exit_status"] = code
            _write(state["record"])
        return code

    _bootstrap._deskcheck_crashes = True  # type: ignore[attr-defined]
    base._bootstrap = _bootstrap  # type: ignore[method-assign]


def read_crashes(folder: str) -> list[Crash]:
    """The crash records of one run, earliest first (a process's label names it)."""
    crashes = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if not name.endswith(_SUFFIX):
            continue
        try:
            data = json.loads((Path(folder) / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        label = Path(folder) / f"{data['pid']}.label"
        if label.is_file():
            data["process"] = f"{label.read_text(errors='replace')} ({data['process']})"
        crashes.append(Crash(**data))
    return sorted(crashes, key=lambda c: c.at)


def during(crashes: list[Crash], events: list[dict[str, Any]]) -> dict[str, list[Crash]]:
    """Each crash attributed to the test that was running when it happened (by the events'
    monotonic times, one clock for every process of the machine)."""
    spans: list[tuple[str, float, float]] = []
    start: dict[str, float] = {}
    for event in events:
        if event.get("event") == "start":
            start[event["nodeid"]] = event.get("t", 0.0)
        elif event.get("event") == "item" and event["nodeid"] in start:
            spans.append((event["nodeid"], start.pop(event["nodeid"]), event.get("t", 0.0)))
    spans += [(nodeid, t, float("inf")) for nodeid, t in start.items()]  # still running
    found: dict[str, list[Crash]] = {}
    for crash in crashes:
        owner = next((n for n, begin, end in spans if begin <= crash.at <= end), "")
        found.setdefault(owner, []).append(crash)
    return found


def signature(nodeid: str, crash: Crash) -> tuple[str, str, str]:
    """What makes a crash the same on clean code: test, exception type, place."""
    return (nodeid, crash.exception, crash.where)


def crash_result(result: Any, crash: Crash, then: str = "failed") -> Any:
    """The owner's result (an ``ItemResult``) told from its first event: the process crash
    is its failure line (so ``wrong_failure_types`` and ``expect`` judge it), what the test
    itself then said follows in the text."""
    from dataclasses import replace

    text = (f"{crash.describe()}\n{crash.stack.strip()}\n"
            f"--- then the test failed: {result.message}\n{result.text}").strip()
    return replace(result, message=f"{crash.exception}: {crash.message} (in {crash.process} "
                   f"at {crash.where}; the test then {then})", text=text)
