"""Is the process that left something behind still running? (Linux ``/proc``.)

A pid alone can be reused after its process died; the pid's start time (``token``) makes the
pair unique, so a marker left by a process killed with SIGKILL is told apart from a live one.
"""

from __future__ import annotations

import os
from pathlib import Path


def process_token(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot (``""`` when unknown)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]


def process_alive(pid: int, token: str) -> bool:
    """Whether ``pid`` runs and is the same process that had ``token`` (if one is given)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not token or process_token(pid) == token


def processes_inside(folder: Path) -> list[int]:
    """Pids of live processes whose working directory is ``folder`` or below it."""
    root = str(Path(folder).resolve())
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(int(entry))
    return found
