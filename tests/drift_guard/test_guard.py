"""Drift verdicts: forward, reverse, signature, allowlist, chains, class defaults, can-fail."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest
from dg_shop.mixins.budget import BudgetMixin
from dg_shop.scheduler import Scheduler

from deskcheck.drift_guard import can_fail, guard
from deskcheck.drift_guard import verdicts as guard_module
from deskcheck.errors import DriftError
from deskcheck.harness import Harness, bind, stand_in, state


class Complete(Harness, model=Scheduler, roots=["update_budget"], adopt=["streak"],
               register=False, allow={"trace_enabled": "the trace branch is covered elsewhere"}):
    update_budget = bind(Scheduler.update_budget)
    budget = bind(BudgetMixin.budget)
    _floors = stand_in(lambda self: [1, 2], reason="floor inputs are not under test")
    ps = state(factory=lambda: SimpleNamespace(tp_rank=0))
    group = state(factory=lambda: SimpleNamespace(size=2))
    _budget_base = state(10)
    reserved_tokens = state(3)
    debug_hook = state(None)


def test_a_complete_harness_holds_and_really_runs_the_production_code():
    verdict = guard(Complete)
    assert verdict.ok, verdict.message()
    h = Complete()
    assert h.update_budget() == 2 + (10 - 3) + 0
    assert h.streak == 1 and h.last_floor == 1


def test_forward_drift_message_is_sorted_with_sites_and_path():
    class Behind(Harness, model=Scheduler, roots=["run_once"], register=False):
        run_once = bind(Scheduler.run_once)

    verdict = guard(Behind)
    assert not verdict.ok
    first = verdict.message().splitlines()[0]
    assert first.startswith("Behind has drifted behind Scheduler.run_once: ['_budget_base', ")
    names = verdict.names("forward")
    assert names == sorted(names) and {"fast_path", "get_new_batch", "update_budget"} <= set(names)
    assert "    call at " in verdict.message() and "scheduler.py:12 (path: Scheduler.run_once)" \
        in verdict.message()
    with pytest.raises(DriftError):
        verdict.raise_if_drifted()


def test_a_stand_in_stops_the_trace_but_binding_follows_it():
    assert "evict_floor" not in guard(Complete).surface.names

    class Bound(Complete, register=False):
        _floors = bind(Scheduler._floors)

    verdict = guard(Bound)
    assert verdict.names("forward") == ["evict_floor", "host_floor"]
    (site,) = verdict.findings[0].sites
    assert site.path == ("BudgetMixin.update_budget", "BudgetMixin._floors")


def test_class_level_defaults_count_only_when_adopted():
    class NoAdopt(Complete, register=False):
        pass

    NoAdopt.__deskcheck_spec__.adopted = frozenset()
    assert guard(NoAdopt).names("forward") == ["streak"]


def test_a_chain_through_state_is_checked():
    class NoRank(Complete, register=False):
        ps = state(factory=lambda: SimpleNamespace(other=1))

    assert guard(NoRank).names("forward") == ["ps.tp_rank"]


def test_guarded_reads_are_drift_too_and_say_so():
    class NoAllow(Complete, register=False):
        pass

    NoAllow.__deskcheck_spec__.allow = {}
    verdict = guard(NoAllow)
    forward = verdict.names("forward")
    assert forward == ["trace_enabled"], (
        f"the drift guard did not report the guarded read trace_enabled, no longer allowed, as "
        f"forward drift (it reported {forward})")
    assert "guarded read" in verdict.message()


def test_reverse_drift_names_a_stand_in_production_no_longer_has():
    class Stale(Complete, register=False):
        _retired_helper = stand_in(lambda self: 0, reason="was needed before the refactor")
        old_field = state(1)

    verdict = guard(Stale)
    reverse = verdict.names("reverse")
    assert reverse == ["_retired_helper", "old_field"], (
        f"the drift guard did not report the stand-in _retired_helper and the state old_field, "
        f"names Scheduler no longer has, as reverse drift (it reported {reverse})")
    assert "stands in for names Scheduler no longer has" in verdict.message()


def test_a_stale_allowlist_entry_fails():
    verdict = guard(Complete, allow={"nothing_reads_this": "left over"})
    stale = verdict.names("stale_allow")
    assert stale == ["nothing_reads_this"], (
        f"the drift guard did not report the allowlist entry nothing_reads_this, which matches "
        f"no read, as stale (it reported {stale})")


def test_signature_drift_of_a_stand_in():
    class Fits(Harness, model=Scheduler, roots=["admit"], register=False):
        get_num_allocatable_reqs = stand_in(lambda self, running_bs: 1, reason="pool not modelled")

    class Misfit(Harness, model=Scheduler, roots=["admit"], register=False):
        get_num_allocatable_reqs = stand_in(lambda self: 1, reason="pool not modelled")

    assert guard(Fits).names("signature") == []
    verdict = guard(Misfit)
    misfits = verdict.names("signature")
    production = inspect.signature(Scheduler.get_num_allocatable_reqs)
    assert misfits == ["get_num_allocatable_reqs"], (
        f"the drift guard accepted the stand-in get_num_allocatable_reqs(self), which no longer "
        f"fits production's get_num_allocatable_reqs{production} (signature drift reported: "
        f"{misfits})")
    assert "running_bs" in verdict.message()


@pytest.mark.parametrize("production, standin, fits", [
    (lambda self, a, b=1, *, c: 0, lambda self, a, b=2, *, c: 0, True),
    (lambda self, a, b=1, *, c: 0, lambda self, *args, **kwargs: 0, True),
    (lambda self, a, b=1: 0, lambda self, a: 0, False),      # cannot take b
    (lambda self, a: 0, lambda self, a, extra: 0, False),     # needs an argument never passed
    (lambda self, a: 0, lambda self, renamed: 0, False),      # keyword a= would fail
    (lambda self, a: 0, 5, False),                            # not callable
])
def test_signature_fit_rules(production, standin, fits):
    assert (guard_module.signature_misfit(production, standin) is None) is fits


def test_the_can_fail_arm_plants_a_read_and_sees_exactly_it():
    result = can_fail(Complete)
    assert result.ok, result.message()
    assert result.added == [f"forward:{result.canary}"]
    (site,) = next(f for f in result.planted.findings if f.name == result.canary).sites
    assert site.path == ("BudgetMixin.update_budget",)


def test_the_can_fail_arm_catches_a_dead_guard(monkeypatch):
    real_trace = guard_module.trace

    def blind_trace(*args, **kwargs):
        surf = real_trace(*args, **kwargs)
        surf.names = {n: u for n, u in surf.names.items() if "canary" not in n}
        return surf

    monkeypatch.setattr(guard_module, "trace", blind_trace)
    result = can_fail(Complete)
    assert not result.ok and "NOT live" in result.message()


def test_static_mode_guard_agrees_with_runtime():
    assert guard(Complete, mode="static").ok
    assert guard(Complete, roots=["run_once"], mode="static").names() == \
        guard(Complete, roots=["run_once"]).names()


def test_a_value_set_directly_on_the_harness_is_named_as_undeclared():
    class Direct(Complete, register=False):
        evict_floor = 3  # not state(): the guard cannot rely on it

    Direct.__deskcheck_spec__.stand_ins.pop("_floors", None)
    Direct._floors = Scheduler._floors
    verdict = guard(Direct)
    assert "evict_floor" in verdict.names("forward")
    assert "declare it so the guard can see it" in verdict.message()
