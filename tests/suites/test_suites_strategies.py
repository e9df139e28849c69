"""Rank-input strategies: shapes, invariants, and shrinking to a minimal per-rank example."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from deskcheck.suites import RankInputs, RankQueue, rank_queues
from deskcheck.suites.strategies import (
    absent_on_some_ranks,
    free_pools,
    per_rank,
    per_rank_permutations,
    prefix_match_lengths,
    rid_sets,
    unpriced_ranks,
    world_sizes,
)

QUICK = settings(max_examples=60, deadline=None, database=None, derandomize=True)


@QUICK
@given(rank_queues(min_world=2, max_world=3))
def test_rank_queues_are_rank_local_views_of_one_rid_set(inputs):
    assert isinstance(inputs, RankInputs) and 2 <= len(inputs) <= 3, (
        "rank_queues(min_world=2, max_world=3) must draw RankInputs of 2 to 3 ranks; it drew "
        f"{inputs!r}"
    )
    union = set().union(*(set(view.queue) for view in inputs))
    for view in inputs:
        assert isinstance(view, RankQueue), f"each rank's view must be a RankQueue; it is {view!r}"
        assert len(set(view.queue)) == len(view.queue), "a queue holds each rid once"
        assert set(view.prefix_matches) == set(view.queue), (
            "a rank must have a prefix match for each rid of its queue, and only those; it has "
            f"{view!r}"
        )
        assert all(0 <= n <= 64 for n in view.prefix_matches.values()), (
            f"prefix match lengths must be in 0..64; they are {view.prefix_matches}"
        )
        assert view.free_slots is None or 0 <= view.free_slots <= 8, (
            f"free slots must be None (unpriced) or in 0..8; they are {view.free_slots}"
        )
    assert union, "the shared rid set is never empty"


@QUICK
@given(st.data())
def test_every_rid_is_held_by_some_rank(data):
    rids = data.draw(rid_sets(1, 5))
    world = data.draw(world_sizes(2, 4))
    held = data.draw(absent_on_some_ranks(rids, world))
    assert len(held) == world, (
        f"absent_on_some_ranks must give one rid set per rank ({world}); it gave {held}"
    )
    assert set().union(*held) == set(rids), (
        f"every rid of {rids} must be held by some rank; the ranks hold {held}"
    )


@QUICK
@given(st.data())
def test_building_blocks_have_one_entry_per_rank(data):
    rids = data.draw(rid_sets())
    world = data.draw(world_sizes())
    assert all(sorted(order) == sorted(rids)
               for order in data.draw(per_rank_permutations(rids, world))), (
        f"per_rank_permutations must give each rank a permutation of {rids}"
    )
    assert all(set(m) == set(rids) for m in data.draw(prefix_match_lengths(rids, world))), (
        f"prefix_match_lengths must give each rank a length for every rid of {rids}"
    )
    assert len(data.draw(free_pools(world))) == world, (
        f"free_pools must give one entry per rank ({world})"
    )
    assert len(data.draw(unpriced_ranks(world))) == world, (
        f"unpriced_ranks must give one entry per rank ({world})"
    )


def test_fixed_world_and_switches_are_honoured():
    example = find(rank_queues(3, absent=False, unpriced=False), lambda inputs: True)
    assert len(example) == 3, f"rank_queues(3) must draw 3 ranks; it drew {example!r}"
    assert all(view.priced for view in example), (
        f"unpriced=False must price every rank; it drew {example!r}"
    )
    assert len({frozenset(view.queue) for view in example}) == 1, (
        f"absent=False must give every rank the same rid set; it drew {example!r}"
    )


def test_per_rank_builds_inputs_from_a_strategy_per_rank():
    example = find(per_rank(3, lambda r: st.just(r * 10)), lambda inputs: True)
    assert list(example) == [0, 10, 20], (
        f"per_rank must build rank r's input from its strategy (r * 10); it built {list(example)}"
    )
    assert repr(example) == "RankInputs(\n  rank 0: 0,\n  rank 1: 10,\n  rank 2: 20,\n)", (
        f"RankInputs must print rank by rank; it prints:\n{example!r}"
    )


@pytest.mark.parametrize(("switch", "condition"), [
    ("absent", lambda xs: len({frozenset(v.queue) for v in xs}) > 1),
    ("unpriced", lambda xs: not all(v.priced for v in xs)),
])
def test_the_switches_on_by_default_do_draw_absent_rids_and_unpriced_ranks(switch, condition):
    try:
        find(rank_queues(3), condition, settings=settings(QUICK, max_examples=300))
    except NoSuchExample:
        pytest.fail(f"rank_queues({switch}= on by default) must draw "
                    f"{'rids absent on some ranks' if switch == 'absent' else 'unpriced ranks'}; "
                    "300 draws had none")


def test_a_drawn_world_stays_within_min_and_max_and_shrinks_to_the_replicated_case():
    seen = set()

    @QUICK
    @given(rank_queues(min_world=2, max_world=4))
    def worlds(inputs):
        seen.add(len(inputs))

    worlds()
    assert seen <= {2, 3, 4} and 4 in seen, (
        f"rank_queues(min_world=2, max_world=4) must draw worlds 2 to 4, both ends included; it "
        f"drew {sorted(seen)}")
    minimal = find(rank_queues(min_world=2, max_world=4), lambda inputs: True)
    assert len(minimal) == 2 and len(set(minimal)) == 1, (
        "everything shrinks toward the replicated case: the minimal draw is world 2 with every "
        f"rank holding the same queue, prefix and room; it is {minimal!r}")
