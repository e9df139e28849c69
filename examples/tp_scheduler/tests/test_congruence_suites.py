"""Congruence suites for TP batch formation, on deskcheck.suites (real gloo, world 2 and 3).

One arm per decision the TP ranks must reach identically: ORDER (which requests, in which
order, reusing which prefix), COUNT (how many), BALLOT DIGEST (the group's min/max queue-head
digest), FLOOR SCOPE (whether the floors cover the pass, and their values) and the PACKED-SLOT
LAYOUT (every field read back from the one MIN reduce). Each rank runs a REAL ``Scheduler``
pass on its OWN diverged state (queue order, radix-cache history, pools, limiter); each arm
checks uniformity, a per-rank safety predicate, and its premise: with the enforcer off
(``TP_HEAD_CONGRUENCE=0`` for order and count; the reduce skipped, each rank reading its own
payload, for the ballot, floors and layout) the same inputs really do diverge.

Hermetic (``CUDA_VISIBLE_DEVICES=""`` in every rank), bounded (10 s gloo timeout), pooled
(one warm world per size), and every rank process is reaped.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import pytest

pytest.importorskip("torch.distributed")

from hypothesis import settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tp_scheduler import Req, Scheduler, SchedulerConfig  # noqa: E402
from tp_scheduler.memory_pool import occupy  # noqa: E402
from tp_scheduler.prefetch_ballot import queue_head_digest  # noqa: E402
from tp_scheduler.tp_head_congruence import KILL_SWITCH_ENV, canonical_head  # noqa: E402

from deskcheck.errors import CongruenceError, VacuousPremiseError  # noqa: E402
from deskcheck.suites import (  # noqa: E402
    CongruenceArm,
    KillSwitch,
    RankInputs,
    check_arm,
    check_arm_property,
    decide_in_rank,
    rank_context,
    rank_queues,
)
from deskcheck.suites.arm_property import DEFAULT_SETTINGS  # noqa: E402

PROMPT_LEN = 40
RIDS = ("alpha", "bravo", "charlie", "delta", "echo")


def prompt(rid: str) -> tuple[int, ...]:
    """The replicated prompt of a rid: the same tokens in every process (CRC, not hash())."""
    base = 1000 * (1 + zlib.crc32(rid.encode()) % 100_000)
    return tuple(range(base, base + PROMPT_LEN))


@dataclass(frozen=True)
class TPRankState:
    """One TP rank's own state: arrival order, cached prefixes, pools, limiter."""

    queue: tuple[str, ...]
    cached: tuple[tuple[str, int], ...] = ()
    limiter: int = 16
    req_slots: int = 8
    token_pool: int = 4096
    prefetch_pending: tuple[str, ...] = ()

    def __repr__(self) -> str:
        cached = ", ".join(f"{rid}:{n}" for rid, n in self.cached)
        pending = f" pending=[{', '.join(self.prefetch_pending)}]" if self.prefetch_pending else ""
        return (f"queue=[{', '.join(self.queue)}] cached={{{cached}}} limiter={self.limiter} "
                f"req_slots={self.req_slots} token_pool={self.token_pool}{pending}")


# The three ranks of the reference scenario: every rank-local input differs.
DIVERGED = (
    TPRankState(("echo", "delta", "charlie", "bravo", "alpha"), (("charlie", 32), ("alpha", 8)),
                limiter=3, req_slots=8, token_pool=4096),
    TPRankState(("alpha", "bravo", "charlie", "delta", "echo"), (("alpha", 32), ("charlie", 16)),
                limiter=16, req_slots=2, token_pool=2048),
    TPRankState(("charlie", "echo", "alpha", "delta", "bravo"),
                (("bravo", 24), ("alpha", 16), ("charlie", 16)),
                limiter=4, req_slots=8, token_pool=3072),
)


def diverged(world: int) -> RankInputs:
    return RankInputs(DIVERGED[:world])


def agreeing(world: int) -> RankInputs:
    """Same arrival order on every rank; caches and pools still differ."""
    return RankInputs(tuple(TPRankState(RIDS, s.cached, s.limiter, s.req_slots, s.token_pool)
                            for s in DIVERGED[:world]))


