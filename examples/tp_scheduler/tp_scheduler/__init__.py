"""Reference tensor-parallel scheduler (deskcheck example target).

A TP rank's prefill scheduler whose ranks must form identical batches from rank-local
inputs, agreed through one packed MIN all_reduce per pass. The decision modules
(``tp_head_congruence``, ``prefetch_ballot``, ``uniform_floor_scope``) are pure and import
without torch; only ``Scheduler._all_reduce_min`` imports torch, lazily.
"""

from tp_scheduler.admission_limiter import AdmissionLimiter
from tp_scheduler.memory_pool import HostKVPool, ReqToTokenPool, TokenToKVPool
from tp_scheduler.radix_cache import RadixCache
from tp_scheduler.req import Req
from tp_scheduler.schedule_batch import BatchSummary, ScheduleBatch
from tp_scheduler.schedule_policy import AddReqResult, PrefillAdder, SchedulePolicy
from tp_scheduler.scheduler import Scheduler, SchedulerConfig

__all__ = [
    "AddReqResult",
    "AdmissionLimiter",
    "BatchSummary",
    "HostKVPool",
    "PrefillAdder",
    "RadixCache",
    "Req",
    "ReqToTokenPool",
    "ScheduleBatch",
    "SchedulePolicy",
    "Scheduler",
    "SchedulerConfig",
    "TokenToKVPool",
]
