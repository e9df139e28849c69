"""Prefetch ballot: a group vote on the queue head, and a detector for parted queue heads.

Each rank votes whether the host->device prefetch for its queue head is done; the vote rides
the scheduler's packed MIN all_reduce, so the group verdict is "done on every rank". Beside
the vote travels a CRC digest of the rank's waiting-queue head as the pair ``(x, -x)``: a MIN
over ``x`` is the group's smallest digest and ``-MIN(-x)`` its largest, so one MIN reduce
yields both and ``min != max`` says the TP replicas' queue heads have parted. The verdict
stands on a mismatch too: it is still the MIN of every rank's vote, agreed by the reduce, and
it gates whether the pass forms a batch, i.e. whether this rank enters the forward's
collectives. A rank-local fallback there let the ranks whose own head had landed run a
forward alone while the others held, and hang (test_forward_congruence.py; found by
``deskcheck uniformity``). A mismatch is reported (the streak below), never acted on per rank.

The ballot is TAIL-indexed: its reader finds it at ``len(payload) - BALLOT_WIDTH`` so that
blocks inserted at the head of the payload never move it. The price is that NOTHING may be
appended after the digest pair; a slot placed there silently shifts what every field reads.

``advance_mismatch_streak`` turns the per-pass mismatch bit into reports. A latched logger
that speaks once makes "healed after N passes" and "never healed" the same silence; a
per-pass warning on a hot loop becomes thousands of lines a second. So: report streaks
1, 2, 4, 8, ... up to a cap, then every cap-many passes; report the RECOVERY edge with the
length of the divergence that ended; keep a total that never resets. Pure, so a test can
drive the machine directly (a disabled recovery edge once survived a whole source-grep suite).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

BALLOT_HEAD_DEPTH = 4
"""How many queue-head rids the digest covers."""

PREFETCH_BALLOT_SLOTS = 1
"""Verdict slots ahead of the digest pair: 1 = "the head's prefetch is done on this rank"."""

BALLOT_WIDTH = PREFETCH_BALLOT_SLOTS + 2
"""Verdict slots plus the ``(x, -x)`` digest pair; the ballot is the last BALLOT_WIDTH values."""

DEFAULT_STREAK_CAP = 64

REPORT_ONSET = "onset"
REPORT_PERSISTS = "persists"
REPORT_RECOVERED = "recovered"


def queue_head_digest(rids: Sequence[str], depth: int = BALLOT_HEAD_DEPTH) -> int:
    """CRC32 of the first ``depth`` rids in this rank's queue order (0 for an empty queue)."""
    head = rids[:depth]
    if not head:
        return 0
    return zlib.crc32("\x1f".join(head).encode("utf-8"))


@dataclass(frozen=True)
class BallotReading:
    """The reduced ballot as every rank of the reduce sees it."""

    verdicts: tuple[int, ...]
    digest_min: int
    digest_max: int

    @property
    def mismatch(self) -> bool:
        """The queue heads parted: the group's smallest and largest digests differ."""
        return self.digest_min != self.digest_max


def read_ballot(reduced: Sequence[int]) -> BallotReading:
    """Read the tail-indexed ballot out of a reduced payload."""
    if len(reduced) < BALLOT_WIDTH:
        raise ValueError(f"payload of {len(reduced)} values cannot hold a {BALLOT_WIDTH}-wide ballot")
    base = len(reduced) - BALLOT_WIDTH
    verdicts = tuple(int(v) for v in reduced[base : base + PREFETCH_BALLOT_SLOTS])
    pair_at = base + PREFETCH_BALLOT_SLOTS
    return BallotReading(
        verdicts=verdicts,
        digest_min=int(reduced[pair_at]),
        digest_max=-int(reduced[pair_at + 1]),
    )


def prefetch_done_under_ballot(reading: BallotReading | None, local_done: bool) -> bool:
    """The group verdict whenever a ballot was reduced (parted heads included); this rank's
    own only without one (a group of one, which has nobody to disagree with)."""
    if reading is None:
        return local_done
    return bool(reading.verdicts[0])


@dataclass(frozen=True)
class MismatchStreak:
    """Detector state: the current divergence length and the never-resetting total."""

    streak: int = 0
    total: int = 0


@dataclass(frozen=True)
class StreakReport:
    """One line worth emitting: onset/persistence with ``streak``, or the recovery edge."""

    kind: str
    streak: int
    total: int
    ended_length: int = 0


def _due(streak: int, cap: int) -> bool:
    """Report streaks 1, 2, 4, ... while below the cap, then every cap-many passes."""
    if streak < cap:
        return streak & (streak - 1) == 0
    return streak % cap == 0


def advance_mismatch_streak(
    state: MismatchStreak, mismatch: bool, cap: int = DEFAULT_STREAK_CAP
) -> tuple[MismatchStreak, StreakReport | None]:
    """Advance the detector by one pass; return the new state and the report due, if any."""
    if cap < 1:
        raise ValueError(f"streak cap must be >= 1, got {cap}")
    if mismatch:
        streak = state.streak + 1
        new = MismatchStreak(streak=streak, total=state.total + 1)
        if _due(streak, cap):
            kind = REPORT_ONSET if streak == 1 else REPORT_PERSISTS
            return new, StreakReport(kind=kind, streak=streak, total=new.total)
        return new, None
    if state.streak > 0:
        # The recovery edge: report how long the divergence that just ended lasted.
        new = MismatchStreak(streak=0, total=state.total)
        return new, StreakReport(
            kind=REPORT_RECOVERED, streak=0, total=new.total, ended_length=state.streak
        )
    return state, None
