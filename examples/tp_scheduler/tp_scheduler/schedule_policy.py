"""Queue priority and the prefill token budget.

``SchedulePolicy.calc_priority`` is where the ORDER divergence is born: under the
longest-prefix-match policy it sorts the waiting queue by ``num_matched_prefix_tokens``, a
number read from this rank's own radix cache. Same queue, same policy, different order on
different ranks. The head-congruence arm overrides exactly this sort and nothing else.

``PrefillAdder`` prices candidates against ``rem_total_tokens``: under the group's floors the
eviction floor (the group MIN of every rank's own budget, so every rank prices the SAME
number and forms the same batch), else this rank's device pool plus its evictable cache
capped by the host floor; minus the tokens already promised this pass.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, MutableSequence
from contextlib import contextmanager

from tp_scheduler.memory_pool import TokenToKVPool
from tp_scheduler.radix_cache import RadixCache, TreeNode
from tp_scheduler.req import Req

POLICY_LPM = "lpm"
POLICY_FCFS = "fcfs"
POLICIES = (POLICY_LPM, POLICY_FCFS)


class SchedulePolicy:
    """Orders the waiting queue before the candidate loop."""

    def __init__(self, policy: str, tree_cache: RadixCache) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown schedule policy {policy!r}; choose one of {POLICIES}")
        self.policy = policy
        self.tree_cache = tree_cache

    def calc_priority(self, waiting_queue: MutableSequence[Req]) -> bool:
        """Sort ``waiting_queue`` in place; True when prefix matches were (re)computed.

        LPM: longest rank-local prefix match first, arrival order among equals (stable sort).
        """
        if self.policy == POLICY_FCFS:
            return False
        for req in waiting_queue:
            req.num_matched_prefix_tokens = self.tree_cache.match_len(req.origin_input_ids)
        waiting_queue[:] = sorted(waiting_queue, key=lambda r: -r.num_matched_prefix_tokens)
        return True


class AddReqResult(enum.Enum):
    CONTINUE = "continue"  # admitted; keep going
    NO_TOKEN = "no_token"  # the token budget cannot hold it
    OTHER = "other"  # this pass's input-token budget is spent


class PrefillAdder:
    """Accumulates one prefill batch under this pass's token budgets."""

    def __init__(
        self,
        tree_cache: RadixCache,
        token_to_kv_pool: TokenToKVPool,
        rem_input_tokens: int,
        rem_total_token_offset: int = 0,
        evict_floor: int | None = None,
        host_floor: int | None = None,
        tp_size: int = 1,
    ) -> None:
        self.tree_cache = tree_cache
        self.token_to_kv_pool = token_to_kv_pool
        self.rem_input_tokens = rem_input_tokens
        self.rem_total_token_offset = rem_total_token_offset
        self.evict_floor = evict_floor
        """Group MIN of device budget (free + evictable); None when floors are OFF."""
        self.host_floor = host_floor
        """Group MIN of free host tokens; None when floors are OFF."""
        self.tp_size = tp_size
        """The TP group this batch is priced for: only a group of one prices its own pools."""
        self.can_run_list: list[Req] = []
        self.prefix_lens: list[int] = []
        self.log_hit_tokens = 0
        self.log_input_tokens = 0

    @property
    def rem_total_tokens(self) -> int:
        """Tokens this pass may still promise.

        Under the floors, the group's eviction floor alone: it is the MIN of every rank's own
        budget (this rank's included, each capped by its own host), so it never promises more
        than a rank holds, and a rank-local term here (``min(own, floor)``) would let a rank
        whose own budget is below the floor stop the candidate loop where its peers go on,
        a batch of another shape in the forward. Without floors (a group of one): the device
        pool plus the evictable cache, capped by the host floor (an eviction is recoverable
        only while the host can back it up).
        """
        if self.evict_floor is not None:
            return self.evict_floor - self.rem_total_token_offset
        budget = 0  # a group without this pass's floor prices nothing: delay, never force
        if self.tp_size == 1:
            evictable = self.tree_cache.evictable_size()
            if self.host_floor is not None:
                evictable = min(evictable, self.host_floor)
            budget = self.token_to_kv_pool.available_size() + evictable
        return budget - self.rem_total_token_offset

    @contextmanager
    def _lock_node(self, node: TreeNode) -> Iterator[None]:
        """Hold ``node`` while pricing: its prefix must not count as evictable for itself."""
        self.tree_cache.inc_lock_ref(node)
        try:
            yield
        finally:
            self.tree_cache.dec_lock_ref(node)

    def add_one_req(self, req: Req, prefix_len: int, reserve_tokens: int = 0) -> AddReqResult:
        """Try to admit ``req`` reusing ``prefix_len`` cached tokens.

        ``reserve_tokens`` is what the request will still need after prefill (decode room).
        """
        if not 0 <= prefix_len < req.prompt_len:
            raise ValueError(f"{req.rid}: prefix_len {prefix_len} outside [0, {req.prompt_len})")
        extend = req.prompt_len - prefix_len
        _, node = self.tree_cache.match_prefix(req.origin_input_ids[:prefix_len])
        with self._lock_node(node):
            if extend + reserve_tokens > self.rem_total_tokens:
                return AddReqResult.NO_TOKEN
        if extend > self.rem_input_tokens and self.can_run_list:
            return AddReqResult.OTHER
        self.can_run_list.append(req)
        self.prefix_lens.append(prefix_len)
        self.rem_total_token_offset += extend + reserve_tokens
        self.rem_input_tokens -= extend
        self.log_hit_tokens += prefix_len
        self.log_input_tokens += extend
        return AddReqResult.CONTINUE
