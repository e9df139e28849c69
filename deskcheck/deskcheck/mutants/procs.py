"""Process bookkeeping for the sweep: who belongs to a mutant, their stacks, and killing them.

Linux only (``/proc`` and ``prctl``). The sweep process becomes a child subreaper, so a
rank orphaned by its dying parent is re-parented to the sweep and can still be found; each
mutant runs in its own session, and processes that start their own session (torchrun's
workers) are found by the run token in their environment.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# The real ``os.fork``, taken when deskcheck is imported: a test configuration that replaces
# ``os.fork`` (``gevent.monkey.patch_all()`` in a conftest) must not change how the sweep
# forks its children.
real_fork = os.fork

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
RUN_TOKEN_ENV = "DESKCHECK_RUN"


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    _SUBREAPER["on"] = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    return _SUBREAPER["on"]


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to kill this process when its parent dies (no orphans after kill -9)."""
    return _prctl(PR_SET_PDEATHSIG, int(sig))


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str


def _stat(pid: int) -> ProcInfo | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
    except OSError:
        return None
    rest = stat[stat.rfind(")") + 2:].split()
    return ProcInfo(pid, int(rest[1]), int(rest[2]), int(rest[3]), rest[0])


def process_table() -> dict[int, ProcInfo]:
    table: dict[int, ProcInfo] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (info := _stat(int(entry))) is not None:
            table[info.pid] = info
    return table


def _children(pid: int) -> list[int]:
    """Direct children from ``/proc/PID/task/*/children`` (no scan of all processes)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                found.extend(int(p) for p in handle.read().split())
        except OSError:
            continue
    return found


def children_of(pid: int) -> list[int]:
    """Direct children of ``pid`` (re-parented orphans included), zombies too."""
    if os.path.exists(f"/proc/{pid}/task"):
        return _children(pid)
    return [i.pid for i in process_table().values() if i.ppid == pid]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``."""
    found: list[int] = []
    stack = children_of(pid)
    while stack:
        child = stack.pop()
        if child not in found:
            found.append(child)
            stack.extend(children_of(child))
    return found


def is_live(pid: int) -> bool:
    """``pid`` exists and is not a zombie."""
    info = _stat(pid)
    return info is not None and info.state != "Z"


def _has_token(pid: int, token: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return False
    return f"{RUN_TOKEN_ENV}={token}".encode() in environ.split(b"\0")


_SUBREAPER = {"on": False}


def members(root: int, token: str, skip: frozenset[int] = frozenset()) -> list[int]:
    """Live processes of one mutant run: ``root``'s descendants, plus orphans re-parented to
    this (subreaper) process that are in ``root``'s session or carry the run ``token`` in
    their environment (torchrun starts workers in new sessions). ``skip``: other runs' roots.
    Zombies are excluded."""
    if not _SUBREAPER["on"] or not os.path.exists(f"/proc/{os.getpid()}/task"):
        return _members_by_scan(root, token)
    found: set[int] = set()

    def walk(start: int) -> None:
        stack = [start]
        while stack:
            pid = stack.pop()
            if pid not in found:
                found.add(pid)
                stack.extend(_children(pid))

    if os.path.exists(f"/proc/{root}"):
        walk(root)
    for pid in _children(os.getpid()):
        if pid in found or pid in skip:
            continue
        info = _stat(pid)
        if info is not None and (info.sid == root or _has_token(pid, token)):
            walk(pid)
    live = []
    for pid in sorted(found):
        info = _stat(pid)
        if info is not None and info.state != "Z":
            live.append(pid)
    return live


def _members_by_scan(root: int, token: str) -> list[int]:
    table = process_table()
    children: dict[int, list[int]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info.pid)
    found: set[int] = set()
    stack = [root] if root in table else []
    stack += [i.pid for i in table.values() if i.pid != os.getpid() and i.pid != root
              and (i.sid == root or _has_token(i.pid, token))]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, []))
    return sorted(pid for pid in found if table[pid].state != "Z")


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def kill_run(root: int, token: str, reap: Callable[[], object], rounds: int = 50,
             skip: frozenset[int] = frozenset()) -> list[int]:
    """SIGKILL every process of a run until none is left; return the pids killed.

    Each round stops every process (SIGSTOP) before it kills any: a rank that outlived its
    peer by a moment would see the peer's socket close and record a crash, and the sweep
    would judge our own cleanup as the mutant's failure. ``reap`` collects exited children
    (the caller keeps their statuses)."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = members(root, token, skip)
        if not pids:
            break
        signal_all(pids, signal.SIGSTOP)
        signal_all(pids, signal.SIGKILL)
        killed.extend(p for p in pids if p not in killed)
        time.sleep(0.01)
        reap()
    reap()
    return killed


def reap_children() -> list[tuple[int, int]]:
    """Reap every exited child of this process (re-parented orphans included)."""
    reaped = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        reaped.append((pid, status))
    return reaped


def describe(pid: int) -> str:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace").strip()
    except OSError:
        cmdline = ""
    return cmdline[:160]
