"""The event loop into the forward pass, on real gloo ranks (world 2 and 3).

Every rank runs ``Scheduler.event_loop_normal`` on its OWN diverged state (queue order,
cache, pools, limiter, prefetches): the leader (rank 0) polls its inbox and broadcasts, each
rank reduces, forms its batch and runs the forward, whose every layer all_reduces over the
TP group. A rank that forms another batch, or none, enters other collectives than its peers,
so these arms check what the forward ran on: every rank ran the same forwards (rids, tokens,
checksum), each one computed what a single process computes for that batch (safety), and the
premise: with the enforcer off (``TP_HEAD_CONGRUENCE=0``, or the reduce skipped) the same
ranks would run different forwards (recorded, not run: diverged collectives would hang).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest

pytest.importorskip("torch.distributed")

from test_congruence_suites import (  # noqa: E402
    DIVERGED,
    PROMPT_LEN,
    TPRankState,
    _skip_the_reduce,
    build_scheduler,
    prompt,
)
from tp_scheduler import SHUTDOWN, Req, ScheduleBatch, TPModelRunner  # noqa: E402
from tp_scheduler.tp_head_congruence import KILL_SWITCH_ENV  # noqa: E402

from deskcheck.suites import CongruenceArm, KillSwitch, RankInputs, check_arm  # noqa: E402

NEW = ("foxtrot", "golf")
"""What the leader's inbox delivers on the first pass (every rank gets it by broadcast)."""


@dataclass(frozen=True)
class LoopView:
    """The forwards one rank ran in its event loop (uniform), and what a single process
    computes for the same batches (this rank's own reference)."""

    forwards: tuple[tuple[tuple[str, ...], int, float], ...]
    passes: int
    reference: tuple[float, ...] = field(compare=False)
    held: tuple[str, ...] = field(default=(), compare=False)


def _run_loop(state: TPRankState, *, enforce: bool, reduce: bool,
              collectives: bool = True) -> LoopView:
    """Two passes of the real event loop on this rank's own state; the leader's inbox
    delivers NEW, then a shutdown. Without the enforcer (or the reduce), or without
    ``collectives``, the forward is recorded, not run: ranks that formed different batches
    would hang in its collectives, where a recorded forward names the rank that diverged."""
    sched = build_scheduler(state)
    sched.inbox.deliver([Req(rid, prompt(rid), max_new_tokens=8) for rid in NEW])
    sched.inbox.deliver([SHUTDOWN])
    single = TPModelRunner(0, 1, num_layers=sched.config.num_layers,
                           hidden_size=sched.config.hidden_size)
    reference: list[float] = []
    real_forward = sched.model_runner.forward

    def forward(batch: ScheduleBatch):
        reference.append(single.forward(batch).checksum)
        if enforce and reduce and collectives:
            return real_forward(batch)
        return single.forward(batch)  # what would enter the collectives, without them

    sched.model_runner.forward = forward  # type: ignore[method-assign]
    if not reduce:
        _skip_the_reduce(sched)
    held = tuple(sorted(sched.prefetch_pending))
    if not enforce:
        os.environ[KILL_SWITCH_ENV] = "0"
    try:
        passes = sched.event_loop_normal()
    finally:
        if not enforce:
            os.environ.pop(KILL_SWITCH_ENV, None)
    return LoopView(forwards=tuple((o.rids, o.num_tokens, o.checksum)
                                   for o in sched.forward_outputs),
                    passes=passes, reference=tuple(reference), held=held)


def event_loop(state: TPRankState, enforce: bool = True) -> LoopView:
    return _run_loop(state, enforce=enforce, reduce=True)


def event_loop_recorded(state: TPRankState, reduce: bool = True) -> LoopView:
    """The loop with the forward recorded: what each rank would run, compared."""
    return _run_loop(state, enforce=True, reduce=reduce, collectives=False)


def forward_safety(rank: int, state: TPRankState, view: LoopView) -> str | None:
    for (rids, tokens, checksum), expected in zip(view.forwards, view.reference, strict=True):
        if abs(checksum - expected) > 1e-9:
            return (f"computed {checksum} for the forward of {', '.join(rids)} ({tokens} "
                    f"tokens) where one process computes {expected}")
    return None


def hold_safety(rank: int, state: TPRankState, view: LoopView) -> str | None:
    if view.held and view.forwards:
        return (f"ran a forward of {', '.join(view.forwards[0][0])} while its prefetch of "
                f"{', '.join(view.held)} is still in flight")
    return forward_safety(rank, state, view)


FORWARD = CongruenceArm("forward", event_loop, KillSwitch.from_keyword("enforce", False),
                        safety=forward_safety, uniform=lambda v: (v.forwards, v.passes))
HOLD_UNDER_PARTED_HEADS = CongruenceArm(
    "prefetch-hold-under-parted-heads", event_loop_recorded,
    KillSwitch.from_keyword("reduce", False), safety=hold_safety,
    uniform=lambda v: (v.forwards, v.passes))

pytestmark = [pytest.mark.world(2, 3), pytest.mark.backend("gloo")]


