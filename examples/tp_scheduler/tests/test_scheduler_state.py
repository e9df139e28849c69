"""Per-rank state (radix cache, pools, limiter) and the Scheduler at a TP world of one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tp_scheduler import (
    AdmissionLimiter,
    HostKVPool,
    RadixCache,
    Req,
    ReqToTokenPool,
    Scheduler,
    SchedulerConfig,
    TokenToKVPool,
)
from tp_scheduler.memory_pool import occupy

A = tuple(range(10, 30))
B = tuple(range(10, 20)) + tuple(range(90, 100))


class TestPools:
    def test_alloc_and_free_track_available_size(self):
        pool = ReqToTokenPool(3)
        taken = pool.alloc(2)
        assert pool.available_size() == 1 and len(taken) == 2
        assert pool.alloc(2) is None and pool.available_size() == 1
        pool.free(taken)
        assert pool.available_size() == 3

    def test_double_free_and_out_of_range_are_refused(self):
        pool = TokenToKVPool(2)
        taken = pool.alloc(1)
        pool.free(taken)
        with pytest.raises(ValueError, match="twice"):
            pool.free(taken)
        with pytest.raises(ValueError, match="out of range"):
            pool.free([7])

    def test_occupy_refuses_more_than_is_free(self):
        with pytest.raises(ValueError, match="cannot occupy 5"):
            occupy(HostKVPool(4), 5)


class TestRadixCache:
    def make(self, size: int = 64, host: int | None = None) -> tuple[RadixCache, TokenToKVPool]:
        pool = TokenToKVPool(size)
        return RadixCache(pool, HostKVPool(host) if host else None), pool

    def test_match_after_insert_and_partial_split(self):
        cache, pool = self.make()
        cache.insert(A, occupy(pool, len(A)))
        indices, _ = cache.match_prefix(B)
        assert len(indices) == 10
        assert cache.match_len(A) == len(A) - 1  # one token is always computed
        assert cache.evictable_size() == 20

    def test_insert_reports_the_already_cached_prefix(self):
        cache, pool = self.make()
        cache.insert(A, occupy(pool, len(A)))
        assert cache.insert(B, occupy(pool, len(B))) == 10
        assert cache.total_size() == 30

    def test_locked_nodes_are_protected_from_eviction(self):
        cache, pool = self.make()
        cache.insert(A, occupy(pool, len(A)))
        _, node = cache.match_prefix(A)
        cache.inc_lock_ref(node)
        assert (cache.evictable_size(), cache.protected_size()) == (0, 20)
        assert cache.evict(20) == 0
        cache.dec_lock_ref(node)
        assert cache.evict(20) == 20 and pool.available_size() == 64

    def test_eviction_is_least_recently_used_first(self):
        cache, pool = self.make()
        cache.insert(A, occupy(pool, len(A)))
        cache.insert(tuple(range(500, 505)), occupy(pool, 5))
        cache.match_prefix(A)  # touch A
        cache.evict(1)
        assert cache.match_len(A) == len(A) - 1
        assert cache.match_prefix(tuple(range(500, 505)))[0] == []

    def test_eviction_backs_up_to_host_and_drops_oldest_for_room(self):
        cache, pool = self.make(host=8)
        cache.insert((1, 2, 3, 4, 5), occupy(pool, 5))
        cache.insert((7, 8, 9, 10, 11), occupy(pool, 5))
        cache.evict(10)
        assert cache.host_pool.available_size() == 3  # the first backup made room

    def test_unlocking_an_unlocked_node_is_refused(self):
        cache, pool = self.make()
        cache.insert(A, occupy(pool, len(A)))
        with pytest.raises(ValueError, match="unlocked"):
            cache.dec_lock_ref(cache.match_prefix(A)[1])


class TestAdmissionLimiter:
    def test_aimd(self):
        limiter = AdmissionLimiter(initial=8, minimum=2, maximum=9)
        limiter.on_oom()
        assert limiter.current == 4
        limiter.on_oom(), limiter.on_oom()
        assert limiter.current == 2
        for _ in range(20):
            limiter.on_success()
        assert limiter.current == 9

    def test_inconsistent_bounds_are_refused(self):
        with pytest.raises(ValueError, match="minimum <= initial"):
            AdmissionLimiter(initial=1, minimum=2)


class TestSchedulerWorldOfOne:
    def make(self, **config) -> Scheduler:
        sched = Scheduler(tp_rank=0, tp_size=1, config=SchedulerConfig(**config))
        sched.add_requests([Req("a", A, max_new_tokens=4), Req("b", B, max_new_tokens=4)])
        return sched

    def test_floors_are_off_and_the_scope_is_reported_once(self):
        sched = self.make()
        sched.run_pass()
        sched.run_pass()
        assert sched._uniform_evict_floor is None and sched._uniform_admit_limit is None
        assert sched._prefetch_ballot is None
        assert sched._scope_reports == [
            "uniform floor scope: world=1 -> floors OFF (first observation) tp_rank=0"
        ]

    def test_rank_local_formation_admits_within_room(self):
        sched = self.make(req_pool_size=1)
        batch = sched.run_pass()
        assert batch.summary().rids == ("a",) and batch.rule == "rank-local:world-of-one"
        assert sched.req_to_token_pool.available_size() == 0
        assert sched.run_pass() is None  # no room left

    def test_finishing_frees_the_slot_and_keeps_the_prefix_cached(self):
        sched = self.make()
        sched.run_pass()
        sched.finish_req("a")
        assert sched.tree_cache.match_len(A) == len(A) - 1
        sched.add_requests([Req("c", A + (1,))])
        batch = sched.run_pass()
        assert batch.summary().prefix_lens == (len(A),)

    def test_a_pending_prefetch_holds_the_head(self):
        sched = self.make()
        sched.prefetch_pending.add("a")
        assert sched.run_pass() is None
        sched.prefetch_pending.clear()
        assert sched.run_pass() is not None

    def test_allocatable_reqs_follow_the_limiter(self):
        sched = self.make(max_running_requests=4)
        sched.admission_limiter.current = 1
        assert sched.get_num_allocatable_reqs() == 1
        assert sched.get_num_allocatable_reqs(running_bs=3) == 0

    def test_bad_construction_is_refused(self):
        with pytest.raises(ValueError, match="tp_cpu_group"):
            Scheduler(tp_rank=0, tp_size=2)
        with pytest.raises(ValueError, match="outside"):
            Scheduler(tp_rank=2, tp_size=2, tp_cpu_group=object())
        sched = self.make()
        with pytest.raises(ValueError, match="duplicate rid"):
            sched.add_requests([Req("a", A)])


def test_the_decision_path_imports_and_runs_without_torch():
    """A world of one never reduces, so it must never need torch."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from tp_scheduler import Scheduler, Req\n"
        "import tp_scheduler.tp_head_congruence, tp_scheduler.prefetch_ballot\n"
        "import tp_scheduler.uniform_floor_scope\n"
        "s = Scheduler(0, 1); s.add_requests([Req('a', (1, 2, 3))])\n"
        "assert s.run_pass().summary().rids == ('a',)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},  # keep PYTHONPATH / import hooks
    )
    assert proc.returncode == 0, proc.stderr
