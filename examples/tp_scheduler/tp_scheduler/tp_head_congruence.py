"""Group-uniform head ORDER and COUNT for tensor-parallel batch formation.

Every TP rank must build the same prefill batch, yet two inputs of that decision are
rank-local: the prefix-match length a rank's own radix cache reports for each request (the
LPM sort key, so the ORDER diverges) and the number of requests a rank can seat (its slot
pool and admission limiter, so the COUNT diverges). This module turns those local numbers
into one group decision that rides the scheduler's packed MIN all_reduce.

The rules, and why each points the way it does:

* ORDER. Per-rid values cannot be reduced by queue position when the positions are what
  diverge: slot i is a different request on different ranks and a MIN over that is
  meaningless. Slots are therefore indexed by a CANONICAL rid order (sorted rid strings),
  which depends only on the rid SET. ``sorted()`` is deterministic across processes;
  ``hash()`` is not and must never touch this path.
* ABSENT. A rank that does not hold a rid (or whose slot carries a different rid because the
  sets differ) contributes ``ABSENT`` (-1); MIN keeps -1 if ANY rank lacks it, so the group
  drops that rid instead of admitting a request a peer cannot form: delay, never force.
* MATCH. The group match length is the MIN across ranks; every rank sorts by the GROUP
  number. The agreed length is <= every rank's own, so no rank is told to reuse a prefix it
  does not hold; worst case it recomputes a prefix it had cached.
* COUNT. The group count is the MIN of every rank's allocatable count, so nobody is asked to
  seat more than it can. A rank that cannot price votes ``UNPRICED``; a group that is wholly
  unpriced leaves the local limit untouched rather than collapsing to an empty batch.

Pure on purpose: inline behind a real all_reduce a test could only grep for a branch, and a
grep cannot tell a live branch from ``elif False:``.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

KILL_SWITCH_ENV = "TP_HEAD_CONGRUENCE"
"""Set to ``0`` to restore rank-local (diverging) batch formation exactly."""

HEAD_WIDTH = 8
"""Canonical head slots carried per pass; fixed so every rank's payload has one width."""

ABSENT = -1
"""A rid this rank does not hold at this canonical slot; MIN makes the group drop it."""

UNPRICED = 2**62
"""Count vote of a rank with nothing to price; MIN ignores it unless every rank is unpriced."""

SLOT_STRIDE = 3
"""Each head slot is a triple: (match length, rid identity, -rid identity)."""

RULE_GROUP = "group"
RULE_GROUP_UNDER_MISMATCH = "group:ballot-mismatch"
RULE_RANK_LOCAL_DISABLED = "rank-local:kill-switch"
RULE_RANK_LOCAL_WORLD_OF_ONE = "rank-local:world-of-one"
RULE_RANK_LOCAL_NO_DECISION = "rank-local:no-group-decision"


@dataclass(frozen=True)
class BatchDecision:
    """Which requests, in which order, how many, and which rule decided it.

    ``order`` is the complete queue order to apply (group head first, the rest behind in
    their previous relative order); ``rids`` is the prefix of it the candidate loop may
    seat; ``count == len(rids)`` is where the candidate loop stops.
    """

    rids: tuple[str, ...]
    order: tuple[str, ...]
    count: int
    rule: str


def enforcer_gate(world_size: int, env: Mapping[str, str] | None = None) -> bool:
    """True when the group decision must be applied.

    Off under the kill switch (``TP_HEAD_CONGRUENCE=0``) and for a TP world of one, which
    has nobody to agree with.
    """
    environ = os.environ if env is None else env
    if environ.get(KILL_SWITCH_ENV, "1").strip() == "0":
        return False
    return world_size >= 2


def rid_identity(rid: str) -> int:
    """Stable non-negative identity of a rid (CRC32: the same in every process)."""
    return zlib.crc32(rid.encode("utf-8"))


def canonical_head(rids: Iterable[str], width: int = HEAD_WIDTH) -> list[str]:
    """The rids that own head slots, in canonical (sorted) order, independent of queue order."""
    ordered = sorted(set(rids))
    return ordered[:width]


