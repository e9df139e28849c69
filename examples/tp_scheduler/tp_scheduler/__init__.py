"""Reference tensor-parallel scheduler (deskcheck example target).

A TP rank's prefill scheduler whose ranks must form identical batches from rank-local
inputs, agreed through one packed MIN all_reduce per pass; a formed batch goes into a
forward pass whose every layer all_reduces over the TP group (``model_runner``). The decision
modules (``tp_head_congruence``, ``prefetch_ballot``, ``uniform_floor_scope``) are pure and
import without torch; only the collectives (``Scheduler._all_reduce_min``,
``Scheduler._broadcast_requests``) and the forward import torch, lazily.
"""

from tp_scheduler.admission_limiter import AdmissionLimiter
from tp_scheduler.inbox import SHUTDOWN, RequestInbox, Shutdown
from tp_scheduler.memory_pool import HostKVPool, ReqToTokenPool, TokenToKVPool
from tp_scheduler.model_runner import ForwardOutput, TPModelRunner
from tp_scheduler.radix_cache import RadixCache
from tp_scheduler.req import Req
from tp_scheduler.schedule_batch import BatchSummary, ScheduleBatch
from tp_scheduler.schedule_policy import AddReqResult, PrefillAdder, SchedulePolicy
from tp_scheduler.scheduler import Scheduler, SchedulerConfig

__all__ = [
    "AddReqResult",
    "AdmissionLimiter",
    "BatchSummary",
    "ForwardOutput",
    "HostKVPool",
    "PrefillAdder",
    "RadixCache",
    "Req",
    "ReqToTokenPool",
    "RequestInbox",
    "SHUTDOWN",
    "ScheduleBatch",
    "SchedulePolicy",
    "Scheduler",
    "SchedulerConfig",
    "Shutdown",
    "TPModelRunner",
    "TokenToKVPool",
]
