"""The rank process: join the group once, then run tasks from the parent until told to stop.

Runs in a process forked from the warm parent (fork mode) or started fresh with
``python -m deskcheck.suites._rank_main CONFIG FD`` (spawn mode). Either way the rank dies
with its parent (``PR_SET_PDEATHSIG`` plus a parent-pid watch), sits in the pool's process
group so the parent can kill it with every child it started, writes its output to a log the
parent reads per task, and dumps its stacks on ``SIGUSR2`` so a hang can be named.
"""

from __future__ import annotations

import ctypes
import datetime
import faulthandler
import io
import json
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from deskcheck.rank_hooks import follow_coverage_context, note_rank_group
from deskcheck.suites._stacks import collective_in_traceback
from deskcheck.suites.backends import TORCH_BACKEND, rank_device
from deskcheck.suites.desk_env import apply_desk_env
from deskcheck.suites.outcomes import RankFailure, RankOutcome

STACK_SIGNAL = signal.SIGUSR2  # SIGUSR1 belongs to the mutant sweep's own stack dumps
_PR_SET_PDEATHSIG = 1
_OUTPUT_LIMIT = 20_000


@dataclass(frozen=True)
class RankConfig:
    """Everything a rank needs to join its group; JSON-able for spawn mode."""

    rank: int
    world: int
    backend: str
    store_path: str
    timeout_s: float
    workdir: str
    parent_pid: int
    pgid: int  # 0: lead a new process group (rank 0); else join this one
    death_signal: bool
    join_timeout_s: float = 0.0  # how long joining may take; 0: the collectives' timeout
    desk_env: dict[str, str | None] = field(default_factory=dict)  # DESK: set (None: remove)

    @property
    def stack_path(self) -> str:
        return os.path.join(self.workdir, f"rank{self.rank}.stack")

    @property
    def log_path(self) -> str:
        return os.path.join(self.workdir, f"rank{self.rank}.log")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RankConfig:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class RankContext:
    """Who this rank is; :func:`rank_context` returns it inside a task."""

    rank: int
    world: int
    backend: str
    device: str  # "cpu" for gloo, "cuda:<rank>" for nccl, "cuda:<rank mod GPUs>" for gloo-cuda


_context: RankContext | None = None
_inherited_groups: list[Any] = []


def rank_context() -> RankContext:
    """The running rank's identity; only valid inside a task run by a rank pool."""
    if _context is None:
        raise RuntimeError("rank_context() is only available inside a task run on a rank")
    return _context


def _die_with_parent(config: RankConfig) -> None:
    if config.death_signal and sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != config.parent_pid:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != config.parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="deskcheck-parent-watch", daemon=True).start()


def _join_process_group(config: RankConfig) -> None:
    try:
        os.setpgid(0, config.pgid)
    except OSError:  # the parent already placed us, or the leader is gone (we die anyway)
        pass


class _OutputLog:
    """fd 1 and 2 go to a per-rank file; each task gets back what it wrote."""

    def __init__(self, path: str):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(open(2, "wb", closefd=False), line_buffering=True)
        self._reader = open(path, "rb")  # noqa: SIM115 - lives as long as the rank
        self._reader.seek(0, os.SEEK_END)

    def take(self) -> str:
        sys.stdout.flush()
        sys.stderr.flush()
        data = self._reader.read()
        text = data.decode("utf-8", "replace")
        return text if len(text) <= _OUTPUT_LIMIT else "...\n" + text[-_OUTPUT_LIMIT:]


def _init_group(config: RankConfig) -> RankContext:
    import torch
    import torch.distributed as dist

    options: dict[str, Any] = {}
    device = "cpu"
    if config.backend == "gloo":  # the DESK env (deskcheck.suites.desk_env): hermetic by rule
        apply_desk_env(os.environ, config.desk_env)
    if TORCH_BACKEND[config.backend] == "gloo":
        if "GLOO_SOCKET_IFNAME" not in os.environ and os.path.exists("/sys/class/net/lo"):
            os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # the pool is single-host by construction
    if config.backend == "gloo-cuda":  # ranks share the GPUs round-robin; gloo moves the data
        device = rank_device(config.backend, config.rank, torch.cuda.device_count())
        torch.cuda.set_device(torch.device(device))
    elif config.backend == "nccl":
        # A timed-out NCCL collective must raise in the rank (like gloo) rather than have the
        # watchdog abort the process: then the parent can tell who waited from who skipped.
        os.environ.setdefault("TORCH_NCCL_BLOCKING_WAIT", "1")
        torch.cuda.set_device(config.rank)
        device = f"cuda:{config.rank}"
        options["device_id"] = torch.device("cuda", config.rank)
    if dist.is_initialized():  # forked from a process that joined a group (a torchrun worker)
        _inherited_groups.append(dist.group.WORLD)  # never destroyed: its sockets are the parent's
        dist.distributed_c10d._world.default_pg = None
    # Joining waits for the slowest rank to start (a spawned rank imports torch first), which
    # on a loaded machine can take longer than a collective may: the group is created with
    # the join budget, then its collectives get the process-group timeout.
    set_timeout = getattr(dist.distributed_c10d, "_set_pg_timeout", None)  # torch >= 2.3
    join_s = max(config.join_timeout_s, config.timeout_s) if set_timeout else config.timeout_s
    store = dist.FileStore(config.store_path, config.world)
    dist.init_process_group(
        backend=TORCH_BACKEND[config.backend], store=store, rank=config.rank, world_size=config.world,
        timeout=datetime.timedelta(seconds=join_s), **options,
    )
    if set_timeout and join_s != config.timeout_s:
        set_timeout(datetime.timedelta(seconds=config.timeout_s))
    note_rank_group(config.timeout_s)  # a sweep lets the hang's diagnosis finish
    return RankContext(config.rank, config.world, config.backend, device)