def head_vote_payload(
    canonical: Sequence[str], local_matches: Mapping[str, int], width: int = HEAD_WIDTH
) -> list[int]:
    """Per-slot triples ``(match, id, -id)`` for the packed MIN reduce.

    The identity pair lets the reader prove that every rank put the SAME rid in a slot
    (MIN of id == -MIN of -id == the local id); a slot whose ranks disagree is dropped.
    """
    if len(canonical) > width:
        raise ValueError(f"canonical head has {len(canonical)} rids, more than width {width}")
    payload: list[int] = []
    for rid in canonical:
        match = local_matches.get(rid, ABSENT)
        if match < 0:
            payload.extend((ABSENT, ABSENT, -ABSENT))
            continue
        ident = rid_identity(rid)
        payload.extend((match, ident, -ident))
    for _ in range(width - len(canonical)):
        payload.extend((ABSENT, ABSENT, -ABSENT))
    return payload


def group_head_matches(
    reduced_block: Sequence[int], canonical: Sequence[str], width: int = HEAD_WIDTH
) -> dict[str, int]:
    """Group match length per rid this rank can name; rids any rank lacks are dropped."""
    if len(reduced_block) != width * SLOT_STRIDE:
        raise ValueError(
            f"head block has {len(reduced_block)} values, expected {width * SLOT_STRIDE}"
        )
    group: dict[str, int] = {}
    for i, rid in enumerate(canonical):
        match, id_min, neg_id_min = reduced_block[i * SLOT_STRIDE : (i + 1) * SLOT_STRIDE]
        ident = rid_identity(rid)
        # Same rid on every rank <=> group min == group max == our identity.
        if match < 0 or id_min != ident or -neg_id_min != ident:
            continue
        group[rid] = match
    return group


def group_order(group_matches: Mapping[str, int]) -> list[str]:
    """Group head in admission order: longest GROUP match first, canonical rid breaks ties."""
    return sorted(group_matches, key=lambda rid: (-group_matches[rid], rid))


def count_vote(allocatable_reqs: int | None, free_req_slots: int | None) -> int:
    """This rank's count vote: how many requests it can seat now, or UNPRICED."""
    if allocatable_reqs is None or free_req_slots is None:
        return UNPRICED
    return max(0, min(allocatable_reqs, free_req_slots))


def group_count(reduced_vote: int, local_limit: int) -> int:
    """The count every rank stops at: the group MIN, never above this rank's own limit.

    An all-unpriced group leaves the local limit untouched (the pre-enforcer behaviour).
    """
    if reduced_vote >= UNPRICED:
        return local_limit
    return min(reduced_vote, local_limit)


def batch_decision(
    queue_rids: Sequence[str],
    local_limit: int,
    *,
    enabled: bool,
    world_size: int,
    group_matches: Mapping[str, int] | None,
    reduced_count: int | None,
    ballot_mismatch: bool = False,
) -> BatchDecision:
    """The whole decision from one place: two call sites deciding halves would drift apart.

    ``queue_rids`` is this rank's queue after the rank-local priority sort. Under the
    enforcer the head is the group head only; requests the group did not name keep their
    relative order behind it and wait for a later pass. A ballot mismatch does NOT fall back
    to rank-local: the mismatch case is exactly the diverged case this rule exists for.
    """
    if not enabled or group_matches is None or reduced_count is None:
        if world_size <= 1:
            rule = RULE_RANK_LOCAL_WORLD_OF_ONE
        elif not enabled:
            rule = RULE_RANK_LOCAL_DISABLED
        else:
            rule = RULE_RANK_LOCAL_NO_DECISION
        count = max(0, min(local_limit, len(queue_rids)))
        order = tuple(queue_rids)
        return BatchDecision(rids=order[:count], order=order, count=count, rule=rule)

    held = set(queue_rids)
    head = [rid for rid in group_order(group_matches) if rid in held]
    named = set(head)
    order = tuple(head + [rid for rid in queue_rids if rid not in named])
    count = max(0, min(group_count(reduced_count, local_limit), len(head)))
    rule = RULE_GROUP_UNDER_MISMATCH if ballot_mismatch else RULE_GROUP
    return BatchDecision(rids=order[:count], order=order, count=count, rule=rule)
