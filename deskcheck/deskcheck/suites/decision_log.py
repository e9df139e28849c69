"""The folder a rank pool's ranks record into, and what a failure does with it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskcheck.scratch import make_scratch, reap_stale
from deskcheck.suites.audit_check import cross_check
from deskcheck.suites.recorder import recording_enabled
from deskcheck.suites.records import forget_starts, read_records, start_after
from deskcheck.suites.split import Split, split_in

# Under the rank pools' prefix: the sweep reaps what a killed run left (deskcheck-w...).
FOLDER_PREFIX = "deskcheck-w-decisions-"
_REAPED: list[bool] = []
REFILL_AT = 4 << 20  # bytes: a rank file past this is emptied by clear()


@contextlib.contextmanager
def recording(pool: Any, task: Any = None) -> Iterator[Path | None]:
    """The pool's private folder its ranks record into, what they recorded forgotten after
    (:func:`clear`; the pool removes the folder when it closes); None when recording is off (``DESKCHECK_RECORD=off``) or the ranks are
    not this machine's processes. With ``task`` (the function the ranks will run recorded),
    the ranks build their instrumented copies first, once a module (:func:`prepared_in_rank`),
    outside the task's collectives' timeout."""
    from deskcheck.suites.pool import RankPool

    if not recording_enabled() or not isinstance(pool, RankPool):
        yield None
        return
    if task is not None:
        pool.prepare_recording(task)
    folder = pool.decision_folder
    if folder is None or not folder.is_dir():
        if not _REAPED:  # once a process: what killed runs left
            reap_stale(FOLDER_PREFIX)
            _REAPED.append(True)
        folder = pool.decision_folder = make_scratch(FOLDER_PREFIX)
        forget_starts(folder)
    try:
        yield folder
    finally:
        clear(folder)


def clear(folder: Path | None) -> None:
    """Forget what the ranks recorded so far (the next task starts a fresh record): what
    each rank's file holds now is no longer read (:func:`records.start_after`); the file is
    kept, and its next task's rank appends to it. A file made anew costs a rank ~0.6 ms of
    CPU on ext4 (as much as a recorded pass), one emptied in place ~0.1 ms and a wait on the
    disk, one appended to ~0.02 ms. A file past :data:`REFILL_AT` is emptied (its next
    record writes its sites again, see :func:`deskcheck.suites.recorder._written`)."""
    if folder is not None:
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return
        for entry in entries:
            if not (entry.name.startswith("rank") and entry.name.endswith(".jsonl")):
                continue
            path = os.path.join(folder, entry.name)
            try:
                size = entry.stat().st_size
                if size > REFILL_AT:
                    os.truncate(path, 0)
                    size = 0
            except FileNotFoundError:
                continue
            start_after(path, size)


def note_split(exc: BaseException, folder: Path | None, world: int,
               outcome: Sequence[Any] | None = None) -> Split | None:
    """Add the first split to ``exc``'s notes (and as ``exc.first_split``); None if none.
    ``outcome``: each rank's diverged decision (a split by value must feed it). A decision the
    uniformity audit calls UNIFORM that the ranks split on is added as the audit's miss
    (``exc.audit_misses``)."""
    if folder is None:
        return None
    split = split_in(folder, world, outcome)
    if split is not None:
        exc.add_note(split.render())
        exc.first_split = split  # type: ignore[attr-defined]
        misses = cross_check(read_records(folder, world))
        for miss in misses:
            exc.add_note(miss.render())
        exc.audit_misses = misses  # type: ignore[attr-defined]
    return split


def prepared_in_rank(task: Any = None) -> int:
    """Run in each rank before its first recorded task of ``task``'s module (unpickling
    ``task`` imported it): build the instrumented copies a recording will swap in."""
    from deskcheck.suites.recorder import prepare_recording

    return prepare_recording()


def recorded_task(*args: Any, _deskcheck_task: Any, _deskcheck_folder: str, **kwargs: Any) -> Any:
    """A rank-pool task run under the recorder (``DESKCHECK_RECORD=all``)."""
    from deskcheck.suites._rank_main import rank_context
    from deskcheck.suites.recorder import record_decisions

    with record_decisions(_deskcheck_folder, rank_context().rank):
        return _deskcheck_task(*args, **kwargs)


@dataclass
class DecisionLog:
    """A folder the ranks of your own multi-rank test record into, and its first split.

    Pass ``log.folder`` (a string, it pickles) to each rank (``mp.spawn``, your own groups);
    in the rank: ``with record_decisions(folder, rank): step()``. After the ranks end,
    ``log.split(world)`` is the first split (or None); the ``decision_log`` fixture adds it
    to a failing test's report.
    """

    folder: str
    world: int | None = None

    def split(self, world: int | None = None) -> Split | None:
        size = world or self.world or len(list(Path(self.folder).glob("rank*.jsonl")))
        return split_in(self.folder, size) if size else None
