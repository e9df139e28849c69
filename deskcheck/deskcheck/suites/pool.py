"""A warm pool of rank processes for one (world, backend): start once, run many tasks.

Ranks are forked from this (warm) process, so a group starts in tens of milliseconds and
inherits everything in memory, including a mutant swapped in by ``__code__``; they are
spawned instead when this process has touched CUDA. A pool belongs to the pid that created
it: a forked child never uses an inherited pool (its handles are dropped without touching
the parent's ranks) and builds its own.

A task is a picklable callable plus per-rank arguments; every rank runs it and sends back
its value or traceback. A task that leaves the ranks out of step (different collective
counts, a rank hung, died or failed inside a collective) closes the pool: its ranks are
killed with their process group and reaped, and the next use starts a fresh group.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Collection, Sequence
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from deskcheck.errors import BackendUnavailableError, RankError, RankTaskError
from deskcheck.rank_hooks import coverage_context
from deskcheck.scratch import make_scratch
from deskcheck.suites._diagnose import values_or_raise
from deskcheck.suites._rank_main import RankConfig, serve
from deskcheck.suites._rank_process import RankProcess, dump_stacks
from deskcheck.suites.backends import backend_unavailable_reason, parent_touched_cuda, tier_of
from deskcheck.suites.desk_env import apply_desk_env, desk_env_rules
from deskcheck.suites.outcomes import RankFailure, RankOutcome

DEFAULT_PG_TIMEOUT_S = 10.0
PREPARE_S = 60.0  # how long ranks may take to build their instrumented copies (no collective)
GRACE_S = 1.0  # the parent waits this much past the PG timeout before naming hung ranks
JOIN_TIMEOUT_S = 30.0  # joining a group may take this long (or the PG timeout if longer)
SPAWN_IMPORT_S = 30.0  # and a spawned rank this much more, to start python and import torch
START_METHODS = ("auto", "fork", "spawn")

_live_pools: weakref.WeakSet[RankPool] = weakref.WeakSet()


def default_pg_timeout() -> float:
    """``DESKCHECK_PG_TIMEOUT`` seconds, else 10."""
    raw = os.environ.get("DESKCHECK_PG_TIMEOUT", "")
    try:
        return float(raw) if raw else DEFAULT_PG_TIMEOUT_S
    except ValueError:
        raise BackendUnavailableError(
            f"DESKCHECK_PG_TIMEOUT={raw!r} is not a number of seconds",
            location="environment", fix="set DESKCHECK_PG_TIMEOUT to e.g. 10") from None


class RankPool:
    """``world`` rank processes joined in one ``backend`` process group, kept warm."""

    def __init__(self, world: int, backend: str = "gloo", *, timeout_s: float | None = None,
                 start_method: str = "auto"):
        tier_of(backend)
        if world < 1:
            raise ValueError(f"world size must be >= 1, got {world}")
        if start_method not in START_METHODS:
            raise ValueError(f"start_method must be one of {START_METHODS}, got {start_method!r}")
        self.world = world
        self.backend = backend
        self.timeout_s = default_pg_timeout() if timeout_s is None else float(timeout_s)
        self.requested_start_method = start_method
        self.start_method = ""
        self.owner_pid = os.getpid()
        self.start_seconds = 0.0
        self.tasks_run = 0
        self._ranks: list[RankProcess] = []
        self._workdir = ""
        self.decision_folder: Path | None = None  # where its ranks record (decision_log)
        self._task_id = 0
        self._prepared: set[tuple[int, str]] = set()  # (ranks' leader pid, task module)
        self._sent_sys_path: list[str] = []
        self.desk_env: dict[str, str | None] = {}  # the DESK env of the running ranks
        _live_pools.add(self)

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return bool(self._ranks) and self.owner_pid == os.getpid()

    @property
    def pids(self) -> list[int]:
        return [r.pid for r in self._ranks]

    def describe(self) -> str:
        return f"world={self.world} {self.backend} ({tier_of(self.backend)})"

    def start(self) -> RankPool:
        """Start the ranks and wait until every one has joined the group.

        A pool one of whose ranks has gone (killed from outside) is closed and restarted.
        """
        self._check_owner()
        if self._ranks and all(r.exit_status() is None for r in self._ranks):
            return self
        if self._ranks:
            self.close()
        reason = backend_unavailable_reason(self.backend, self.world)
        if reason:
            raise BackendUnavailableError(reason, location=f"world={self.world} {self.backend}",
                                          fix="run this arm on a machine that has it, or select "
                                              "the DESK tier (-m desk)")
        import torch.distributed  # noqa: F401 - warm the parent once; forked ranks inherit it

        self.start_method = self._resolve_start_method()
        self.desk_env = desk_env_rules() if self.backend == "gloo" else {}
        self._sent_sys_path = []
        began = time.perf_counter()
        self._workdir = str(make_scratch(f"deskcheck-w{self.world}-{self.backend}-"))
        death_signal = threading.current_thread() is threading.main_thread()
        try:
            pgid = 0
            for rank in range(self.world):
                config = RankConfig(rank, self.world, self.backend,
                                    os.path.join(self._workdir, "store"), self.timeout_s,
                                    self._workdir, os.getpid(), pgid, death_signal,
                                    self.join_timeout_s, self.desk_env)
                started = self._start_rank(config)
                self._ranks.append(started)
                if rank == 0:
                    pgid = started.pid
                self._place_in_group(started.pid, pgid)
            self._await_ready()
        except BaseException:
            self.close()
            raise
        self.start_seconds = time.perf_counter() - began
        return self

    def _resolve_start_method(self) -> str:
        if self.requested_start_method != "auto":
            return self.requested_start_method
        forced = os.environ.get("DESKCHECK_START_METHOD", "")
        if forced in ("fork", "spawn"):
            return forced
        return "spawn" if parent_touched_cuda() else "fork"

    @staticmethod
    def _place_in_group(pid: int, pgid: int) -> None:
        try:
            os.setpgid(pid, pgid or pid)
        except OSError:  # the rank placed itself already, or it died (seen at ready time)
            pass

    def _start_rank(self, config: RankConfig) -> RankProcess:
        parent_conn, child_conn = Pipe(duplex=True)
        if self.start_method == "spawn":
            return self._spawn_rank(config, parent_conn, child_conn)
        siblings = [r.conn for r in self._ranks] + [parent_conn]
        pid = os.fork()
        if pid == 0:  # the rank: never returns into the caller's stack
            code = 0
            try:
                for conn in siblings:
                    conn.close()
                serve(child_conn, config)
            except BaseException:  # noqa: B036
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        child_conn.close()
        return RankProcess(config.rank, pid, parent_conn)

    def _spawn_rank(self, config: RankConfig, parent_conn: Connection,
                    child_conn: Connection) -> RankProcess:
        env = dict(os.environ)  # the mutants' import hook travels in the environment
        env["DESKCHECK_RANK_SYS_PATH"] = json.dumps(sys.path)
        if self.backend == "gloo":  # before the rank's python starts: its imports see it
            apply_desk_env(env, config.desk_env)
        fd = child_conn.fileno()
        popen = subprocess.Popen(
            [sys.executable, "-m", "deskcheck.suites._rank_main", config.to_json(), str(fd)],
            pass_fds=(fd,), env=env, stdin=subprocess.DEVNULL,
            process_group=config.pgid,
        )
        child_conn.close()
        return RankProcess(config.rank, popen.pid, parent_conn, popen)

    @property
    def join_timeout_s(self) -> float:
        """How long a rank may wait in joining for the others: not the collectives' timeout,
        because a rank that starts late on a loaded machine is not a hang."""
        spawn = SPAWN_IMPORT_S if self.start_method == "spawn" else 0.0
        return max(self.timeout_s, JOIN_TIMEOUT_S) + spawn

    def _await_ready(self) -> None:
        spawn = SPAWN_IMPORT_S if self.start_method == "spawn" else 0.0
        deadline = time.monotonic() + spawn + self.join_timeout_s + GRACE_S
        waiting = {r.conn: r for r in self._ranks}
        problems: list[str] = []
        while waiting:
            remaining = deadline - time.monotonic()
            ready = wait(list(waiting), timeout=max(remaining, 0)) if remaining > 0 else []
            if not ready:
                problems += [f"rank {r.rank} did not join within {self.join_timeout_s:.1f} s"
                             for r in waiting.values()]
                break
            for conn in ready:
                rank = waiting.pop(conn)
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    problems.append(f"rank {rank.rank} died while joining "
                                    f"({rank.exit_status() or 'no status'})")
                    continue
                if message[0] == "init_error":
                    failure, output = message[2], message[3]
                    problems.append(f"rank {rank.rank} could not join the {self.backend} group: "
                                    f"{failure.traceback}{output}")
        if problems:
            raise RankError(f"{self.describe()} group did not start:\n" + "\n".join(problems),
                            location=f"world={self.world} {self.backend}",
                            fix="read the rank's traceback above; raise the timeout with "
                                "DESKCHECK_PG_TIMEOUT if the machine is slow")

    def close(self) -> None:
        """Stop the ranks, kill their process group, reap every one, remove the folder they
        recorded decisions into; idempotent."""
        self._stop_ranks()
        if self.decision_folder is not None and self.owner_pid == os.getpid():
            shutil.rmtree(self.decision_folder, ignore_errors=True)
            self.decision_folder = None

    def _stop_ranks(self) -> None:
        """Stop the ranks (a task left them out of step: the next one starts new ranks; what
        they recorded stays for the failure to name its split)."""
        if self.owner_pid != os.getpid():
            self._abandon()
            return
        ranks, self._ranks = self._ranks, []
        for r in ranks:
            try:
                r.conn.send(("stop",))
            except OSError:
                pass
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline and any(r.exit_status() is None for r in ranks):
            time.sleep(0.005)
        if ranks:
            try:  # the leader is not reaped yet, so its pid still names our group
                os.killpg(ranks[0].pid, signal.SIGKILL)
            except OSError:
                pass
        for r in ranks:
            try:
                os.kill(r.pid, signal.SIGKILL)
            except OSError:
                pass
            r.reap()
            r.conn.close()
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = ""

    def _abandon(self) -> None:
        """In a forked child: drop inherited handles; the parent's ranks are not touched."""
        for r in self._ranks:
            try:
                r.conn.close()
            except OSError:
                pass
        self._ranks = []
        self._workdir = ""
        self.decision_folder = None

    def _check_owner(self) -> None:
        if self.owner_pid != os.getpid():
            raise RankError(
                f"this {self.describe()} pool belongs to pid {self.owner_pid}, not {os.getpid()}",
                location="deskcheck.suites.RankPool",
                fix="a forked child builds its own pool: call deskcheck.suites.rank_pool() there")

    def __enter__(self) -> RankPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tasks ---------------------------------------------------------------------------
    def run(self, fn: Callable[..., Any], *args: Any, per_rank: Sequence[Any] | None = None,
            **kwargs: Any) -> list[Any]:
        """Run ``fn`` on every rank; return the values rank by rank or raise naming the ranks.

        With ``per_rank``, rank r calls ``fn(per_rank[r], *args, **kwargs)``. Under
        ``DESKCHECK_RECORD=all`` the ranks record their decisions and a failure names the
        first split (:mod:`deskcheck.suites.split`).
        """
        __tracebackhide__ = True  # a RankError names the ranks; the user's line is the frame
        from deskcheck.suites.recorder import recording_every_task

        if not recording_every_task() or kwargs.get("record"):
            return values_or_raise(self.run_outcomes(fn, *args, per_rank=per_rank, **kwargs),
                                   fn, self.describe(), self.timeout_s)
        from deskcheck.suites.decision_log import note_split, recorded_task, recording

        with recording(self, fn) as folder:
            outcomes = self.run_outcomes(recorded_task, *args, per_rank=per_rank,
                                         _deskcheck_task=fn, _deskcheck_folder=str(folder),
                                         **kwargs)
            try:
                return values_or_raise(outcomes, fn, self.describe(), self.timeout_s)
            except RankError as exc:
                note_split(exc, folder, self.world)
                raise

    def prepare_recording(self, task: Callable[..., Any]) -> None:
        """Have the ranks build their instrumented copies before they first run ``task``
        recorded: the first use rewrites whole modules (seconds on a loaded machine), which
        inside the task counts against its collectives' timeout. Once a module and set of
        ranks; no collective runs, the ranks get :data:`PREPARE_S` (a rank that fails here
        instruments at first use, as before)."""
        from deskcheck.suites.decision_log import prepared_in_rank

        self.start()
        key = (self._ranks[0].pid, str(getattr(task, "__module__", "")))
        if key in self._prepared:
            return
        self._prepared.add(key)
        self._run_outcomes(prepared_in_rank, (task,), None, {},
                           wait_s=max(self.timeout_s, PREPARE_S))

    def run_outcomes(self, fn: Callable[..., Any], *args: Any,
                     per_rank: Sequence[Any] | None = None, **kwargs: Any) -> list[RankOutcome]:
        """Run ``fn`` on every rank and return each rank's :class:`RankOutcome`."""
        return self._run_outcomes(fn, args, per_rank, kwargs, wait_s=self.timeout_s)

    def _run_outcomes(self, fn: Callable[..., Any], args: tuple[Any, ...],
                      per_rank: Sequence[Any] | None, kwargs: dict[str, Any], *,
                      wait_s: float) -> list[RankOutcome]:
        self._check_owner()
        if per_rank is not None and len(per_rank) != self.world:
            raise RankTaskError(f"per_rank has {len(per_rank)} entries for world={self.world}",
                                location=_where(fn), fix="give exactly one entry per rank")
        payloads = [_payload(fn, ((per_rank[r],) if per_rank is not None else ()) + args, kwargs)
                    for r in range(self.world)]
        self.start()
        self._task_id += 1
        path = list(sys.path)
        changed, self._sent_sys_path = (path if path != self._sent_sys_path else None), path
        try:
            for r, payload in zip(self._ranks, payloads, strict=True):
                r.conn.send(("run", self._task_id, payload, changed,
                             coverage_context()))
            outcomes = self._collect(self._task_id, wait_s)
        except BaseException:  # interrupted mid-task: the ranks' state is unknown
            self._stop_ranks()
            raise
        self.tasks_run += 1
        for o in outcomes:
            if o.output:
                sys.stdout.write("".join(f"[rank {o.rank}] {line}\n"
                                         for line in o.output.rstrip("\n").split("\n")))
        if not _in_step(outcomes):
            self._stop_ranks()
        return outcomes

    def _collect(self, task_id: int, wait_s: float) -> list[RankOutcome]:
        """Every rank's outcome for ``task_id``. At ``timeout + GRACE_S`` the deadline is
        extended once, by the scheduling delay measured now (a loaded machine runs ranks
        late) and, for a rank that said it is failing (:func:`failing_note`), by a whole
        timeout: a rank busy reporting its own timeout is never taken for a hung one."""
        sent = time.monotonic()
        deadline = sent + wait_s + GRACE_S
        extended = False
        results: dict[int, RankOutcome] = {}
        notes: dict[int, dict[str, Any]] = {}
        waiting = {r.conn: r for r in self._ranks}
        while waiting:
            remaining = deadline - time.monotonic()
            ready = wait(list(waiting), timeout=remaining) if remaining > 0 else []
            if not ready:
                if extended:
                    break
                extended = True
                lag = scheduling_delay(sent, deadline, [*results.values()], notes)
                reporting = any(r.rank in notes for r in waiting.values())
                deadline = time.monotonic() + extra_grace(lag, wait_s, reporting)
                continue
            for conn in ready:
                rank = waiting.pop(conn)
                try:
                    kind, got_id, outcome = pickle.loads(conn.recv_bytes())
                except (EOFError, OSError):
                    results[rank.rank] = RankOutcome(rank.rank, rank.pid, died=rank.wait_for_death())
                    continue
                if got_id != task_id:  # a stale answer cannot happen on a healthy pool
                    waiting[conn] = rank
                    continue
                if kind == "failing":  # the full report follows
                    notes[rank.rank] = outcome
                    waiting[conn] = rank
                    continue
                results[rank.rank] = outcome
        for rank, stack in dump_stacks(list(waiting.values()), self._workdir).items():
            results[rank.rank] = _unfinished(rank, stack, notes.get(rank.rank))
        return [results[r] for r in range(self.world)]