# -- rank side --------------------------------------------------------------------------------
def build_scheduler(state: TPRankState) -> Scheduler:
    """A real Scheduler on this rank's own state, reducing over the rank pool's group."""
    import torch.distributed as dist

    ctx = rank_context()
    config = SchedulerConfig(max_running_requests=16, req_pool_size=state.req_slots,
                             token_pool_size=state.token_pool, host_pool_size=8192)
    group = dist.group.WORLD if ctx.world > 1 else None
    sched = Scheduler(tp_rank=ctx.rank, tp_size=ctx.world, tp_cpu_group=group, config=config)
    sched.admission_limiter.current = state.limiter
    for rid, length in state.cached:
        if length:
            sched.tree_cache.insert(prompt(rid)[:length], occupy(sched.token_to_kv_pool, length))
    sched.add_requests(Req(rid, prompt(rid), max_new_tokens=8) for rid in state.queue)
    sched.prefetch_pending.update(state.prefetch_pending)
    return sched


def _skip_the_reduce(sched: Scheduler) -> None:
    """Kill switch of the ballot/floor/layout arms: each rank reads its OWN payload back."""
    sched._all_reduce_min = lambda vals: [int(v) for v in vals]  # type: ignore[method-assign]


@dataclass(frozen=True)
class PassView:
    """One pass as a rank saw it: the batch (uniform) and what the rank could hold (local)."""

    rids: tuple[str, ...]
    prefix_lens: tuple[int, ...]
    count: int
    rule: str | None
    room: int = field(compare=False)
    own_match: tuple[tuple[str, int], ...] = field(compare=False)
    admit_error: str | None = field(default=None, compare=False)
    head_pending: str | None = field(default=None, compare=False)


def one_pass(state: TPRankState, reduce: bool = True) -> PassView:
    """Run one real pass (reduce + batch formation) on this rank's own state.

    ``reduce=False`` skips the reduce: every rank forms its batch from its own payload.
    """
    sched = build_scheduler(state)
    head = sched.waiting_queue[0].rid if sched.waiting_queue else None
    pending = head if head in sched.prefetch_pending else None
    if not reduce:
        _skip_the_reduce(sched)
    room = min(sched.get_num_allocatable_reqs(), sched.req_to_token_pool.available_size())
    own = tuple((req.rid, sched.tree_cache.match_len(req.origin_input_ids))
                for req in sched.waiting_queue)
    try:
        batch, error = sched.run_pass(), None
    except RuntimeError as exc:  # the allocator refused what the rank was told
        batch, error = None, str(exc)
    summary = batch.summary() if batch is not None else None
    decision = sched.last_decision
    return PassView(rids=summary.rids if summary else (),
                    prefix_lens=summary.prefix_lens if summary else (),
                    count=decision.count if decision else 0,
                    rule=decision.rule if decision else None, room=room, own_match=own,
                    admit_error=error, head_pending=pending)


def order_safety(rank: int, state: TPRankState, view: PassView) -> str | None:
    if view.admit_error:
        return f"could not seat what it was told: {view.admit_error}"
    own = dict(view.own_match)
    for rid, reused in zip(view.rids, view.prefix_lens, strict=True):
        if reused > own.get(rid, 0):
            return f"was told to reuse {reused} cached tokens of {rid} but holds {own.get(rid, 0)}"
    return None


def hold_safety(rank: int, state: TPRankState, view: PassView) -> str | None:
    if view.head_pending and view.rids:
        return (f"admitted {', '.join(view.rids)} while its queue head {view.head_pending}'s "
                f"prefetch is still in flight")
    return order_safety(rank, state, view)


def count_safety(rank: int, state: TPRankState, view: PassView) -> str | None:
    told = max(view.count, len(view.rids))
    if told > view.room:
        return f"was told to admit {told} with room for {view.room}"
    if view.admit_error:
        return f"could not seat what it was told: {view.admit_error}"
    return None


ORDER = CongruenceArm("order", one_pass, KillSwitch.from_env(KILL_SWITCH_ENV),
                      safety=order_safety, uniform=lambda v: (v.rids, v.prefix_lens))
COUNT = CongruenceArm("count", one_pass, KillSwitch.from_env(KILL_SWITCH_ENV),
                      safety=count_safety, uniform=lambda v: v.count)