def collective_count() -> int | None:
    """The default group's collective sequence number (None before init)."""
    try:
        import torch.distributed as dist

        if not dist.is_initialized():
            return None
        return int(dist.group.WORLD._get_sequence_number_for_group())
    except Exception:
        return None


def _failure(exc: BaseException, skip_frames: int = 0) -> RankFailure:
    tb = exc.__traceback__
    for _ in range(skip_frames):  # drop the rank loop's own frame
        tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb
    exc = exc.with_traceback(tb)
    collective, call_site = collective_in_traceback(tb)
    return RankFailure(
        type_name=type(exc).__qualname__,
        message=str(exc),
        traceback="".join(traceback.format_exception(exc)),
        is_assertion=isinstance(exc, AssertionError),
        collective=collective,
        call_site=call_site,
    )


def failing_note(task_id: int, exc: BaseException, started: float) -> bytes:
    """The pickled ``("failing", task_id, note)`` a rank sends the moment its task raises,
    before the (slow, under load) formatting of the traceback: the parent then knows this
    rank is alive and reporting, how many collectives it entered and whether it failed
    inside one, even if the full report comes after the parent's deadline."""
    collective, _site = collective_in_traceback(exc.__traceback__)
    return pickle.dumps(("failing", task_id, {
        "type": type(exc).__qualname__, "message": str(exc)[:500], "collective": collective,
        "collectives": collective_count(), "started": started, "noted": time.monotonic()}))


def _run(task_id: int, payload: bytes, rank: int, output: _OutputLog,
         tell: Callable[[bytes], None] | None = None) -> bytes:
    """Run one task; the pickled ``("done", task_id, RankOutcome)`` message. ``tell`` sends
    the early :func:`failing_note` when the task raises."""
    started = time.perf_counter()
    started_at = time.monotonic()  # CLOCK_MONOTONIC: one clock for every process on the host
    value: Any = None
    failure: RankFailure | None = None
    try:
        fn, args, kwargs = pickle.loads(payload)
        value = fn(*args, **kwargs)
    except BaseException as exc:  # noqa: B036 - a rank reports everything, even SystemExit
        if tell is not None:
            try:
                tell(failing_note(task_id, exc, started_at))
            except Exception:  # noqa: BLE001 - the full report below still goes
                pass
        failure = _failure(exc, skip_frames=1)
    outcome = RankOutcome(rank=rank, pid=os.getpid(), value=value, failure=failure,
                          collectives=collective_count(), output=output.take(),
                          seconds=time.perf_counter() - started,
                          extra={"started": started_at})
    try:
        return pickle.dumps(("done", task_id, outcome))
    except Exception as exc:  # the value does not pickle: say so instead of losing the rank
        bad = RankFailure(type(exc).__qualname__, f"the task's return value cannot be sent back "
                          f"to the parent: {exc}", traceback.format_exc())
        return pickle.dumps(("done", task_id, RankOutcome(
            rank=rank, pid=os.getpid(), failure=bad, collectives=outcome.collectives,
            output=outcome.output, seconds=outcome.seconds)))


def serve(conn: Connection, config: RankConfig) -> None:
    """The rank's whole life: guard, join, announce, run tasks, exit on stop or parent EOF."""
    global _context
    _die_with_parent(config)
    _join_process_group(config)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent owns interruption
    output = _OutputLog(config.log_path)
    stack_file = open(config.stack_path, "w")  # noqa: SIM115 - faulthandler needs it open
    faulthandler.register(STACK_SIGNAL, file=stack_file, all_threads=True)
    try:
        _context = _init_group(config)
    except BaseException as exc:  # noqa: B036
        conn.send(("init_error", config.rank, _failure(exc), output.take()))
        return
    conn.send(("ready", config.rank, os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        _, task_id, payload, parent_sys_path, coverage_context = message
        if parent_sys_path is not None:  # test dirs pytest added after the fork
            forget_modules_left_off(sys.path, parent_sys_path)
            sys.path[:] = parent_sys_path
        follow_coverage_context(coverage_context)
        conn.send_bytes(_run(task_id, payload, config.rank, output, conn.send_bytes))


def forget_modules_left_off(old_path: list[str], new_path: list[str]) -> None:
    """Drop the modules imported from a folder the parent took off sys.path (an earlier
    in-process pytest session's test folder): a task naming a module of the same name in
    the new folder imports that one, not the stale copy."""
    kept = {os.path.abspath(p) for p in new_path if p}
    removed = [os.path.abspath(p) for p in old_path if p and os.path.abspath(p) not in kept]
    if not removed:
        return
    roots = tuple(os.path.join(p, "") for p in removed)
    inside = tuple(os.path.join(p, "") for p in kept)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not file.startswith(roots):
            continue
        left = max((len(r) for r in roots if file.startswith(r)), default=0)
        if any(file.startswith(k) and len(k) > left for k in inside):
            continue  # under a folder still on the path (a venv inside the checkout)
        del sys.modules[name]


def _spawn_main(argv: list[str]) -> None:
    for entry in reversed(json.loads(os.environ.get("DESKCHECK_RANK_SYS_PATH", "[]"))):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    config = RankConfig.from_json(argv[1])
    serve(Connection(int(argv[2])), config)


if __name__ == "__main__":
    # Run through the importable module, not ``__main__``, so rank_context() sees the context.
    from deskcheck.suites import _rank_main as _module

    code = 0
    try:
        _module._spawn_main(sys.argv)
    except BaseException:  # noqa: B036
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)