def scheduling_delay(sent: float, deadline: float, outcomes: Sequence[RankOutcome],
                     notes: dict[int, dict[str, Any]]) -> float:
    """How late this machine runs things now, in seconds: the most of how late this process
    woke up for ``deadline``, how late a fresh 1 ms sleep ends, and how long after ``sent``
    each rank that answered started the task (one clock: CLOCK_MONOTONIC)."""
    woke = time.monotonic() - deadline
    before = time.monotonic()
    time.sleep(0.001)
    slept = time.monotonic() - before - 0.001
    started = [o.extra["started"] - sent for o in outcomes if "started" in o.extra]
    started += [n["started"] - sent for n in notes.values() if "started" in n]
    return max(0.0, woke, slept, *started)


def extra_grace(lag: float, timeout_s: float, reporting: bool) -> float:
    """The second wait at the deadline: 4x the measured delay (capped at one more timeout),
    or a whole timeout (+ grace) when a waiting rank is known to be reporting a failure."""
    grace = min(4.0 * lag, timeout_s + GRACE_S)
    return max(grace, timeout_s + GRACE_S) if reporting else grace


def _unfinished(rank: RankProcess, stack: str, note: dict[str, Any] | None) -> RankOutcome:
    """A rank with no full report at the deadline. One that sent a failing note is judged by
    what it reported (its failure, its collective count), not by where it still runs."""
    if note is None:
        return RankOutcome(rank.rank, rank.pid, hung=True, stack=stack)
    failure = RankFailure(note["type"], f"{note['message']} (still reporting it at the "
                          "deadline)", "", collective=note["collective"])
    return RankOutcome(rank.rank, rank.pid, failure=failure, collectives=note["collectives"],
                       stack=stack, extra={"reporting": True})


