"""deskcheck.suites: multi-process gloo/NCCL congruence suites that name the diverging rank.

The only part of deskcheck that uses torch, and only lazily: importing this package does not
import torch; starting a pool does.

- :func:`rank_pool` / :class:`RankPool`: warm rank processes per (world, backend); a task
  is a picklable callable plus per-rank arguments; failures come back naming the ranks.
- :class:`CongruenceArm`, :func:`check_arm`, :func:`check_arm_property`: uniformity,
  per-rank safety, and the premise (with the kill switch the inputs really diverge).
- :mod:`deskcheck.suites.strategies`: hypothesis strategies for per-rank inputs.
"""

from deskcheck.suites._rank_main import RankContext, rank_context
from deskcheck.suites.arm_property import PropertyTally, check_arm_property
from deskcheck.suites.backends import backend_unavailable_reason, tier_of
from deskcheck.suites.congruence import (
    ArmResult,
    CongruenceArm,
    KillSwitch,
    check_arm,
    check_decisions,
    decide_in_rank,
    diverging_ranks,
)
from deskcheck.suites.env_group import EnvGroup, under_torchrun
from deskcheck.suites.outcomes import RankFailure, RankOutcome
from deskcheck.suites.pool import DEFAULT_PG_TIMEOUT_S, RankPool, default_pg_timeout
from deskcheck.suites.registry import owned_pools, rank_pool, shutdown_pools
from deskcheck.suites.strategies import RankInputs, RankQueue, rank_queues

__all__ = [
    "DEFAULT_PG_TIMEOUT_S",
    "ArmResult",
    "CongruenceArm",
    "EnvGroup",
    "KillSwitch",
    "PropertyTally",
    "RankContext",
    "RankFailure",
    "RankInputs",
    "RankOutcome",
    "RankPool",
    "RankQueue",
    "backend_unavailable_reason",
    "check_arm",
    "check_arm_property",
    "check_decisions",
    "decide_in_rank",
    "default_pg_timeout",
    "diverging_ranks",
    "owned_pools",
    "rank_context",
    "rank_pool",
    "rank_queues",
    "shutdown_pools",
    "tier_of",
    "under_torchrun",
]
