"""Stand-ins written the ad-hoc ways real scheduler teams write them (no deskcheck Harness).

SGLang's unit tests build ``Scheduler.__new__(Scheduler)`` plus hand-set attributes, pass a
``SimpleNamespace`` as ``self`` (binding the real helpers with ``types.MethodType``), and use
``MagicMock(spec=PrefillAdder)``; fixtures and factory helpers return them. deskcheck guards
them where they stand: ``assert_faithful`` in the test, ``deskcheck standins`` from outside,
and the pytest plugin explains an ``AttributeError`` raised on one as drift.
"""

from __future__ import annotations

import types
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from tp_scheduler.admission_limiter import AdmissionLimiter
from tp_scheduler.memory_pool import ReqToTokenPool
from tp_scheduler.req import Req
from tp_scheduler.schedule_policy import PrefillAdder
from tp_scheduler.scheduler import Scheduler, SchedulerConfig

from deskcheck.drift_guard import assert_faithful


def _req(rid: str, tokens: int = 4, new: int = 0) -> Req:
    return Req(rid, tuple(range(1, tokens + 1)), max_new_tokens=new)


# -- Cls.__new__ plus hand-set attributes ---------------------------------------------------
def test_prefetch_vote_of_a_scheduler_built_without_init():
    sched = Scheduler.__new__(Scheduler)
    sched.tp_size = 1
    sched.waiting_queue = [_req("a"), _req("b")]
    sched.prefetch_pending = {"a"}
    sched._prefetch_ballot = None
    assert Scheduler._prefetch_head_admissible(sched) is False
    sched.prefetch_pending = set()
    assert Scheduler._prefetch_head_admissible(sched) is True
    assert_faithful(sched, Scheduler._prefetch_head_admissible)


# -- a SimpleNamespace as self, the real helpers bound with MethodType ----------------------
def test_count_vote_of_a_namespace_scheduler():
    ns = SimpleNamespace(
        config=SchedulerConfig(max_running_requests=4),
        admission_limiter=AdmissionLimiter(initial=3, maximum=4),
        running_batch=[_req("r")],
        req_to_token_pool=ReqToTokenPool(8),
    )
    ns.get_num_allocatable_reqs = types.MethodType(Scheduler.get_num_allocatable_reqs, ns)
    assert Scheduler._local_admit_limit(ns) == 2
    assert_faithful(ns, Scheduler._local_admit_limit, model=Scheduler)


# -- MagicMock(spec=PrefillAdder) with configured fields ------------------------------------
def test_token_budget_of_a_spec_mock_adder():
    adder = MagicMock(spec=PrefillAdder)
    adder.tree_cache = SimpleNamespace(evictable_size=lambda: 50)
    adder.token_to_kv_pool = SimpleNamespace(available_size=lambda: 100)
    adder.host_floor = 20
    adder.evict_floor = None
    adder.tp_size = 1
    adder.rem_total_token_offset = 30
    assert PrefillAdder.rem_total_tokens.fget(adder) == 100 + 20 - 30
    assert_faithful(adder, "rem_total_tokens")


# -- a factory helper and a fixture that return stand-ins -----------------------------------
def make_scheduler(running: list[Req]) -> Scheduler:
    """A scheduler with only what the reservation count reads."""
    sched = Scheduler.__new__(Scheduler)
    sched.running_batch = running
    return sched


def test_running_reservation_of_a_factory_scheduler():
    sched = make_scheduler([_req("a", new=3), _req("b", new=5)])
    assert Scheduler._running_reservation(sched) == 8
    assert_faithful(sched, Scheduler._running_reservation)


@pytest.fixture
def queued_scheduler() -> Scheduler:
    sched = Scheduler.__new__(Scheduler)
    sched.waiting_queue = []
    sched.prefetch_pending = set()
    return sched


def test_an_empty_queue_has_landed(queued_scheduler):
    assert Scheduler._local_prefetch_done(queued_scheduler) is True
