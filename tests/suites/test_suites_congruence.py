"""Congruence arms on real gloo ranks: uniformity, safety, premise, each shown failing too."""

from __future__ import annotations

import sys

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from deskcheck.errors import CongruenceError, RankTimeoutError, VacuousPremiseError
from deskcheck.suites import (
    CongruenceArm,
    KillSwitch,
    RankInputs,
    RankPool,
    RankQueue,
    check_arm,
    check_arm_property,
    diverging_ranks,
    rank_queues,
)
from deskcheck.suites.arm_property import DEFAULT_SETTINGS
from deskcheck.suites.strategies import per_rank
from tests.suites import _decisions as D

pytestmark = pytest.mark.xdist_group("deskcheck-suites")
FEW = settings(DEFAULT_SETTINGS, max_examples=15)


def queue(order: str, prefix: dict[str, int], free: int | None = 4) -> RankQueue:
    rids = tuple(order.split())
    return RankQueue(rids, tuple((r, prefix[r]) for r in rids), free)


# -- pure helpers ----------------------------------------------------------------------------
def test_the_largest_agreeing_group_is_the_reference():
    assert diverging_ranks([3, 3, 2]) == ([0, 1], [2]), (
        "ranks 0 and 1 agree on 3: rank 2 must be the one that diverged; diverging_ranks gave "
        f"{diverging_ranks([3, 3, 2])}"
    )
    assert diverging_ranks([2, 3, 3]) == ([1, 2], [0]), (
        "ranks 1 and 2 agree on 3: rank 0 must be the one that diverged; diverging_ranks gave "
        f"{diverging_ranks([2, 3, 3])}"
    )
    assert diverging_ranks([1, 2]) == ([0], [1]), "a tie goes to the group with rank 0"
    assert diverging_ranks([5, 5, 5]) == ([0, 1, 2], []), (
        "three equal decisions must agree with no diverging rank; diverging_ranks gave "
        f"{diverging_ranks([5, 5, 5])}"
    )


def test_an_arm_records_where_it_was_declared():
    line = sys._getframe().f_lineno + 1
    arm = CongruenceArm("x", D.count_decision, KillSwitch.from_env("X"))
    assert arm.defined_at == f"{__file__}:{line}", (
        f"an arm must record the file:line where it was declared, {__file__}:{line}; it recorded "
        f"{arm.defined_at}"
    )


def test_kill_switch_descriptions():
    assert KillSwitch.from_env("TP_HEAD_CONGRUENCE").describe() == "TP_HEAD_CONGRUENCE=0", (
        "an env kill switch must read TP_HEAD_CONGRUENCE=0; it reads "
        f"{KillSwitch.from_env('TP_HEAD_CONGRUENCE').describe()!r}"
    )
    assert KillSwitch.from_keyword("enforce").describe() == "enforce=False", (
        "a keyword kill switch must read enforce=False; it reads "
        f"{KillSwitch.from_keyword('enforce').describe()!r}"
    )
    assert KillSwitch.from_context(D.enforcer_forced_off).describe() == "enforcer_forced_off()", (
        "a context kill switch must read enforcer_forced_off(); it reads "
        f"{KillSwitch.from_context(D.enforcer_forced_off).describe()!r}"
    )


# -- fixed inputs ----------------------------------------------------------------------------
@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo")
@pytest.mark.parametrize("arm", [D.COUNT, D.COUNT_BY_KEYWORD, D.COUNT_BY_CONTEXT],
                         ids=["env", "keyword", "context"])
def test_a_min_reduced_count_holds_and_its_premise_diverges(rank_pool, world, arm):
    free = [4, 1, 3][:world]
    result = check_arm(arm, free, rank_pool)
    assert result.decisions == (1,) * world, (
        f"a min-reduced count must decide 1 on every rank; it decided {result.decisions}"
    )
    assert result.premise == tuple(free) and result.premise_diverged, (
        f"the premise must be the rank inputs {tuple(free)} and diverge; it is {result.premise}, "
        f"diverged={result.premise_diverged}"
    )


