"""SchedulePolicy.calc_priority and PrefillAdder's token budget."""

from __future__ import annotations

import pytest
from tp_scheduler import (
    AddReqResult,
    HostKVPool,
    PrefillAdder,
    RadixCache,
    Req,
    SchedulePolicy,
    TokenToKVPool,
)
from tp_scheduler.memory_pool import occupy


def cache_with(prefixes: dict[tuple[int, ...], int], pool_size: int = 256, host: int | None = None):
    pool = TokenToKVPool(pool_size)
    cache = RadixCache(pool, HostKVPool(host) if host is not None else None)
    for tokens, length in prefixes.items():
        cache.insert(tokens[:length], occupy(pool, length))
    return cache, pool


A = tuple(range(100, 120))
B = tuple(range(200, 220))
C = tuple(range(300, 320))


class TestCalcPriority:
    def test_lpm_sorts_by_this_ranks_prefix_match(self):
        cache, _ = cache_with({B: 12, C: 4})
        queue = [Req("a", A), Req("b", B), Req("c", C)]
        assert SchedulePolicy("lpm", cache).calc_priority(queue) is True
        assert [r.rid for r in queue] == ["b", "c", "a"]
        assert [r.num_matched_prefix_tokens for r in queue] == [12, 4, 0]

    def test_lpm_keeps_arrival_order_among_equals(self):
        cache, _ = cache_with({})
        queue = [Req("z", A), Req("y", B), Req("x", C)]
        SchedulePolicy("lpm", cache).calc_priority(queue)
        assert [r.rid for r in queue] == ["z", "y", "x"]

    def test_the_same_queue_orders_differently_on_different_caches(self):
        orders = []
        for prefixes in ({A: 10}, {C: 10}):
            cache, _ = cache_with(prefixes)
            queue = [Req("a", A), Req("b", B), Req("c", C)]
            SchedulePolicy("lpm", cache).calc_priority(queue)
            orders.append([r.rid for r in queue])
        assert orders[0] != orders[1]

    def test_fcfs_leaves_the_queue_alone(self):
        cache, _ = cache_with({C: 10})
        queue = [Req("a", A), Req("c", C)]
        assert SchedulePolicy("fcfs", cache).calc_priority(queue) is False
        assert [r.rid for r in queue] == ["a", "c"]

    def test_an_unknown_policy_is_refused(self):
        with pytest.raises(ValueError, match="unknown schedule policy"):
            SchedulePolicy("random", cache_with({})[0])


class TestRemTotalTokens:
    def test_reads_pool_evictable_and_offset(self):
        cache, pool = cache_with({A: 20}, pool_size=100)
        adder = PrefillAdder(cache, pool, rem_input_tokens=1000, rem_total_token_offset=5)
        assert adder.rem_total_tokens == 80 + 20 - 5

    def test_the_eviction_floor_caps_the_budget(self):
        cache, pool = cache_with({A: 20}, pool_size=100)
        adder = PrefillAdder(cache, pool, rem_input_tokens=1000, evict_floor=60)
        assert adder.rem_total_tokens == 60

    def test_the_host_floor_caps_the_evictable_part(self):
        cache, pool = cache_with({A: 20}, pool_size=100, host=64)
        adder = PrefillAdder(cache, pool, rem_input_tokens=1000, host_floor=5)
        assert adder.rem_total_tokens == 80 + 5

    def test_floors_off_means_the_local_budget(self):
        cache, pool = cache_with({}, pool_size=50)
        assert PrefillAdder(cache, pool, rem_input_tokens=10).rem_total_tokens == 50

    def test_a_group_prices_only_the_floor_and_nothing_without_one(self):
        """Only a group of one prices its own pools: a TP group without this pass's floor
        (formation before the reduce) admits nothing rather than each rank its own budget."""
        cache, pool = cache_with({A: 20}, pool_size=100)
        group = PrefillAdder(cache, pool, rem_input_tokens=1000, tp_size=2)
        assert group.rem_total_tokens == 0, (
            f"a TP group without a floor priced {group.rem_total_tokens}: this rank's own pools")
        floored = PrefillAdder(cache, pool, rem_input_tokens=1000, evict_floor=70, tp_size=2)
        assert floored.rem_total_tokens == 70


class TestAddOneReq:
    def test_admits_and_charges_the_extend_and_reserve(self):
        cache, pool = cache_with({A: 8}, pool_size=64)
        adder = PrefillAdder(cache, pool, rem_input_tokens=100)
        assert adder.add_one_req(Req("a", A), prefix_len=8, reserve_tokens=4) is AddReqResult.CONTINUE
        assert adder.rem_total_token_offset == 12 + 4
        assert adder.rem_input_tokens == 100 - 12
        assert (adder.log_hit_tokens, adder.prefix_lens) == (8, [8])

    def test_no_token_when_the_budget_cannot_hold_it(self):
        cache, pool = cache_with({}, pool_size=30)
        adder = PrefillAdder(cache, pool, rem_input_tokens=100)
        assert adder.add_one_req(Req("a", A), 0) is AddReqResult.CONTINUE
        assert adder.add_one_req(Req("b", B), 0) is AddReqResult.NO_TOKEN
        assert [r.rid for r in adder.can_run_list] == ["a"]

    def test_the_reused_prefix_does_not_count_as_evictable_for_itself(self):
        # 10 free + 10 evictable: a 20-token prompt reusing those 10 needs 10 fresh tokens;
        # the locked prefix must not also be counted as room.
        cache, pool = cache_with({A: 10}, pool_size=20)
        adder = PrefillAdder(cache, pool, rem_input_tokens=100)
        assert adder.add_one_req(Req("a", A), prefix_len=10, reserve_tokens=1) is AddReqResult.NO_TOKEN
        assert cache.evictable_size() == 10  # the pricing lock was released

    def test_the_input_budget_stops_the_loop_after_the_first(self):
        cache, pool = cache_with({}, pool_size=200)
        adder = PrefillAdder(cache, pool, rem_input_tokens=25)
        assert adder.add_one_req(Req("a", A), 0) is AddReqResult.CONTINUE
        assert adder.add_one_req(Req("b", B), 0) is AddReqResult.OTHER

    def test_a_prefix_outside_the_prompt_is_refused(self):
        cache, pool = cache_with({})
        with pytest.raises(ValueError, match="prefix_len"):
            PrefillAdder(cache, pool, 10).add_one_req(Req("a", A), prefix_len=20)
