"""deskcheck.suites: multi-process gloo/NCCL congruence suites that name the diverging rank.

The only part of deskcheck that uses torch, and only lazily: importing this package does not
import torch; starting a pool does.

- :func:`rank_pool` / :class:`RankPool`: warm rank processes per (world, backend); a task
  is a picklable callable plus per-rank arguments; failures come back naming the ranks.
- :class:`CongruenceArm`, :func:`check_arm`, :func:`check_arm_property`: uniformity,
  per-rank safety, and the premise (with the kill switch the inputs really diverge).
- :mod:`deskcheck.suites.strategies`: hypothesis strategies for per-rank inputs.
- :func:`record_decisions`, :func:`split_in`, :class:`DecisionLog`: the first decision where
  ranks split (a failing arm names it by itself; these are for your own multi-rank tests).
"""

from __future__ import annotations

from deskcheck._lazy import lazy_exports

# Public name -> defining module. Resolved lazily (PEP 562) so that importing the package, the
# pytest plugin or the CLI pays for neither torch nor hypothesis until a name is used.
_EXPORTS: dict[str, str] = {
    'ArmResult': 'deskcheck.suites.congruence',
    'CongruenceArm': 'deskcheck.suites.congruence',
    'DecisionLog': 'deskcheck.suites.decision_log',
    'Split': 'deskcheck.suites.split',
    'DEFAULT_PG_TIMEOUT_S': 'deskcheck.suites.pool',
    'EnvGroup': 'deskcheck.suites.env_group',
    'KillSwitch': 'deskcheck.suites.congruence',
    'PropertyTally': 'deskcheck.suites.arm_property',
    'RankContext': 'deskcheck.suites._rank_main',
    'RankFailure': 'deskcheck.suites.outcomes',
    'RankInputs': 'deskcheck.suites.strategies',
    'RankOutcome': 'deskcheck.suites.outcomes',
    'RankPool': 'deskcheck.suites.pool',
    'RankQueue': 'deskcheck.suites.strategies',
    'apply_desk_env': 'deskcheck.suites.desk_env',
    'backend_unavailable_reason': 'deskcheck.suites.backends',
    'check_arm': 'deskcheck.suites.congruence',
    'check_arm_property': 'deskcheck.suites.arm_property',
    'check_decisions': 'deskcheck.suites.congruence',
    'decide_in_rank': 'deskcheck.suites.congruence',
    'default_pg_timeout': 'deskcheck.suites.pool',
    'desk_env_rules': 'deskcheck.suites.desk_env',
    'describe_desk_env': 'deskcheck.suites.desk_env',
    'diverging_ranks': 'deskcheck.suites.congruence',
    'owned_pools': 'deskcheck.suites.registry',
    'rank_context': 'deskcheck.suites._rank_main',
    'rank_pool': 'deskcheck.suites.registry',
    'rank_queues': 'deskcheck.suites.strategies',
    'record_decisions': 'deskcheck.suites.recorder',
    'split_in': 'deskcheck.suites.split',
    'shutdown_pools': 'deskcheck.suites.registry',
    'tier_of': 'deskcheck.suites.backends',
    'under_torchrun': 'deskcheck.suites.env_group',
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
