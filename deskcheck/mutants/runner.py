"""The parent side: fork children for jobs, N at a time, with deadlines and no orphans.

Each child runs in its own session; on a timeout every process of the run (ranks,
spawned pythons, torchrun workers) is asked for its stacks (SIGUSR1 -> faulthandler), then
killed, and whatever is left after a normal exit is killed as well.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import shutil
import signal
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.interrupts import raise_if_interrupted, release_held, signals_held
from deskcheck.mutants import procs
from deskcheck.mutants.crashes import Crash, read_crashes
from deskcheck.mutants.worker import ChildJob, child_main
from deskcheck.rank_hooks import rank_group_timeout
from deskcheck.scratch import make_scratch, reap_stale

STACK_WAIT_S = 0.6
# A test that runs a rank group gets, beside its own allowance, the time a hung collective
# takes to be diagnosed: the group's timeout, the parent's second wait (at most another
# timeout), and the stacks. Groups with a longer timeout than this are not waited for.
DIAGNOSIS_S = 5.0
MAX_GROUP_TIMEOUT_S = 300.0
SCRATCH_PREFIX = "deskcheck-sweep-"
POOL_PREFIX = "deskcheck-w"  # deskcheck.suites.pool's work folders (deskcheck-w2-gloo-...)


@dataclass
class Budget:
    """Timeout = ``constant`` + ``factor`` x baseline seconds of each item the child starts
    (an item without a baseline counts as ``constant``)."""

    constant: float
    factor: float
    baseline: dict[str, float] = field(default_factory=dict)
    # The search for a non-owner kill has a budget of its own: ``search_s`` from its first
    # test on, plus ``factor`` x the clean time of each test it starts, or ``search_s`` for
    # a test the baseline did not run (its clean time is unknown). Running out of it ends
    # the search; it is never the mutant's TIMEOUT.
    search_s: float = 60.0

    def allowance(self, nodeid: str) -> float:
        known = self.baseline.get(nodeid)
        return self.factor * known if known is not None else self.constant

    def search_allowance(self, nodeid: str) -> float:
        known = self.baseline.get(nodeid)
        return self.factor * known if known is not None else self.search_s


@dataclass
class AliveProcess:
    pid: int
    label: str
    command: str
    stack: str

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "label": self.label, "command": self.command,
                "stack": self.stack}


@dataclass
class JobOutcome:
    key: str
    events: list[dict[str, Any]]
    duration_s: float
    exit_status: int | None
    timed_out: bool = False
    timeout_s: float = 0.0
    running_item: str = ""
    alive: list[AliveProcess] = field(default_factory=list)
    leftovers: list[int] = field(default_factory=list)
    search_stopped: str = ""  # the non-owner search ran out of its budget in this test
    crashes: list[Crash] = field(default_factory=list)  # processes that died of an exception


@dataclass
class _Running:
    job: ChildJob
    budget: Budget
    pid: int
    fd: int
    token: str
    stacks_dir: str
    started: float
    deadline: float
    buffer: bytes = b""
    events: list[dict[str, Any]] = field(default_factory=list)
    current: str = ""
    eof: bool = False
    finished_at: float | None = None
    leftovers: list[int] = field(default_factory=list)
    searching: bool = False  # the owners are done; the non-owner search runs
    item_started: float = 0.0
    group_waited_for: str | None = None  # the item whose deadline covers a group's diagnosis
    crashes: list[Crash] | None = None  # read once, before the scratch folder goes


class Runner:
    """Runs ``ChildJob``s in forked children, ``workers`` at a time."""

    def __init__(self, workers: int, scratch: str | None = None):
        self.workers = max(1, workers)
        reap_stale(SCRATCH_PREFIX)  # what sweeps killed with SIGKILL left
        reap_stale(POOL_PREFIX)
        self.scratch = scratch or str(make_scratch(SCRATCH_PREFIX))
        self.exited: dict[int, int] = {}
        self.leftovers: list[int] = []
        self._running: dict[int, _Running] = {}
        self._closing: dict[int, _Running] = {}
        procs.become_subreaper()

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        reap_stale(POOL_PREFIX)  # rank-pool folders of children killed with SIGKILL

    def _reap(self) -> None:
        for pid, status in procs.reap_children():
            self.exited[pid] = status

    def _start(self, job: ChildJob, budget: Budget) -> _Running:
        token = uuid.uuid4().hex[:12]
        stacks_dir = os.path.join(self.scratch, token)
        os.mkdir(stacks_dir)
        read_fd, write_fd = os.pipe()
        pid = procs.real_fork()  # never a conftest's replacement
        if pid == 0:  # child
            os.close(read_fd)
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_DFL)  # the sweep owns interruption
            release_held()
            child_main(job, write_fd, stacks_dir, token)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        now = time.monotonic()
        return _Running(job, budget, pid, read_fd, token, stacks_dir, now,
                        now + budget.constant)

    def run(self, jobs: Sequence[tuple[ChildJob, Budget]],
            on_done: Callable[[JobOutcome], None] | None = None) -> dict[str, JobOutcome]:
        gc.collect()
        gc.freeze()  # children then share the heap instead of copying it page by page
        pending = deque(jobs)
        running: dict[int, _Running] = {}
        self._closing: dict[int, _Running] = {}
        self._running = running
        outcomes: dict[str, JobOutcome] = {}
        selector = selectors.DefaultSelector()

        def done(run: _Running, outcome: JobOutcome) -> None:
            selector.unregister(run.fd)
            os.close(run.fd)
            del running[run.fd]
            outcomes[outcome.key] = outcome
            if on_done is not None:
                on_done(outcome)

        try:
            while pending or running:
                raise_if_interrupted()
                while pending and len(running) < self.workers:
                    job, budget = pending.popleft()
                    with signals_held():  # a signal waits until the child is ours to stop
                        run = self._start(job, budget)
                        running[run.fd] = run
                        selector.register(run.fd, selectors.EVENT_READ)
                now = time.monotonic()
                wait = min([r.deadline for r in running.values()], default=now + 0.05) - now
                for key, _ in selector.select(timeout=min(max(wait, 0.0), 0.05)):
                    self._read(running[key.fd])
                self._reap()
                for run in list(running.values()):
                    if run.finished_at is not None:  # said done: tidy up once it has exited
                        self._closing[run.pid] = run
                        done(run, self._outcome(run, timed_out=False))
                    elif run.pid in self.exited:  # died without saying done
                        self._read(run, drain=True)
                        status = self.exited[run.pid]  # _cleanup forgets it
                        self._cleanup(run)
                        outcome = self._outcome(run, timed_out=False)
                        outcome.exit_status = status
                        done(run, outcome)
                    elif time.monotonic() > run.deadline and run.searching:
                        done(run, self._search_stopped(run))
                    elif time.monotonic() > run.deadline and not self._late_start(run) \
                            and not self._wait_for_diagnosis(run):
                        done(run, self._timeout(run))
                self._tidy()
            end = time.monotonic() + 5.0
            while self._closing and time.monotonic() < end:
                time.sleep(0.005)
                self._reap()
                self._tidy()
        finally:
            for run in [*running.values(), *self._closing.values()]:  # leave nothing behind
                procs.kill_run(run.pid, run.token, self._reap)
            for run in running.values():  # not closed by done(); fd numbers are reused
                try:
                    os.close(run.fd)
                except OSError:
                    pass
            self._closing.clear()
            selector.close()
            gc.unfreeze()
        return outcomes

    def _roots(self, but: int) -> frozenset[int]:
        return frozenset(r.pid for r in [*self._running.values(), *self._closing.values()]
                         if r.pid != but)

    def _tidy(self) -> None:
        """Kill what finished runs left behind (leaked ranks) once their child has exited."""
        for pid, run in list(self._closing.items()):
            if pid in self.exited:
                self._cleanup(run)
                del self._closing[pid]

    def _cleanup(self, run: _Running) -> None:
        leftovers = procs.kill_run(run.pid, run.token, self._reap, skip=self._roots(run.pid))
        run.leftovers = [p for p in leftovers if p != run.pid]
        self.leftovers.extend(run.leftovers)
        self.exited.pop(run.pid, None)
        self._crashes(run)
        shutil.rmtree(run.stacks_dir, ignore_errors=True)

    @staticmethod
    def _crashes(run: _Running) -> list[Crash]:
        if run.crashes is None:
            run.crashes = read_crashes(run.stacks_dir)
        return run.crashes

    def _outcome(self, run: _Running, timed_out: bool,
                 alive: list[AliveProcess] | None = None) -> JobOutcome:
        end = run.finished_at if run.finished_at is not None else time.monotonic()
        return JobOutcome(key=run.job.key, events=run.events, duration_s=end - run.started,
                          exit_status=self.exited.get(run.pid), timed_out=timed_out,
                          timeout_s=run.deadline - run.started, running_item=run.current,
                          alive=alive or [], leftovers=run.leftovers,
                          crashes=list(self._crashes(run)))

    def _read(self, run: _Running, drain: bool = False) -> None:
        """Read what the child wrote; ``drain`` waits (briefly) for the end of the pipe."""
        until = time.monotonic() + 1.0
        while True:
            try:
                chunk = os.read(run.fd, 1 << 16)
            except BlockingIOError:
                if not drain or time.monotonic() > until:
                    break
                time.sleep(0.005)
                continue
            if not chunk:
                run.eof = True
                break
            run.buffer += chunk
            *lines, run.buffer = run.buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    self._event(run, json.loads(line))

    def _event(self, run: _Running, event: dict[str, Any]) -> None:
        run.events.append(event)
        if event.get("event") == "start" and event.get("phase") == "others" \
                and not run.job.full_matrix:
            if not run.searching:  # the owners' budget ends here; the search's starts
                run.searching, run.deadline = True, time.monotonic() + run.budget.search_s
            run.current = event["nodeid"]
            run.deadline += run.budget.search_allowance(event["nodeid"])
        elif event.get("event") == "start":
            run.current, run.item_started = event["nodeid"], time.monotonic()
            run.deadline += run.budget.allowance(event["nodeid"])
        elif event.get("event") == "item":
            run.current = ""
        elif event.get("event") in ("done", "broken", "not_injectable", "error"):
            run.finished_at = time.monotonic()

    def _late_start(self, run: _Running) -> bool:
        """Read what the child wrote since the last look before timing it out: a test that
        started just now (its start still in the pipe, as on a loaded machine) extends the
        deadline by its own allowance."""
        self._read(run)
        return time.monotonic() <= run.deadline

    @staticmethod
    def _wait_for_diagnosis(run: _Running) -> bool:
        """Extend the deadline once per test when a process of the run joined a rank group:
        the group's own timeout, then the diagnosis naming the rank that skipped the
        collective, must be able to finish (a diagnosed hang is a kill, not a TIMEOUT)."""
        if not run.current or run.group_waited_for == run.current:
            return False
        group = rank_group_timeout(run.stacks_dir)
        if group is None or group > MAX_GROUP_TIMEOUT_S:
            return False
        run.group_waited_for = run.current
        until = run.item_started + run.budget.allowance(run.current) + 2 * group + DIAGNOSIS_S
        if until <= run.deadline:
            return False
        run.deadline = until
        return True

    def _search_stopped(self, run: _Running) -> JobOutcome:
        """The non-owner search ran out of its own budget: every process of the run is
        killed, and the outcome is the owners' (all passed), with the search named."""
        self._read(run)
        status_before = self.exited.get(run.pid)
        self._cleanup(run)
        outcome = self._outcome(run, timed_out=False)
        outcome.exit_status = status_before
        outcome.search_stopped = run.current or "?"
        return outcome

    def _timeout(self, run: _Running) -> JobOutcome:
        pids = procs.members(run.pid, run.token, self._roots(run.pid))
        stacks = Path(run.stacks_dir)
        for pid in pids:
            (stacks / f"{pid}.txt").touch(exist_ok=True)
        before = {pid: (stacks / f"{pid}.txt").stat().st_size for pid in pids}
        procs.signal_all(pids, signal.SIGUSR1)
        end = time.monotonic() + STACK_WAIT_S
        while time.monotonic() < end:
            if all((stacks / f"{p}.txt").stat().st_size > before[p] for p in pids):
                break
            time.sleep(0.02)
        alive = []
        for pid in pids:
            label_file = stacks / f"{pid}.label"
            label = label_file.read_text() if label_file.exists() else f"pid {pid}"
            text = (stacks / f"{pid}.txt").read_text(errors="replace")[before[pid]:]
            alive.append(AliveProcess(pid, label, procs.describe(pid), text.strip()))
        budget_s = run.deadline - run.started  # before reading on: later starts extend it
        self._read(run)
        status_before = self.exited.get(run.pid)
        self._cleanup(run)
        outcome = self._outcome(run, timed_out=True, alive=alive)
        outcome.exit_status, outcome.timeout_s = status_before, budget_s
        return outcome