@pytest.mark.world(3)
@pytest.mark.backend("gloo")
def test_a_rank_local_count_is_named_rank_by_rank(rank_pool):
    with pytest.raises(CongruenceError) as info:
        check_arm(D.COUNT_LOCAL_ONLY, [3, 3, 1], rank_pool)
    message = str(info.value)
    assert "rank 2 diverged: decided 1 where ranks 0 and 1 decided 3" in message, (
        "a rank-local count must name rank 2 as diverged from ranks 0 and 1; the error says:\n"
        f"{message}"
    )
    assert "rank by rank (enforcer on):\n  rank 0: input 3 | decided: 3\n" \
           "  rank 1: input 3 | decided: 3\n  rank 2: input 1 | decided: 1" in message, (
        f"the error must show the rank-by-rank table with the enforcer on; it says:\n{message}"
    )
    assert isinstance(info.value, AssertionError), (
        "a CongruenceError must be an AssertionError (pytest shows it as a failure); it is "
        f"{type(info.value).__mro__}"
    )


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_an_agreed_count_above_a_ranks_room_breaks_safety(rank_pool):
    with pytest.raises(CongruenceError) as info:
        check_arm(D.COUNT_MAX, [3, 1], rank_pool)
    message = str(info.value)
    assert "rank 1 was told to admit 3 with room for 1" in message, (
        "an agreed count above a rank's room must break safety naming rank 1; the error says:\n"
        f"{message}"
    )
    assert "diverged" not in message, "the MAX count is uniform; only safety fails"


@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo")
def test_inputs_that_never_diverge_make_the_arm_vacuous(rank_pool, world):
    with pytest.raises(VacuousPremiseError) as info:
        check_arm(D.COUNT, [2] * world, rank_pool)
    message = str(info.value)
    assert "is vacuous: with the enforcer off (DESKCHECK_TEST_ENFORCER=0) every rank still " \
           "decided 2" in message, (
        "inputs that never diverge must make the arm vacuous with the enforcer off; the error "
        f"says:\n{message}"
    )
    assert check_arm(D.COUNT, [2] * world, rank_pool, premise=False).premise is None, (
        "with premise=False the vacuity check must be skipped (premise None)"
    )


@pytest.mark.world(3)
@pytest.mark.backend("gloo")
def test_the_order_arm_agrees_on_a_group_order_from_diverged_queues(rank_pool):
    inputs = [queue("a b c", {"a": 1, "b": 9, "c": 4}),
              queue("c a b", {"a": 5, "b": 2, "c": 4}),
              queue("b c a", {"a": 5, "b": 9, "c": 0})]
    result = check_arm(D.ORDER, inputs, rank_pool)
    assert result.decisions == (("b", "a", "c"),) * 3, (
        "the order arm must agree on the group order (b, a, c) on every rank; it decided "
        f"{result.decisions}"
    )
    assert len(set(result.premise)) == 3, "rank-local orders: three different heads"
    with pytest.raises(CongruenceError, match=r"rank 1 diverged: decided \('a', 'c', 'b'\) "
                                              r"where rank 0 decided \('b', 'c', 'a'\)"):
        check_arm(D.ORDER_LOCAL_KEY, inputs, rank_pool)


def test_check_arm_wants_one_input_per_rank():
    class FakePool:
        world = 3

    with pytest.raises(ValueError, match="2 rank inputs for a world of 3"):
        check_arm(D.COUNT, [1, 2], FakePool())


# -- drawn inputs ----------------------------------------------------------------------------
@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo")
def test_the_queue_count_property_holds_over_drawn_rank_inputs(rank_pool, world):
    tally = check_arm_property(D.QUEUE_COUNT, rank_queues(world), rank_pool,
                               hypothesis_settings=FEW)
    assert tally.examples == 15 and tally.premise_diverged == 1, (
        "the property must run 15 examples with the premise diverging in 1; it ran "
        f"{tally.examples}, diverged {tally.premise_diverged}"
    )