@dataclass(frozen=True)
class ReduceView:
    """Every field a rank read back from the packed reduce, beside its own local votes."""

    width: int
    covered: bool | None
    evict_floor: int | None
    host_floor: int | None
    admit_limit: int | None
    head_matches: tuple[tuple[str, int], ...] | None
    verdicts: tuple[int, ...] | None
    digest_min: int | None
    digest_max: int | None
    mismatch: bool | None
    streak_total: int
    world: int = field(compare=False)
    own: dict = field(compare=False, hash=False)

    def ballot(self) -> tuple:
        return (self.digest_min, self.digest_max, self.mismatch, self.verdicts, self.streak_total)

    def floors(self) -> tuple:
        return (self.covered, self.evict_floor, self.host_floor)

    def layout(self) -> tuple:
        return (self.width, self.evict_floor, self.host_floor, self.admit_limit,
                self.head_matches, self.verdicts, self.digest_min, self.digest_max)


def read_reduce(state: TPRankState, reduce: bool = True) -> ReduceView:
    """Run the pass's packed reduce on this rank's own state; report what it read back."""
    sched = build_scheduler(state)
    sent: list[list[int]] = []
    real = sched._all_reduce_min
    if not reduce:
        _skip_the_reduce(sched)
        real = sched._all_reduce_min

    def recording(vals):
        sent.append(list(vals))
        return real(vals)

    sched._all_reduce_min = recording  # type: ignore[method-assign]
    queue_rids = [req.rid for req in sched.waiting_queue]
    canonical = canonical_head(queue_rids)
    own = {
        "evict": sched.token_to_kv_pool.available_size() + sched.tree_cache.evictable_size(),
        "host": sched.host_pool.available_size() if sched.host_pool else 0,
        "count": sched._local_admit_limit(),
        "matches": sched._local_head_prefix_matches(canonical),
        "done": int(sched._local_prefetch_done()),
        "digest": queue_head_digest(queue_rids),
    }
    sched._update_uniform_pool_budget()
    reading = sched._prefetch_ballot
    matches = sched._uniform_head_match_lens
    return ReduceView(
        width=len(sent[0]) if sent else 0, covered=sched._uniform_floor_covered,
        evict_floor=sched._uniform_evict_floor, host_floor=sched._uniform_host_floor,
        admit_limit=sched._uniform_admit_limit,
        head_matches=tuple(sorted(matches.items())) if matches is not None else None,
        verdicts=reading.verdicts if reading else None,
        digest_min=reading.digest_min if reading else None,
        digest_max=reading.digest_max if reading else None,
        mismatch=reading.mismatch if reading else None,
        streak_total=sched.ballot_streak().total, world=rank_context().world, own=own)


def ballot_safety(rank: int, state: TPRankState, view: ReduceView) -> str | None:
    own = view.own["digest"]
    if view.digest_min is None:
        return "read no ballot although its group has peers" if view.world > 1 else None
    if not view.digest_min <= own <= view.digest_max:
        return (f"read group digests [{view.digest_min}, {view.digest_max}] that exclude its "
                f"own {own}")
    if view.mismatch != (view.digest_min != view.digest_max):
        return f"read mismatch={view.mismatch} from digests [{view.digest_min}, {view.digest_max}]"
    if view.verdicts and view.verdicts[0] > view.own["done"]:
        return f"read a prefetch verdict of {view.verdicts[0]} over its own vote {view.own['done']}"
    return None


def floor_safety(rank: int, state: TPRankState, view: ReduceView) -> str | None:
    world = view.world
    if view.covered != (world > 1):
        state_word = "ON" if view.covered else "OFF"
        return f"reports floors {state_word} in a reduce group of {world}"
    if view.evict_floor is not None and view.evict_floor > view.own["evict"]:
        return (f"was given an eviction floor of {view.evict_floor} with "
                f"{view.own['evict']} of its own")
    if view.host_floor is not None and view.host_floor > view.own["host"]:
        return f"was given a host floor of {view.host_floor} with {view.own['host']} of its own"
    return None


