"""Rank-input strategies: shapes, invariants, and shrinking to a minimal per-rank example."""

from __future__ import annotations

from hypothesis import find, given, settings
from hypothesis import strategies as st

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

QUICK = settings(max_examples=60, deadline=None, database=None)


@QUICK
@given(rank_queues(min_world=2, max_world=3))
def test_rank_queues_are_rank_local_views_of_one_rid_set(inputs):
    assert isinstance(inputs, RankInputs) and 2 <= len(inputs) <= 3
    union = set().union(*(set(view.queue) for view in inputs))
    for view in inputs:
        assert isinstance(view, RankQueue)
        assert len(set(view.queue)) == len(view.queue), "a queue holds each rid once"
        assert set(view.prefix_matches) == set(view.queue)
        assert all(0 <= n <= 64 for n in view.prefix_matches.values())
        assert view.free_slots is None or 0 <= view.free_slots <= 8
    assert union, "the shared rid set is never empty"


@QUICK
@given(st.data())
def test_every_rid_is_held_by_some_rank(data):
    rids = data.draw(rid_sets(1, 5))
    world = data.draw(world_sizes(2, 4))
    held = data.draw(absent_on_some_ranks(rids, world))
    assert len(held) == world
    assert set().union(*held) == set(rids)


@QUICK
@given(st.data())
def test_building_blocks_have_one_entry_per_rank(data):
    rids = data.draw(rid_sets())
    world = data.draw(world_sizes())
    assert all(sorted(order) == sorted(rids)
               for order in data.draw(per_rank_permutations(rids, world)))
    assert all(set(m) == set(rids) for m in data.draw(prefix_match_lengths(rids, world)))
    assert len(data.draw(free_pools(world))) == world
    assert len(data.draw(unpriced_ranks(world))) == world


def test_fixed_world_and_switches_are_honoured():
    example = find(rank_queues(3, absent=False, unpriced=False), lambda inputs: True)
    assert len(example) == 3
    assert all(view.priced for view in example)
    assert len({frozenset(view.queue) for view in example}) == 1


def test_per_rank_builds_inputs_from_a_strategy_per_rank():
    example = find(per_rank(3, lambda r: st.just(r * 10)), lambda inputs: True)
    assert list(example) == [0, 10, 20]
    assert repr(example) == "RankInputs(\n  rank 0: 0,\n  rank 1: 10,\n  rank 2: 20,\n)"