def test_drawn_worlds_use_the_warm_pool_for_each_world():
    tally = check_arm_property(D.QUEUE_COUNT, rank_queues(min_world=2, max_world=3), "gloo",
                               hypothesis_settings=FEW)
    assert tally.examples == 15, (
        f"drawn worlds must run all 15 examples on the warm pools; it ran {tally.examples}"
    )


def test_a_counterexample_is_shrunk_and_printed_rank_by_rank():
    with pytest.raises(CongruenceError) as info:
        check_arm_property(D.QUEUE_COUNT_LOCAL, rank_queues(min_world=2, max_world=3), "gloo",
                           hypothesis_settings=settings(FEW, max_examples=60, derandomize=True))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    # minimal: two ranks, one rid; the unpriced rank keeps its room, the other has none
    assert "drawn=RankInputs(\n" \
           "      rank 0: queue=[r0] prefix={r0:0} free=0,\n" \
           "      rank 1: queue=[r0] prefix={r0:0} unpriced,\n" \
           "    )," in notes, notes
    assert "rank 1 diverged: decided 1 where rank 0 decided 0" in str(info.value), (
        "the shrunk counterexample must say rank 1 diverged from rank 0; it says "
        f"{str(info.value)!r}"
    )


def test_a_property_whose_draws_never_diverge_is_vacuous():
    same_everywhere = st.integers(0, 9).map(lambda free: RankInputs((free, free)))
    with pytest.raises(VacuousPremiseError, match=r"is vacuous: in 10 drawn examples none made "
                                                  r"the ranks diverge"):
        check_arm_property(D.COUNT, same_everywhere, "gloo", hypothesis_settings=FEW)


def test_a_hang_stops_the_search_instead_of_shrinking():
    arm = CongruenceArm("skip", D.skip_collective_on, KillSwitch.from_env("UNUSED"))
    with RankPool(2, "gloo", timeout_s=1.0) as pool:
        with pytest.raises(RankTimeoutError) as info:
            check_arm_property(arm, per_rank(2, lambda _r: st.just(1)), pool,
                               hypothesis_settings=FEW)
    notes = "\n".join(info.value.__notes__)
    assert "rank 1 skipped all_reduce #1" in str(info.value), (
        "a hang must name the skipped collective, rank 1 skipped all_reduce #1; it says "
        f"{str(info.value)!r}"
    )
    assert "hung on this example (not shrunk" in notes, (
        "a hang must stop the search: the notes must say hung on this example (not shrunk; they "
        f"say:\n{notes}"
    )
    assert "RankInputs(\n  rank 0: 1,\n  rank 1: 1,\n)" in notes, (
        f"a hang must print the example rank by rank; the notes say:\n{notes}"
    )


def test_rank_inputs_print_rank_by_rank():
    inputs = RankInputs((queue("a b", {"a": 1, "b": 2}), queue("b", {"b": 0}, None)))
    assert repr(inputs) == ("RankInputs(\n  rank 0: queue=[a, b] prefix={a:1, b:2} free=4,\n"
                            "  rank 1: queue=[b] prefix={b:0} unpriced,\n)"), (
        f"RankInputs must print rank by rank; it prints:\n{inputs!r}"
    )


def test_equal_decisions_agree_whatever_their_repr():
    assert diverging_ranks([{"a": 1, "b": 2}, {"b": 2, "a": 1}]) == ([0, 1], []), (
        "equal dicts in another order must agree; diverging_ranks gave "
        f"{diverging_ranks([{'a': 1, 'b': 2}, {'b': 2, 'a': 1}])}"
    )
    assert diverging_ranks([{"a": 1}, {"a": 2}]) == ([0], [1]), (
        "different dicts must diverge; diverging_ranks gave "
        f"{diverging_ranks([{'a': 1}, {'a': 2}])}"
    )