def layout_safety(rank: int, state: TPRankState, view: ReduceView) -> str | None:
    """MIN semantics per field: whatever a field reads back is <= this rank's own vote.

    A field read from the wrong index reads another field's value and breaks this.
    """
    if view.covered is False:
        return None
    checks = [("eviction floor", view.evict_floor, view.own["evict"]),
              ("host floor", view.host_floor, view.own["host"]),
              ("group count", view.admit_limit, view.own["count"])]
    for rid, group in view.head_matches or ():
        checks.append((f"group match of {rid}", group, view.own["matches"].get(rid, -1)))
    if view.verdicts:
        checks.append(("prefetch verdict", view.verdicts[0], view.own["done"]))
    if view.digest_min is not None:
        checks.append(("digest minimum", view.digest_min, view.own["digest"]))
    for name, read, own in checks:
        if read is not None and read > own:
            return f"read a {name} of {read} above its own {own} (payload of {view.width})"
    if view.digest_max is not None and view.digest_max < view.own["digest"]:
        return f"read a digest maximum of {view.digest_max} below its own {view.own['digest']}"
    return None


REDUCE_OFF = KillSwitch.from_keyword("reduce", False)
HEAD_HOLD = CongruenceArm("prefetch-head-hold", one_pass, REDUCE_OFF, safety=hold_safety,
                          uniform=lambda v: (v.rids, v.prefix_lens))
BALLOT = CongruenceArm("ballot-digest", read_reduce, REDUCE_OFF, safety=ballot_safety,
                       uniform=ReduceView.ballot)
FLOOR_SCOPE = CongruenceArm("floor-scope", read_reduce, REDUCE_OFF, safety=floor_safety,
                            uniform=ReduceView.floors)
LAYOUT = CongruenceArm("packed-slot-layout", read_reduce, REDUCE_OFF, safety=layout_safety,
                       uniform=ReduceView.layout)


# -- the suites -------------------------------------------------------------------------------
pytestmark = [pytest.mark.world(2, 3), pytest.mark.backend("gloo")]


@pytest.fixture(autouse=True)
def _enforcer_on(monkeypatch):
    monkeypatch.delenv(KILL_SWITCH_ENV, raising=False)


def test_order_arm(rank_pool, world):
    result = check_arm(ORDER, diverged(world), rank_pool)
    assert result.decisions[0] == (("charlie", "alpha"), (16, 8))
    assert len(set(result.premise)) == world, "rank-local batches differ on every rank"
    views = rank_pool.run(one_pass, per_rank=list(diverged(world)))
    assert {v.rule for v in views} == {"group:ballot-mismatch"}, "a mismatch does not fall back"


def test_order_arm_with_agreeing_queue_heads(rank_pool, world):
    result = check_arm(ORDER, agreeing(world), rank_pool)
    assert result.decisions[0] == (("charlie", "alpha"), (16, 8))
    assert {v.rule for v in rank_pool.run(one_pass, per_rank=list(agreeing(world)))} == {"group"}


def test_a_prefetch_pending_on_one_rank_holds_the_head_on_every_rank(rank_pool, world):
    """The ballot's verdict arm: rank 1 alone still waits for the head's prefetch."""
    inputs = RankInputs(tuple(
        TPRankState(s.queue, s.cached, s.limiter, s.req_slots, s.token_pool,
                    prefetch_pending=("alpha",) if r == 1 else ())
        for r, s in enumerate(agreeing(world))))
    result = check_arm(HEAD_HOLD, inputs, rank_pool)
    assert result.decisions == (((), ()),) * world
    assert result.premise[1] == ((), ()) and result.premise[0] != ((), ())


def tight(world: int) -> RankInputs:
    """Diverged state, token pools so small on rank 1 (60 = 48 cached + 12 free) that the
    group's eviction floor, not the count, ends the batch."""
    return RankInputs(tuple(TPRankState(s.queue, s.cached, s.limiter, s.req_slots, pool)
                            for s, pool in zip(DIVERGED[:world], (200, 60, 120), strict=False)))


def test_the_poorest_token_budget_binds_every_rank(rank_pool, world):
    result = check_arm(ORDER, tight(world), rank_pool)
    assert result.decisions[0] == (("charlie",), (16,))
    counts = check_arm(COUNT, tight(world), rank_pool, premise=False).decisions
    assert counts == (2,) * world, "the count allowed two; the tokens bound the batch to one"


