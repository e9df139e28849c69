"""Scratch folders that always belong to a process, and the reaping of what dead owners left.

Every temporary folder deskcheck makes (gate worktrees, sweep scratch, rank-pool work
folders) is created under one root — ``$DESKCHECK_SCRATCH_DIR`` if set, else the system temp
folder — and carries an owner marker (pid + start time, :mod:`deskcheck.liveness`). A process
killed with SIGKILL cannot clean up; the next run removes every folder of its kind whose owner
is gone and in which no live process still runs. Setting ``DESKCHECK_SCRATCH_DIR`` gives a run
(or a test) a private root that no other run reaps from.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deskcheck.liveness import process_alive, process_token, processes_inside

SCRATCH_ENV = "DESKCHECK_SCRATCH_DIR"
OWNER_FILE = "owner.json"


def scratch_root() -> Path:
    """Where scratch folders go: ``$DESKCHECK_SCRATCH_DIR``, else the system temp folder."""
    configured = os.environ.get(SCRATCH_ENV, "")
    if configured:
        root = Path(configured)
        root.mkdir(parents=True, exist_ok=True)
        return root
    return Path(tempfile.gettempdir())


def make_scratch(prefix: str, owner_pid: int | None = None) -> Path:
    """A fresh folder ``<root>/<prefix>XXXX`` marked as owned by ``owner_pid`` (default: this
    process). The marker is written whole (temp file + rename): a reaper never reads half."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch_root())).resolve()
    try:
        mark_owner(folder, owner_pid)
    except BaseException:  # a full disk: no unmarked folder is left behind
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def mark_owner(folder: Path, pid: int | None = None) -> None:
    """Hand ``folder`` to ``pid`` (default: this process), e.g. after a fork."""
    pid = os.getpid() if pid is None else pid
    marker = folder / f".{OWNER_FILE}.tmp.{pid}"  # the owner is known even if writing fails
    marker.write_text(json.dumps({"pid": pid, "token": process_token(pid)}), encoding="utf-8")
    marker.rename(folder / OWNER_FILE)


def owner_dead(folder: Path) -> bool:
    """True only for a folder with an owner marker whose process is gone. A marker that was
    never renamed into place (a full disk, a kill mid-write) names its pid in its file name
    (``.owner.json.tmp.PID``); an older unnamed one (``.owner.json.tmp``) that holds no
    owner can only have been left by a writer that died."""
    try:
        owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        pid, token = int(owner["pid"]), str(owner.get("token", ""))
    except FileNotFoundError:
        return _unfinished_marker_dead(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return False  # not ours: never touched
    return not process_alive(pid, token)


def _unfinished_marker_dead(folder: Path) -> bool:
    markers = list(folder.glob(f".{OWNER_FILE}.tmp*"))
    if not markers:
        return False  # not ours, or being made right now
    for marker in markers:
        suffix = marker.name.removeprefix(f".{OWNER_FILE}.tmp").lstrip(".")
        try:
            owner = json.loads(marker.read_text(encoding="utf-8"))
            pid, token = int(owner["pid"]), str(owner.get("token", ""))
        except (OSError, ValueError, KeyError, TypeError):
            if not suffix.isdigit():
                continue  # an old-style marker with nothing in it: its writer failed
            pid, token = int(suffix), ""
        if process_alive(pid, token):
            return False
    return True


def stale(prefix: str) -> list[Path]:
    """Folders ``<root>/<prefix>*`` whose owner is dead and in which no live process runs."""
    found = []
    for folder in sorted(scratch_root().glob(prefix + "*")):
        if folder.is_dir() and not folder.is_symlink() and owner_dead(folder) \
                and not processes_inside(folder):
            found.append(folder)
    return found


def reap_stale(prefix: str) -> list[Path]:
    """Remove what dead owners left under ``prefix``; the folders removed."""
    removed = []
    for folder in stale(prefix):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed


@contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """``with scratch_folder("deskcheck-x-") as folder``: what dead runs of this kind left is
    reaped, then a fresh owner-marked folder is made and removed at the end."""
    reap_stale(prefix)
    folder = make_scratch(prefix)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