def _where(fn: Callable[..., Any]) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)


def _payload(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    try:
        return pickle.dumps((fn, args, kwargs))
    except Exception as exc:
        raise RankTaskError(
            f"cannot send {getattr(fn, '__qualname__', fn)!r} and its arguments to the ranks: {exc}",
            location=_where(fn),
            fix="define the task as a module-level function and pass plain data "
                "(lambdas, closures and local functions do not pickle)") from exc


def _in_step(outcomes: list[RankOutcome]) -> bool:
    """True when every rank ended the task at the same collective, outside torch.distributed."""
    if any(o.hung or o.died for o in outcomes):
        return False
    if any(o.failure is not None and o.failure.collective for o in outcomes):
        return False
    return len({o.collectives for o in outcomes}) == 1


def close_all_pools(keep: Collection[object] = ()) -> None:
    """Close every pool this process owns except those in ``keep`` (inherited ones are only
    dropped)."""
    kept = {id(p) for p in keep}
    for pool in list(_live_pools):
        if id(pool) not in kept:
            pool.close()


def live_pools() -> list[RankPool]:
    """The RankPools of this process that hold ranks now."""
    return [p for p in list(_live_pools) if p.alive]


def _after_fork_in_child() -> None:
    for pool in list(_live_pools):
        pool._abandon()


os.register_at_fork(after_in_child=_after_fork_in_child)
