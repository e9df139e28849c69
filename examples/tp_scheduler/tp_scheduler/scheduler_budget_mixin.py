"""The per-pass uniform reduce: ONE packed MIN all_reduce over the TP CPU group.

Every value the TP ranks must agree on this pass rides a single int64 tensor, reduced once
with ``ReduceOp.MIN``. One collective, entered unconditionally by every rank of the group in
the same pass, so it can never itself become the divergent collective.

PAYLOAD LAYOUT (written out so nobody has to reconstruct it):

    index                         value (local)                        read back as
    ----------------------------  -----------------------------------  -------------------------
    EVICT_FLOOR_SLOT (0)          free device + evictable (host-capped) group eviction floor
    HOST_FLOOR_SLOT  (1)          free host tokens                     group host floor
    count_at                      count vote (or UNPRICED)             group count (MIN)
    head_at .. +3*HEAD_WIDTH      per canonical rid: (match, id, -id)  group match per rid
    len-BALLOT_WIDTH .. len-3     prefetch-ballot verdict slot(s)      group verdict (MIN)
    len-2, len-1                  (digest, -digest)                    group min / max digest

Head blocks are indexed from the HEAD by indices captured BEFORE appending and read back by
those indices, never by negative offset: a ``t[-2]`` reader silently reads whatever a later
change appends. The ballot is indexed from the TAIL (``prefetch_ballot.read_ballot``) so head
insertions never move it; therefore new blocks go ABOVE the ballot and nothing is appended
after the digest pair. A group of one skips the reduce: every floor is OFF.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tp_scheduler import prefetch_ballot, tp_head_congruence, uniform_floor_scope
from tp_scheduler.prefetch_ballot import MismatchStreak
from tp_scheduler.tp_head_congruence import ABSENT, HEAD_WIDTH, SLOT_STRIDE, UNPRICED

if TYPE_CHECKING:
    from tp_scheduler.scheduler import Scheduler

logger = logging.getLogger(__name__)

EVICT_FLOOR_SLOT = 0
HOST_FLOOR_SLOT = 1
REPORT_HISTORY = 256
"""How many scope/ballot report lines a scheduler keeps for inspection."""


class SchedulerBudgetMixin:
    """Publishes the group-uniform floors, head order, count and ballot once per pass."""

    def _update_uniform_pool_budget(self: Scheduler) -> None:
        """Reduce this pass's rank-local inputs into the group decision the pass consumes."""
        scope = uniform_floor_scope.scope_transition(
            self._uniform_floor_covered, self.tp_size, tp_rank=self.tp_rank
        )
        self._uniform_floor_covered = scope.covered
        if scope.report is not None:
            logger.warning(scope.report)
            self._record(self._scope_reports, scope.report)
        if not scope.covered:
            # A group of one agrees with nobody: no reduce, and every floor is OFF.
            self._clear_uniform_decision()
            return

        queue_rids = [req.rid for req in self.waiting_queue]
        canonical = tp_head_congruence.canonical_head(queue_rids, HEAD_WIDTH)
        matches = self._local_head_prefix_matches(canonical)

        vals: list[int] = [0, 0]
        vals[EVICT_FLOOR_SLOT] = self._local_token_budget()
        vals[HOST_FLOOR_SLOT] = self.host_pool.available_size() if self.host_pool else 0

        count_at = len(vals)  # captured BEFORE appending; read back by this index only
        vals.append(self._local_admit_limit())
        head_at = len(vals)
        vals.extend(tp_head_congruence.head_vote_payload(canonical, matches, HEAD_WIDTH))

        # Tail block: the prefetch ballot. Verdict slot(s) first, the (x, -x) pair LAST.
        ballot_votes = [int(self._local_prefetch_done())]
        digest = prefetch_ballot.queue_head_digest(queue_rids)
        vals.extend(ballot_votes)
        vals.extend((digest, -digest))

        reduced = self._all_reduce_min(vals)

        self._uniform_evict_floor = reduced[EVICT_FLOOR_SLOT]
        self._uniform_host_floor = reduced[HOST_FLOOR_SLOT] if self.host_pool else None
        self._uniform_admit_limit = reduced[count_at]
        head_block = reduced[head_at : head_at + HEAD_WIDTH * SLOT_STRIDE]
        group_matches = tp_head_congruence.group_head_matches(head_block, canonical, HEAD_WIDTH)
        self._uniform_head_match_lens = group_matches  # deskcheck: agreed MIN per canonical rid
        self._uniform_canonical_head = tuple(canonical)

        reading = prefetch_ballot.read_ballot(reduced)
        self._prefetch_ballot = reading
        self._prefetch_ballot_streak, report = prefetch_ballot.advance_mismatch_streak(
            self._prefetch_ballot_streak, reading.mismatch, self.config.ballot_streak_cap
        )
        if report is not None:
            line = (
                f"prefetch ballot {report.kind}: tp_rank={self.tp_rank} "
                f"digest={digest} group_min={reading.digest_min} "
                f"group_max={reading.digest_max} streak={report.streak} "
                f"ended_length={report.ended_length} total={report.total}"
            )
            logger.warning(line)
            self._record(self._ballot_reports, line)

    def _clear_uniform_decision(self: Scheduler) -> None:
        """Floors OFF: nothing published stays standing for the pass to consume."""
        self._uniform_evict_floor = None
        self._uniform_host_floor = None
        self._uniform_admit_limit = None
        self._uniform_head_match_lens = None
        self._uniform_canonical_head = ()
        self._prefetch_ballot = None

    def _all_reduce_min(self: Scheduler, vals: Sequence[int]) -> list[int]:
        """The ONE collective of the pass: elementwise MIN over ``tp_cpu_group``."""
        import torch  # lazy: the decision modules must import without torch
        import torch.distributed as dist

        tensor = torch.tensor(list(vals), dtype=torch.int64)
        dist.all_reduce(tensor, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)
        return [int(v) for v in tensor.tolist()]

    def _local_head_prefix_matches(self: Scheduler, canonical: Sequence[str]) -> dict[str, int]:
        """This rank's prefix match for each canonical head rid, pulled forward to the reduce.

        ``calc_priority`` computes the sort key later in the pass, so reducing the stored
        value would agree on a stale number. Bounded to the canonical head. A rid this rank
        cannot price contributes ABSENT: the group drops it (delay, never force).
        """
        by_rid = {req.rid: req for req in self.waiting_queue}
        matches: dict[str, int] = {}
        for rid in canonical:
            req = by_rid.get(rid)
            if req is None:
                matches[rid] = ABSENT
                continue
            try:
                matches[rid] = self.tree_cache.match_len(req.origin_input_ids)
            except Exception:  # the vote must never break the reduce
                logger.exception("prefix match for %s failed; voting ABSENT", rid)
                matches[rid] = ABSENT
        return matches

    def _local_token_budget(self: Scheduler) -> int:
        """This rank's own token budget: free device tokens plus the evictable cache its own
        host can back up. The group prices against the MIN of these (the eviction floor)."""
        evictable = self.tree_cache.evictable_size()
        if self.host_pool:
            evictable = min(evictable, self.host_pool.available_size())
        return self.token_to_kv_pool.available_size() + evictable

    def _local_admit_limit(self: Scheduler) -> int:
        """This rank's count vote: requests it can seat now, or UNPRICED."""
        try:
            allocatable = self.get_num_allocatable_reqs()
            free_slots = (
                self.req_to_token_pool.available_size() if self.req_to_token_pool else None
            )
        except Exception:  # the vote must never break the reduce
            logger.exception("count vote failed; voting UNPRICED")
            return UNPRICED
        return tp_head_congruence.count_vote(allocatable, free_slots)

    def _local_prefetch_done(self: Scheduler) -> bool:
        """This rank's ballot vote: the queue head's host->device prefetch has landed."""
        if not self.waiting_queue:
            return True
        return self.waiting_queue[0].rid not in self.prefetch_pending

    def _prefetch_head_admissible(self: Scheduler) -> bool:
        """The ballot's verdict for this pass; the rank-local one when no ballot stands."""
        # A group of one has nobody to agree with: its own verdict. In a group the ballot
        # stands after every reduce; without one (formation before this pass's reduce) the
        # group holds: a rank-local verdict would gate the forward's collectives per rank.
        local = False
        if self.tp_size == 1:
            local = self._local_prefetch_done()
        return prefetch_ballot.prefetch_done_under_ballot(self._prefetch_ballot, local)

    @staticmethod
    def _record(history: list[str], line: str) -> None:
        history.append(line)
        del history[:-REPORT_HISTORY]

    def ballot_streak(self: Scheduler) -> MismatchStreak:
        """The queue-head divergence detector's state (current streak, lifetime total)."""
        return self._prefetch_ballot_streak
