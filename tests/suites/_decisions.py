"""Small rank tasks and decisions the suites tests run on real gloo ranks.

Module-level on purpose: tasks travel to the ranks by reference. Each decision has a correct
form (reduces over the group) and planted defects (reads a rank-local value), so every check
the suites make is shown both holding and failing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import torch
import torch.distributed as dist

from deskcheck.suites import CongruenceArm, KillSwitch, RankQueue, rank_context

ENFORCER_ENV = "DESKCHECK_TEST_ENFORCER"
MUTANT_MARK = "clean"  # a forked child rewrites this in memory, like an in-memory mutant
_enforcer_forced_off = False


# -- plain tasks -----------------------------------------------------------------------------
def all_reduce_sum(value: int) -> int:
    t = torch.tensor([value], dtype=torch.int64)
    dist.all_reduce(t)
    return int(t.item())


def whoami() -> tuple[int, int, str, int]:
    ctx = rank_context()
    return ctx.rank, ctx.world, ctx.backend, dist.get_world_size()


def env_value(name: str) -> str | None:
    return os.environ.get(name)


def visible_gpus() -> int:
    from deskcheck.suites.backends import cuda_device_count

    return cuda_device_count()[0]


def mutant_mark() -> str:
    return MUTANT_MARK


def pid_and_mark() -> tuple[int, str]:
    return os.getpid(), MUTANT_MARK


def assert_below(value: int, limit: int) -> int:
    assert value < limit, f"value {value} is not below {limit}"
    return value


def crash_with_type_error(value: int) -> int:
    if value == 1:
        raise TypeError("rank-local crash")
    return value


def skip_collective_on(skipper: int) -> int:
    """Every rank but ``skipper`` enters an all_reduce: the diverged-collective defect."""
    if rank_context().rank == skipper:
        return -1
    return all_reduce_sum(1)


def sleep_before_collective(sleeper: int) -> int:
    """Rank ``sleeper`` never reaches the collective (stuck outside torch.distributed)."""
    if rank_context().rank == sleeper:
        time.sleep(600)
    return all_reduce_sum(1)


def exit_on(victim: int) -> int:
    if rank_context().rank == victim:
        os._exit(3)
    return 0


def unpicklable_result() -> object:
    return lambda: None


def print_and_return(value: int) -> int:
    print(f"hello from rank {rank_context().rank}")
    return value


# -- decisions: COUNT ------------------------------------------------------------------------
def _enforced() -> bool:
    return os.environ.get(ENFORCER_ENV, "1") != "0" and not _enforcer_forced_off


def _min_over_group(value: int) -> int:
    t = torch.tensor([value], dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return int(t.item())


def count_decision(free: int, enforce: bool = True) -> int:
    """How many requests every rank admits: the group MIN of free slots (enforcer on)."""
    if enforce and _enforced():
        return _min_over_group(free)
    return free


def count_decision_local_only(free: int, enforce: bool = True) -> int:
    """Planted defect: reads the rank-local pool even with the enforcer on."""
    _min_over_group(free)
    return free


def count_decision_max(free: int, enforce: bool = True) -> int:
    """Planted defect: agrees (MAX) but tells poorer ranks to admit more than they hold."""
    if not (enforce and _enforced()):
        return free
    t = torch.tensor([free], dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return int(t.item())


def count_safety(rank: int, free: int, decision: int) -> str | None:
    if decision > free:
        return f"was told to admit {decision} with room for {free}"
    return None


COUNT = CongruenceArm("count", count_decision, KillSwitch.from_env(ENFORCER_ENV),
                      safety=count_safety)
COUNT_BY_KEYWORD = CongruenceArm("count", count_decision, KillSwitch.from_keyword("enforce"),
                                 safety=count_safety)
COUNT_LOCAL_ONLY = CongruenceArm("count", count_decision_local_only,
                                 KillSwitch.from_env(ENFORCER_ENV), safety=count_safety)
COUNT_MAX = CongruenceArm("count", count_decision_max, KillSwitch.from_env(ENFORCER_ENV),
                          safety=count_safety)


@contextlib.contextmanager
def enforcer_forced_off() -> Iterator[None]:
    global _enforcer_forced_off
    _enforcer_forced_off = True
    try:
        yield
    finally:
        _enforcer_forced_off = False


COUNT_BY_CONTEXT = CongruenceArm("count", count_decision, KillSwitch.from_context(
    enforcer_forced_off), safety=count_safety)


def _room(view: RankQueue) -> int:
    """Requests this rank can seat: its free slots, or its whole queue when unpriced."""
    return len(view.queue) if view.free_slots is None else min(view.free_slots, len(view.queue))


def count_of_queue(view: RankQueue, enforce: bool = True) -> int:
    """COUNT over generated RankQueue inputs: the group MIN of every rank's room."""
    if not (enforce and _enforced()):
        return _room(view)
    return _min_over_group(_room(view))


def count_of_queue_local(view: RankQueue, enforce: bool = True) -> int:
    """Planted defect: an unpriced rank keeps its own room instead of taking the group's."""
    agreed = _min_over_group(_room(view))
    if not (enforce and _enforced()):
        return _room(view)
    return agreed if view.priced else _room(view)


def queue_count_safety(rank: int, view: RankQueue, decision: int) -> str | None:
    if decision > _room(view):
        return f"was told to admit {decision} with room for {_room(view)}"
    return None


QUEUE_COUNT = CongruenceArm("queue-count", count_of_queue, KillSwitch.from_env(ENFORCER_ENV),
                            safety=queue_count_safety)
QUEUE_COUNT_LOCAL = CongruenceArm("queue-count", count_of_queue_local,
                                  KillSwitch.from_env(ENFORCER_ENV), safety=queue_count_safety)


# -- decisions: ORDER ------------------------------------------------------------------------
UNIVERSE = tuple("abcdefgh") + tuple(f"r{i}" for i in range(32))
"""The rid names these tests use; each owns one slot of the MIN-reduced vector."""


def _group_prefix(view: RankQueue) -> dict[str, int]:
    """Group match per rid: MIN over ranks, a rid absent anywhere (-1) is dropped."""
    local = view.prefix_matches
    t = torch.tensor([local.get(rid, -1) for rid in UNIVERSE], dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return {rid: int(v) for rid, v in zip(UNIVERSE, t.tolist(), strict=True) if v >= 0}


def head_order(view: RankQueue, enforce: bool = True) -> tuple[str, ...]:
    """Head order: rids every rank holds, longest GROUP-min prefix first, rid breaks ties."""
    if not (enforce and _enforced()):
        local = view.prefix_matches
        return tuple(sorted(view.queue, key=lambda rid: (-local[rid], rid)))
    group = _group_prefix(view)
    return tuple(sorted(group, key=lambda rid: (-group[rid], rid)))


def head_order_local_key(view: RankQueue, enforce: bool = True) -> tuple[str, ...]:
    """Planted defect: agrees on the rid set but sorts by this rank's own prefix length."""
    group = _group_prefix(view)
    local = view.prefix_matches
    return tuple(sorted(group, key=lambda rid: (-local[rid], rid)))


def order_safety(rank: int, view: RankQueue, decision: tuple[str, ...]) -> str | None:
    missing = [rid for rid in decision if rid not in view.queue]
    if missing:
        return f"was told to admit {', '.join(missing)} which it does not hold"
    return None


ORDER = CongruenceArm("order", head_order, KillSwitch.from_env(ENFORCER_ENV), safety=order_safety)
ORDER_LOCAL_KEY = CongruenceArm("order", head_order_local_key, KillSwitch.from_env(ENFORCER_ENV),
                                safety=order_safety)
