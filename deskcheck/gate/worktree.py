"""The scratch ``git worktree`` at the base commit, removed even on Ctrl-C or SIGTERM.

The worktree is detached, lives in a fresh temporary folder, has its own index (git keeps it
under ``.git/worktrees/<name>``), and is removed with ``git worktree remove --force`` followed
by ``git worktree prune``. The user's working tree, index and HEAD are never touched.

A gate killed with SIGKILL cannot clean up: its scratch folder carries an owner marker (pid
and start time), and the next gate in any repository removes what a dead owner left.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from deskcheck.errors import GitError
from deskcheck.gate.git import GitRepo
from deskcheck.liveness import process_alive, process_token

SCRATCH_PREFIX = "deskcheck-gate-"
OWNER_FILE = "owner.json"

_TERMINATING_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s
)


class GateInterrupted(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM/SIGHUP arrives, so ``finally`` blocks run."""


def _raise_interrupt(signum: int, _frame: FrameType | None) -> None:
    raise GateInterrupted(f"signal {signum}")


@contextlib.contextmanager
def _handlers(signals: tuple[int, ...], handler: Any) -> Iterator[None]:
    """``handler`` for ``signals`` for the duration (main thread only: elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, previous_handler in previous.items():
            signal.signal(s, previous_handler)


def terminating_signals_raise() -> contextlib.AbstractContextManager[None]:
    """Turn SIGTERM/SIGHUP into an exception (main thread only) for the duration."""
    return _handlers(_TERMINATING_SIGNALS, _raise_interrupt)


def _signals_ignored() -> contextlib.AbstractContextManager[None]:
    """Cleanup must not itself be interrupted by a second Ctrl-C."""
    return _handlers((signal.SIGINT, *_TERMINATING_SIGNALS), signal.SIG_IGN)


@contextlib.contextmanager
def scratch_folder(prefix: str = SCRATCH_PREFIX) -> Iterator[Path]:
    """A temporary folder for one gate run (plan files, results, the worktree), marked with
    this process as its owner."""
    folder = Path(tempfile.mkdtemp(prefix=prefix)).resolve()
    try:
        (folder / OWNER_FILE).write_text(json.dumps(
            {"pid": os.getpid(), "token": process_token(os.getpid())}), encoding="utf-8")
        yield folder
    finally:
        with _signals_ignored():
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def gate_scratch(repo: GitRepo, notes: list[str]) -> Iterator[Path]:
    """The scratch folder of one gate run, with SIGTERM/SIGHUP raising while it lives; what
    gates killed with SIGKILL left is removed first, and said in ``notes``."""
    notes.extend(f"removed {folder}, left by a gate that was killed (SIGKILL)"
                 for folder in reap_stale_scratch(repo))
    with terminating_signals_raise(), scratch_folder() as scratch:
        yield scratch


@contextlib.contextmanager
def scratch_worktree(repo: GitRepo, commit: str, parent: Path) -> Iterator[Path]:
    """A detached worktree of ``commit`` at ``parent/base``; always removed and pruned."""
    path = parent / "base"
    try:
        added = repo.run(["worktree", "add", "--detach", "--quiet", str(path), commit],
                         check=False)
        if added.returncode != 0:
            raise GitError(f"could not create a scratch worktree at {commit[:12]}: "
                           f"{added.stderr.strip()}", location=str(repo.root),
                           fix="run `git worktree prune` and check free disk space")
        yield path
    finally:
        with _signals_ignored():
            repo.run(["worktree", "remove", "--force", "--force", str(path)], check=False)
            shutil.rmtree(path, ignore_errors=True)
            repo.run(["worktree", "prune"], check=False)


def _owner_dead(folder: Path) -> bool:
    """True only for a folder with our owner marker whose process is gone."""
    try:
        owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        pid, token = int(owner["pid"]), str(owner.get("token", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return False  # not ours, or being written right now: never touched
    return not process_alive(pid, token)


def reap_stale_scratch(repo: GitRepo, prefix: str = SCRATCH_PREFIX) -> list[Path]:
    """Remove what gates killed with SIGKILL left: their scratch worktrees registered in
    ``repo`` and their scratch folders. Only folders marked by a dead owner are touched."""
    removed: list[Path] = []
    listed = repo.run(["worktree", "list", "--porcelain"], check=False).stdout
    for line in listed.splitlines():
        path = Path(line.removeprefix("worktree ")) if line.startswith("worktree ") else None
        if path is not None and path.parent.name.startswith(prefix) and _owner_dead(path.parent):
            repo.run(["worktree", "remove", "--force", "--force", str(path)], check=False)
            shutil.rmtree(path.parent, ignore_errors=True)
            removed.append(path.parent)
    for folder in sorted(Path(tempfile.gettempdir()).glob(prefix + "*")):
        if folder not in removed and folder.is_dir() and _owner_dead(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        repo.run(["worktree", "prune"], check=False)
    return removed
