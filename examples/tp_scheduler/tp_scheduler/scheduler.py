"""The TP scheduler: per-rank state plus the budget and batch mixins.

Each TP rank runs one ``Scheduler``. The waiting queue's rid SET and prompts are replicated
(every rank receives every request); everything else here is rank-local: the radix cache,
the pools' free counts, the admission limiter, the prefetch progress. One pass is
``run_pass``: the uniform reduce (``SchedulerBudgetMixin``) and then batch formation
(``SchedulerBatchMixin``), so the reduce is entered unconditionally before any branch.

``event_loop_normal`` is the whole TP loop: the leader (tp_rank 0) polls its inbox and
broadcasts what it found, every rank runs the pass, and a formed batch goes into the model's
forward (``model_runner``), whose every layer all_reduces over the TP group. Batch formation
therefore gates collectives: a rank that forms another batch, or none, hangs the group.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tp_scheduler.admission_limiter import AdmissionLimiter
from tp_scheduler.inbox import Message, RequestInbox, Shutdown
from tp_scheduler.memory_pool import HostKVPool, ReqToTokenPool, TokenToKVPool
from tp_scheduler.model_runner import ForwardOutput, TPModelRunner
from tp_scheduler.prefetch_ballot import DEFAULT_STREAK_CAP, BallotReading, MismatchStreak
from tp_scheduler.radix_cache import RadixCache
from tp_scheduler.req import Req
from tp_scheduler.schedule_batch import ScheduleBatch
from tp_scheduler.schedule_policy import POLICY_LPM, SchedulePolicy
from tp_scheduler.scheduler_batch_mixin import SchedulerBatchMixin
from tp_scheduler.scheduler_budget_mixin import SchedulerBudgetMixin
from tp_scheduler.tp_head_congruence import BatchDecision

FORWARD_HISTORY = 256
"""How many forward outputs a scheduler keeps for inspection."""


@dataclass(frozen=True)
class SchedulerConfig:
    """Capacities and policy of one rank (server arguments)."""

    max_running_requests: int = 16
    max_prefill_tokens: int = 8192
    req_pool_size: int = 32
    token_pool_size: int = 8192
    host_pool_size: int = 16384
    """0 disables the host tier (and with it the host floor)."""
    schedule_policy: str = POLICY_LPM
    ballot_streak_cap: int = DEFAULT_STREAK_CAP
    num_layers: int = 2
    """Layers of the model's forward: one all_reduce over the TP group each."""
    hidden_size: int = 8

    def __post_init__(self) -> None:
        for name in ("max_running_requests", "max_prefill_tokens", "req_pool_size",
                     "num_layers", "hidden_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"SchedulerConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.token_pool_size < 1 or self.host_pool_size < 0:
            raise ValueError("SchedulerConfig needs token_pool_size >= 1 and host_pool_size >= 0")


class Scheduler(SchedulerBudgetMixin, SchedulerBatchMixin):
    """One TP rank's scheduler."""

    def __init__(
        self,
        tp_rank: int,
        tp_size: int,
        tp_cpu_group: Any = None,
        config: SchedulerConfig | None = None,
    ) -> None:
        if not 0 <= tp_rank < tp_size:
            raise ValueError(f"tp_rank {tp_rank} outside a TP world of {tp_size}")
        if tp_size > 1 and tp_cpu_group is None:
            raise ValueError(
                f"tp_size={tp_size} needs the TP CPU process group (tp_cpu_group) to reduce over"
            )
        self.tp_rank = tp_rank
        self.tp_size = tp_size
        self.tp_cpu_group = tp_cpu_group
        self.config = config or SchedulerConfig()

        self.req_to_token_pool: ReqToTokenPool | None = ReqToTokenPool(self.config.req_pool_size)
        self.token_to_kv_pool = TokenToKVPool(self.config.token_pool_size)
        self.host_pool: HostKVPool | None = (
            HostKVPool(self.config.host_pool_size) if self.config.host_pool_size else None
        )
        self.tree_cache = RadixCache(self.token_to_kv_pool, self.host_pool)
        self.policy = SchedulePolicy(self.config.schedule_policy, self.tree_cache)
        self.admission_limiter = AdmissionLimiter(
            initial=self.config.max_running_requests, maximum=self.config.max_running_requests
        )

        self.model_runner = TPModelRunner(tp_rank, tp_size, tp_cpu_group,
                                          num_layers=self.config.num_layers,
                                          hidden_size=self.config.hidden_size)
        self.inbox = RequestInbox()
        """The tokenizer's deliveries; only the leader's (tp_rank 0) is ever polled."""
        self.forward_outputs: list[ForwardOutput] = []

        self.waiting_queue: list[Req] = []
        self.running_batch: list[Req] = []
        self.prefetch_pending: set[str] = set()
        """Rids whose host->device prefetch is still in flight on this rank."""

        # Published by _update_uniform_pool_budget, consumed by batch formation.
        self._uniform_floor_covered: bool | None = None
        self._uniform_evict_floor: int | None = None
        self._uniform_host_floor: int | None = None
        self._uniform_admit_limit: int | None = None
        self._uniform_head_match_lens: dict[str, int] | None = None
        self._uniform_canonical_head: tuple[str, ...] = ()
        self._prefetch_ballot: BallotReading | None = None
        self._prefetch_ballot_streak = MismatchStreak()
        self._scope_reports: list[str] = []
        self._ballot_reports: list[str] = []
        self.last_decision: BatchDecision | None = None

    # -- requests ------------------------------------------------------------------------
    def add_requests(self, reqs: Iterable[Req]) -> None:
        """Append newly received requests to the waiting queue (rids must be unique)."""
        known = {req.rid for req in self.waiting_queue} | {req.rid for req in self.running_batch}
        for req in reqs:
            if req.rid in known:
                raise ValueError(f"rank {self.tp_rank}: duplicate rid {req.rid!r}")
            known.add(req.rid)
            self.waiting_queue.append(req)

    def finish_req(self, rid: str) -> None:
        """Release a running request: its slot returns, its KV stays cached (evictable)."""
        index = next((i for i, r in enumerate(self.running_batch) if r.rid == rid), None)
        if index is None:
            raise KeyError(f"rank {self.tp_rank}: no running request {rid!r}")
        req = self.running_batch.pop(index)
        if req.last_node is not None:
            self.tree_cache.dec_lock_ref(req.last_node)
            req.last_node = None
        if req.req_pool_idx is not None and self.req_to_token_pool is not None:
            self.req_to_token_pool.free([req.req_pool_idx])
            req.req_pool_idx = None

    # -- capacity ------------------------------------------------------------------------
    def get_num_allocatable_reqs(self, running_bs: int | None = None) -> int:
        """Requests this rank may still start: the limiter's bound minus what already runs."""
        running = len(self.running_batch) if running_bs is None else running_bs
        bound = min(self.config.max_running_requests, self.admission_limiter.current)
        return max(0, bound - running)

    # -- one pass ------------------------------------------------------------------------
    def run_pass(self) -> ScheduleBatch | None:
        """One TP-loop iteration: the uniform reduce, then prefill batch formation."""
        self._update_uniform_pool_budget()
        return self.get_new_batch_prefill()

    # -- the event loop ------------------------------------------------------------------
    def event_loop_normal(self) -> int:
        """The TP loop until a shutdown arrives: receive, reduce, form a batch, forward it.

        Returns the number of passes run (the shutdown's pass included).
        """
        passes = 0
        while True:
            stop = self.process_input_requests(self.recv_requests())
            batch = self.run_pass()
            if batch is not None:
                self.run_batch(batch)
            passes += 1
            if stop:
                return passes

    def recv_requests(self) -> list[Message]:
        """This pass's messages: the leader polls its inbox and broadcasts what it found."""
        messages = self.inbox.poll() if self.tp_rank == 0 else None
        if self.tp_size > 1:
            messages = self._broadcast_requests(messages)
        return list(messages or ())

    def _broadcast_requests(self, messages: list[Message] | None) -> list[Message]:
        """The leader's messages on every rank of ``tp_cpu_group`` (one object broadcast)."""
        import torch.distributed as dist  # lazy, as in _all_reduce_min

        payload = [messages]
        dist.broadcast_object_list(payload, group=self.tp_cpu_group, group_src=0)
        return list(payload[0] or ())

    def process_input_requests(self, messages: list[Message]) -> bool:
        """Queue the received requests; True when a shutdown came with them."""
        self.add_requests(m for m in messages if isinstance(m, Req))
        return any(isinstance(m, Shutdown) for m in messages)

    def run_batch(self, batch: ScheduleBatch) -> ForwardOutput:
        """The batch's forward: every layer all_reduces over the TP group."""
        output = self.model_runner.forward(batch)
        self.forward_outputs.append(output)
        del self.forward_outputs[:-FORWARD_HISTORY]
        return output
