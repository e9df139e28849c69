"""Prefill batch formation: the candidate loop, under the group's order and count.

Two ranks can agree perfectly on the ORDER and still build different batches by taking a
different number of requests off the same head, and vice versa; a uniform batch needs both
halves. ``_apply_uniform_head_order`` runs right after ``calc_priority`` and overrides exactly
its rank-local sort; the candidate loop stops at the group count. With the kill switch set
(``TP_HEAD_CONGRUENCE=0``) or a TP world of one, the rank-local formation returns unchanged.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tp_scheduler import tp_head_congruence
from tp_scheduler.schedule_batch import ScheduleBatch
from tp_scheduler.schedule_policy import AddReqResult, PrefillAdder
from tp_scheduler.tp_head_congruence import BatchDecision

if TYPE_CHECKING:
    from tp_scheduler.req import Req
    from tp_scheduler.scheduler import Scheduler

logger = logging.getLogger(__name__)


class SchedulerBatchMixin:
    """Forms the prefill batch of a pass from the waiting queue."""

    def get_new_batch_prefill(self: Scheduler) -> ScheduleBatch | None:
        """Admit the next prefill batch, or None when nothing can run this pass."""
        self.last_decision = None
        if not self.waiting_queue:
            return None
        if not self._prefetch_head_admissible():
            return None  # the head's prefetch has not landed (group verdict when one stands)

        self.policy.calc_priority(self.waiting_queue)
        decision = self._apply_uniform_head_order()
        self.last_decision = decision

        adder = PrefillAdder(
            tree_cache=self.tree_cache,
            token_to_kv_pool=self.token_to_kv_pool,
            rem_input_tokens=self.config.max_prefill_tokens,
            rem_total_token_offset=self._running_reservation(),
            evict_floor=self._uniform_evict_floor,
            host_floor=self._uniform_host_floor,
            tp_size=self.tp_size,
        )
        group_lens = self._group_prefix_lens(decision)
        for req in self.waiting_queue:
            if len(adder.can_run_list) >= decision.count:
                break  # the group count: every rank stops at the same candidate
            prefix_len = group_lens.get(req.rid, req.num_matched_prefix_tokens)
            result = adder.add_one_req(req, prefix_len, reserve_tokens=req.max_new_tokens)
            if result is not AddReqResult.CONTINUE:
                break
        if not adder.can_run_list:
            return None
        return self._admit(adder.can_run_list, adder.prefix_lens, decision.rule)

    def _apply_uniform_head_order(self: Scheduler) -> BatchDecision:
        """Reorder the waiting queue by the group decision; returns that decision.

        Reorders, never drops: requests the group did not name keep their relative order
        behind the group head and wait for a later pass.
        """
        enabled = tp_head_congruence.enforcer_gate(self.tp_size)
        reading = self._prefetch_ballot
        decision = tp_head_congruence.batch_decision(
            [req.rid for req in self.waiting_queue],
            self._local_admit_limit(),
            enabled=enabled,
            world_size=self.tp_size,
            group_matches=self._uniform_head_match_lens,
            reduced_count=self._uniform_admit_limit,
            ballot_mismatch=bool(reading is not None and reading.mismatch),
        )
        by_rid = {req.rid: req for req in self.waiting_queue}
        self.waiting_queue[:] = [by_rid[rid] for rid in decision.order]
        return decision

    def _group_prefix_lens(self: Scheduler, decision: BatchDecision) -> dict[str, int]:
        """Prefix lengths to reuse: the GROUP match under the enforcer (<= every rank's own),
        for every rid the group named. The admission loop stops at the group count, so only
        ``decision.rids`` are priced; keying the lengths by the group's own names (not by the
        count's cut) keeps them a function of the reduced head block alone."""
        if decision.rule.startswith("rank-local") or self._uniform_head_match_lens is None:
            return {}
        return dict(self._uniform_head_match_lens)

    def _running_reservation(self: Scheduler) -> int:
        """Tokens running requests may still claim (their decode room)."""
        return sum(req.max_new_tokens for req in self.running_batch)

    def _admit(self: Scheduler, reqs: list[Req], prefix_lens: list[int], rule: str) -> ScheduleBatch:
        """Allocate slots and KV for the admitted requests and cache their prompts."""
        admitted = {req.rid for req in reqs}
        self.waiting_queue[:] = [req for req in self.waiting_queue if req.rid not in admitted]
        for req, prefix_len in zip(reqs, prefix_lens, strict=True):
            self._allocate(req, prefix_len)
            self.running_batch.append(req)
        self.admission_limiter.on_success()
        return ScheduleBatch(reqs=list(reqs), prefix_lens=list(prefix_lens), rule=rule)

    def _allocate(self: Scheduler, req: Req, prefix_len: int) -> None:
        """Seat ``req``: a request slot, its reused prefix locked, fresh KV for the rest."""
        prefix, node = self.tree_cache.match_prefix(req.origin_input_ids[:prefix_len])
        if len(prefix) != prefix_len:
            raise RuntimeError(
                f"rank {self.tp_rank}: {req.rid} was admitted reusing {prefix_len} cached "
                f"tokens but this rank's cache holds {len(prefix)}"
            )
        self.tree_cache.inc_lock_ref(node)
        slot = self.req_to_token_pool.alloc(1)
        need = req.prompt_len - prefix_len
        short = need - self.token_to_kv_pool.available_size()
        if short > 0:
            self.tree_cache.evict(short)
        fresh = self.token_to_kv_pool.alloc(need)
        if slot is None or fresh is None:
            self.tree_cache.dec_lock_ref(node)
            if slot is not None:
                self.req_to_token_pool.free(slot)
            self.admission_limiter.on_oom()
            raise RuntimeError(
                f"rank {self.tp_rank} was told to admit {req.rid} with "
                f"{self.req_to_token_pool.available_size()} free request slots and "
                f"{self.token_to_kv_pool.available_size()} free KV tokens for {need}"
            )
        indices = list(prefix) + fresh
        already = self.tree_cache.insert(req.origin_input_ids, indices)
        # Tokens another admission cached meanwhile: keep the cached copy, free ours.
        if already > prefix_len:
            self.token_to_kv_pool.free(indices[prefix_len:already])
        self.tree_cache.dec_lock_ref(node)
        cached, last_node = self.tree_cache.match_prefix(req.origin_input_ids)
        self.tree_cache.inc_lock_ref(last_node)
        req.req_pool_idx = slot[0]
        req.prefix_indices = cached
        req.last_node = last_node
        req.extend_input_len = need