def test_count_arm(rank_pool, world):
    result = check_arm(COUNT, diverged(world), rank_pool)
    assert result.decisions == (2,) * world, "the poorest rank's room binds every rank"
    assert len(set(result.premise)) > 1
    local = rank_pool.run(decide_in_rank, one_pass, COUNT.kill_switch, False,
                          per_rank=list(diverged(world)))
    assert {v.rule for v in local} == {"rank-local:kill-switch"}
    pairs = enumerate(zip(diverged(world), local, strict=True))
    assert [count_safety(r, s, v) for r, (s, v) in pairs] == [None] * world, \
        "rank-local formation stays within each rank's own room"


def test_ballot_digest_arm(rank_pool, world):
    result = check_arm(BALLOT, diverged(world), rank_pool)
    digest_min, digest_max, mismatch, verdicts, streak_total = result.decisions[0]
    assert mismatch is True and digest_min < digest_max and verdicts == (1,)
    assert streak_total == 1, "every rank counts the parted heads on the same pass"


def test_ballot_stands_when_queue_heads_agree(rank_pool, world):
    """The pin beside the arm: agreeing heads (premise does not apply) read no mismatch."""
    result = check_arm(BALLOT, agreeing(world), rank_pool, premise=False)
    digest_min, digest_max, mismatch, _verdicts, streak_total = result.decisions[0]
    assert mismatch is False and digest_min == digest_max != 0 and streak_total == 0
    with pytest.raises(VacuousPremiseError, match="is vacuous"):
        check_arm(BALLOT, agreeing(world), rank_pool)


def test_floor_scope_arm(rank_pool, world):
    result = check_arm(FLOOR_SCOPE, diverged(world), rank_pool)
    covered, evict_floor, _host = result.decisions[0]
    assert covered is True
    assert evict_floor == min(s.token_pool for s in DIVERGED[:world])


def test_packed_slot_layout_arm(rank_pool, world):
    result = check_arm(LAYOUT, diverged(world), rank_pool)
    width = result.decisions[0][0]
    assert width == 2 + 1 + 3 * 8 + 3, "floors, count, 8 head triples, verdict + digest pair"


# Two TP groups in one world (DP attention): each group must reduce over its OWN ranks.
TWO_GROUPS = (*DIVERGED, TPRankState(("alpha", "bravo"), limiter=8, req_slots=8, token_pool=1536))


