"""The scratch ``git worktree`` at the base commit, removed even on Ctrl-C or SIGTERM.

The worktree is detached, lives in a fresh temporary folder, has its own index (git keeps it
under ``.git/worktrees/<name>``), and is removed with ``git worktree remove --force`` followed
by ``git worktree prune``. The user's working tree, index and HEAD are never touched.

A gate killed with SIGKILL cannot clean up: its scratch folder carries an owner marker (pid
and start time, :mod:`deskcheck.scratch`), and the next gate in any repository removes what a
dead owner left, never a folder a live process still runs in.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from deskcheck.errors import GitError
from deskcheck.gate.git import GitRepo
from deskcheck.interrupts import TERMINATING_SIGNALS, Interrupted, handlers
from deskcheck.liveness import processes_inside
from deskcheck.scratch import make_scratch, owner_dead, stale

SCRATCH_PREFIX = "deskcheck-gate-"


class GateInterrupted(Interrupted):
    """Raised in the main thread when SIGTERM/SIGHUP arrives, so ``finally`` blocks run."""


def _raise_interrupt(signum: int, _frame: FrameType | None) -> None:
    raise GateInterrupted(signum)


def terminating_signals_raise() -> contextlib.AbstractContextManager[None]:
    """Turn SIGTERM/SIGHUP into an exception (main thread only) for the duration."""
    return handlers(TERMINATING_SIGNALS, _raise_interrupt)


def _signals_ignored() -> contextlib.AbstractContextManager[None]:
    """Cleanup must not itself be interrupted by a second Ctrl-C."""
    return handlers((signal.SIGINT, *TERMINATING_SIGNALS), signal.SIG_IGN)


@contextlib.contextmanager
def scratch_folder(prefix: str = SCRATCH_PREFIX) -> Iterator[Path]:
    """A temporary folder for one gate run (plan files, results, the worktree), marked with
    this process as its owner."""
    folder = make_scratch(prefix)
    try:
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


def reap_stale_scratch(repo: GitRepo, prefix: str = SCRATCH_PREFIX) -> list[Path]:
    """Remove what gates killed with SIGKILL left: their scratch worktrees registered in
    ``repo`` and their scratch folders. Only folders marked by a dead owner, in which no live
    process runs, are touched."""
    removed: list[Path] = []
    dead = set(stale(prefix))
    listed = repo.run(["worktree", "list", "--porcelain"], check=False).stdout
    for line in listed.splitlines():
        path = Path(line.removeprefix("worktree ")) if line.startswith("worktree ") else None
        if path is None or not path.parent.name.startswith(prefix):
            continue
        if path.parent in dead or (owner_dead(path.parent) and not processes_inside(path.parent)):
            repo.run(["worktree", "remove", "--force", "--force", str(path)], check=False)
            dead.add(path.parent)
    for folder in sorted(dead):
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    if removed:
        repo.run(["worktree", "prune"], check=False)
    return removed