@pytest.fixture(autouse=True)
def _enforcer_on(monkeypatch):
    monkeypatch.delenv(KILL_SWITCH_ENV, raising=False)


def test_every_rank_runs_the_same_forwards(rank_pool, world):
    result = check_arm(FORWARD, RankInputs(DIVERGED[:world]), rank_pool)
    forwards, passes = result.decisions[0]
    assert passes == 2, f"the loop ran {passes} passes, expected 2 (the shutdown's included)"
    assert forwards and forwards[0][0] == ("charlie", "alpha"), (
        f"the first forward ran {forwards}: expected the group head (charlie, alpha)")
    assert forwards[0][1] == 2 * PROMPT_LEN - 16 - 8, "the forward ran other than the extend "\
        "tokens of the group's prefix lengths (charlie 16, alpha 8 cached)"


def test_a_pending_prefetch_under_parted_heads_holds_every_rank(rank_pool, world):
    """Queue heads parted (the ballot's digests differ) and rank 1's own head still in
    flight: every rank holds, or the others enter the forward's all_reduce alone."""
    states = RankInputs(tuple(
        TPRankState(s.queue, s.cached, s.limiter, s.req_slots, s.token_pool,
                    prefetch_pending=(s.queue[0],) if r == 1 else ())
        for r, s in enumerate(DIVERGED[:world])))
    result = check_arm(HOLD_UNDER_PARTED_HEADS, states, rank_pool)
    assert result.decisions == (((), 2),) * world, (
        f"ranks ran forwards {result.decisions} while rank 1's head was in flight")
    assert result.premise[1][0] == () and result.premise[0][0] != (), (
        "without the reduce rank 1 alone should hold")


def reduce_once(state: TPRankState) -> tuple[bool | None, int | None]:
    """One packed reduce on this rank's own state: (floors on, the group's eviction floor)."""
    sched = build_scheduler(state)
    sched._update_uniform_pool_budget()
    return sched._uniform_floor_covered, sched._uniform_evict_floor


@pytest.mark.world(2)
def test_a_rank_with_a_full_pool_still_enters_the_reduce():
    """Rank 1's device pool is full (all of it cached, evictable): it still votes, and the
    group floor is its 40 evictable tokens. A rank that skipped the reduce on its own pool
    would leave its peer waiting in the collective: the pool names it within 1 s."""
    from deskcheck.suites import RankPool

    full = TPRankState(("alpha",), (("alpha", PROMPT_LEN),), token_pool=PROMPT_LEN)
    with RankPool(2, "gloo", timeout_s=1.0) as pool:
        got = pool.run(reduce_once, per_rank=[DIVERGED[0], full])
    assert got == [(True, PROMPT_LEN)] * 2, (
        f"ranks read {got}: every rank must reduce, the floor being rank 1's 40 evictable")


@dataclass(frozen=True)
class HostState:
    """A rank's state with its own host pool size (the host floor is the group's smallest)."""

    rank: TPRankState
    host: int


def priced_pass(state: HostState, floors: bool = True) -> tuple[tuple[str, ...], int]:
    """One pass; ``floors=False`` prices as each rank did before the floor was the price:
    ``min(its own budget with the group's host floor, the floor)``. Returns the batch's rids
    and its extend tokens (the forward's shape)."""
    from tp_scheduler.memory_pool import HostKVPool

    sched = build_scheduler(state.rank)
    sched.host_pool = sched.tree_cache.host_pool = HostKVPool(state.host)
    sched._update_uniform_pool_budget()
    if not floors:
        evictable = min(sched.tree_cache.evictable_size(), sched._uniform_host_floor)
        own = sched.token_to_kv_pool.available_size() + evictable
        sched._uniform_evict_floor = min(own, sched._uniform_evict_floor)
    batch = sched.get_new_batch_prefill()
    return (batch.summary().rids, batch.extend_num_tokens) if batch else ((), 0)


def _budget_state(token_pool: int, cached: tuple[tuple[str, int], ...], host: int) -> HostState:
    return HostState(TPRankState(("alpha", "bravo", "charlie", "delta", "echo"), cached,
                                 limiter=16, req_slots=8, token_pool=token_pool), host)


BUDGET = CongruenceArm("token-budget", priced_pass, KillSwitch.from_keyword("floors", False),
                       uniform=lambda v: v)


@pytest.mark.world(2)
def test_every_rank_prices_the_group_budget(rank_pool):
    """Rank 0: 200 free + 100 evictable (its own host backs them all); rank 1: 250 free and
    a 10-token host, so the host floor is 10. A rank that priced min(its own host-floor-capped
    budget 210, the floor 250) would stop at four requests where rank 1 seats five."""
    states = RankInputs((
        _budget_state(300, (("xray", PROMPT_LEN), ("yankee", PROMPT_LEN), ("zulu", 20)), 8192),
        _budget_state(250, (), 10)))
    result = check_arm(BUDGET, states, rank_pool)
    rids, tokens = result.decisions[0]
    assert (len(rids), tokens) == (5, 5 * PROMPT_LEN), (
        f"the group budget of 250 seats all five 48-token requests, got {rids} ({tokens})")