def floors_in_two_tp_groups(state: TPRankState) -> tuple[int | None, int]:
    """A world of 4 as TP groups {0, 1} and {2, 3}: this rank's scheduler reduces over its
    own TP group; returns (the eviction floor it read, its own eviction room)."""
    import torch.distributed as dist

    ctx = rank_context()
    groups = [dist.new_group([0, 1]), dist.new_group([2, 3])]  # every rank makes both
    config = SchedulerConfig(max_running_requests=16, req_pool_size=state.req_slots,
                             token_pool_size=state.token_pool, host_pool_size=8192)
    sched = Scheduler(tp_rank=ctx.rank % 2, tp_size=2, tp_cpu_group=groups[ctx.rank // 2],
                      config=config)
    sched.add_requests(Req(rid, prompt(rid), max_new_tokens=8) for rid in state.queue)
    own = sched.token_to_kv_pool.available_size() + sched.tree_cache.evictable_size()
    sched._update_uniform_pool_budget()
    return sched._uniform_evict_floor, own


def test_each_tp_group_agrees_on_its_own_floor():
    from deskcheck.suites import rank_pool

    floors = rank_pool(4, "gloo").run(floors_in_two_tp_groups, per_rank=list(TWO_GROUPS))
    expected = [min(floors[0][1], floors[1][1])] * 2 + [min(floors[2][1], floors[3][1])] * 2
    assert expected[0] != expected[2], "premise: the two TP groups must hold different rooms"
    read = [floor for floor, _own in floors]
    assert read == expected, (f"each TP group must agree on the MIN of its own ranks: ranks "
                              f"read eviction floors {read}, expected {expected} (a reduce "
                              f"over another group than the TP group?)")


def test_a_group_of_one_has_its_floors_off():
    from deskcheck.suites import rank_pool

    result = check_arm(FLOOR_SCOPE, RankInputs(DIVERGED[:1]), rank_pool(1, "gloo"),
                       premise=False)  # one rank cannot diverge: the premise has no meaning
    assert result.decisions == ((False, None, None),)


# Drawn states: per-rank queue orders, absent rids, prefix matches and request-slot pools.
def _state(view) -> TPRankState:
    return TPRankState(view.queue, tuple((rid, min(n, PROMPT_LEN)) for rid, n in view.prefix),
                       req_slots=max(1, view.free_slots or 0))


def drawn_states(world: int) -> st.SearchStrategy[RankInputs]:
    return rank_queues(world, max_rids=5, max_len=PROMPT_LEN, unpriced=False).map(
        lambda inputs: RankInputs(tuple(_state(v) for v in inputs)))


DRAWN = settings(DEFAULT_SETTINGS, max_examples=25)


@pytest.mark.parametrize("arm", [ORDER, COUNT, LAYOUT], ids=lambda arm: arm.name)
def test_arms_hold_over_drawn_rank_states(rank_pool, world, arm):
    tally = check_arm_property(arm, drawn_states(world), rank_pool, hypothesis_settings=DRAWN)
    assert tally.premise_diverged == 1


def test_a_failure_names_the_rank_and_shows_every_rank(rank_pool, world):
    """The suite's own can-fail arm: rank 0 forms its batch rank-locally, and is named."""
    with pytest.raises(CongruenceError) as info:
        check_arm(COUNT_LOCAL_ON_RANK_ZERO, diverged(world), rank_pool)
    message = str(info.value)
    expected = {2: "rank 1 diverged: decided 2 where rank 0 decided 3",
                3: "rank 0 diverged: decided 3 where ranks 1 and 2 decided 2"}[world]
    assert expected in message, message
    assert all(f"  rank {r}: input queue=[" in message for r in range(world))


def one_pass_local_on_rank_zero(state: TPRankState) -> PassView:
    """A planted defect: rank 0 alone forms its batch with the enforcer off."""
    import os

    if rank_context().rank == 0:
        os.environ[KILL_SWITCH_ENV] = "0"
    try:
        return one_pass(state)
    finally:
        os.environ.pop(KILL_SWITCH_ENV, None)


COUNT_LOCAL_ON_RANK_ZERO = CongruenceArm("count", one_pass_local_on_rank_zero,
                                         KillSwitch.from_env(KILL_SWITCH_ENV),
                                         safety=count_safety, uniform=lambda v: v.count)


def ballot_lifecycle(state: TPRankState) -> tuple[tuple[str, ...], int, int]:
    """Two passes with parted queue heads, then agreement: onset, persistence, recovery."""
    sched = build_scheduler(state)
    for _ in range(2):
        sched._update_uniform_pool_budget()
    by_rid = {req.rid: req for req in sched.waiting_queue}
    sched.waiting_queue[:] = [by_rid[rid] for rid in RIDS]
    sched._update_uniform_pool_budget()
    streak = sched.ballot_streak()
    kinds = tuple(line.split(":")[0] for line in sched._ballot_reports)
    last = sched._ballot_reports[-1] if sched._ballot_reports else ""
    return kinds + (last[last.index("ended_length"):] if "ended_length" in last else "",), \
        streak.streak, streak.total


@pytest.mark.world(3)
def test_the_detector_reports_onset_persistence_and_recovery(rank_pool):
    expected = (("prefetch ballot onset", "prefetch ballot persists",
                  "prefetch ballot recovered", "ended_length=2 total=2"), 0, 2)
    for rank, got in enumerate(rank_pool.run(ballot_lifecycle, per_rank=list(diverged(3)))):
        assert got == expected, f"rank {rank} reported {got}, expected {expected}"


def skip_the_reduce_on_rank_one(state: TPRankState) -> bool:
    """A rank that takes another branch and never enters the pass's collective."""
    if rank_context().rank == 1:
        return False
    build_scheduler(state)._update_uniform_pool_budget()
    return True


@pytest.mark.world(2)
def test_a_rank_that_skips_the_reduce_is_named_within_the_timeout():
    from deskcheck.errors import RankTimeoutError
    from deskcheck.suites import RankPool

    with RankPool(2, "gloo", timeout_s=1.0) as pool:
        with pytest.raises(RankTimeoutError, match=r"rank 1 skipped all_reduce #1: returned "
                                                   r"after 0 collectives while rank 0 waited"):
            pool.run(skip_the_reduce_on_rank_one, per_rank=list(diverged(2)))
