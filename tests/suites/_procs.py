"""Count this process's children straight from /proc (no psutil needed)."""

from __future__ import annotations

import os
import time


def _ppid_and_state(pid: int) -> tuple[int, str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0]


def child_pids(parent: int | None = None) -> set[int]:
    """Live or zombie children of ``parent`` (default: this process)."""
    parent = os.getpid() if parent is None else parent
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _ppid_and_state(int(entry))
            if info and info[0] == parent:
                found.add(int(entry))
    return found


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    info = _ppid_and_state(pid)
    return info is not None and info[1] != "Z"


def wait_gone(pids: set[int], seconds: float = 60.0) -> set[int]:
    """Pids still running after up to ``seconds`` (returns as soon as none is: a generous
    bound costs nothing when all goes well, and holds on a loaded machine)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = {p for p in pids if running(p)}
        if not alive:
            return set()
        time.sleep(0.05)
    return {p for p in pids if running(p)}
