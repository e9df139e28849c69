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
    budget = h.update_budget()  # called once: it writes streak and last_floor
    assert budget == 2 + (10 - 3) + 0, (
        "the complete harness must run production's update_budget for real: 2 + (10 - 3) + 0 = 9; "
        f"it returned {budget}"
    )
    assert h.streak == 1 and h.last_floor == 1, (
        "production's update_budget must write streak = 1 and last_floor = 1 on the harness; got "
        f"{h.streak}, {h.last_floor}"
    )


def test_forward_drift_message_is_sorted_with_sites_and_path():
    class Behind(Harness, model=Scheduler, roots=["run_once"], register=False):
        run_once = bind(Scheduler.run_once)

    verdict = guard(Behind)
    assert not verdict.ok, (
        "a harness binding run_once with nothing declared must have drifted, yet the verdict is ok"
    )
    first = verdict.message().splitlines()[0]
    assert first.startswith("Behind has drifted behind Scheduler.run_once: ['_budget_base', "), (
        "the forward drift message must start 'Behind has drifted behind Scheduler.run_once: "
        f"[...sorted names'; it starts {first!r}"
    )
    names = verdict.names("forward")
    assert names == sorted(names) and {"fast_path", "get_new_batch", "update_budget"} <= set(names), (
        "forward drift names must be sorted and include fast_path, get_new_batch, update_budget; "
        f"they are {names}"
    )
    assert "    call at " in verdict.message() and "scheduler.py:12 (path: Scheduler.run_once)" \
        in verdict.message(), (
        "each drifted name must be listed with its site and path ('call at ... scheduler.py:12 "
        f"(path: Scheduler.run_once)'); the message is {verdict.message()!r}"
    )
    with pytest.raises(DriftError, match="Behind has drifted behind Scheduler.run_once"):
        verdict.raise_if_drifted()


def test_a_stand_in_stops_the_trace_but_binding_follows_it():
    assert "evict_floor" not in guard(Complete).surface.names, (
        "a stand-in for _floors must stop the trace: its read evict_floor must not be a name; "
        f"names: {sorted(guard(Complete).surface.names)}"
    )

    class Bound(Complete, register=False):
        _floors = bind(Scheduler._floors)

    verdict = guard(Bound)
    assert verdict.names("forward") == ["evict_floor", "host_floor"], (
        "binding _floors must follow it into its reads evict_floor, host_floor as forward drift; "
        f"forward: {verdict.names('forward')}"
    )
    (site,) = verdict.findings[0].sites
    assert site.path == ("BudgetMixin.update_budget", "BudgetMixin._floors"), (
        "a bound method's site must carry its call path (update_budget, _floors); it is "
        f"{site.path}"
    )


def test_class_level_defaults_count_only_when_adopted():
    class NoAdopt(Complete, register=False):
        pass

    NoAdopt.__deskcheck_spec__.adopted = frozenset()
    assert guard(NoAdopt).names("forward") == ["streak"], (
        "a class-level default not adopted must not count: streak must be forward drift; forward: "
        f"{guard(NoAdopt).names('forward')}"
    )


def test_a_chain_through_state_is_checked():
    class NoRank(Complete, register=False):
        ps = state(factory=lambda: SimpleNamespace(other=1))

    assert guard(NoRank).names("forward") == ["ps.tp_rank"], (
        "a chain through state (ps.tp_rank) whose factory lacks tp_rank must be forward drift; "
        f"forward: {guard(NoRank).names('forward')}"
    )


def test_guarded_reads_are_drift_too_and_say_so():
    class NoAllow(Complete, register=False):
        pass

    NoAllow.__deskcheck_spec__.allow = {}
    verdict = guard(NoAllow)
    forward = verdict.names("forward")
    assert forward == ["trace_enabled"], (
        f"the drift guard did not report the guarded read trace_enabled, no longer allowed, as "
        f"forward drift (it reported {forward})")
    assert "guarded read" in verdict.message(), (
        "a guarded read reported as drift must say 'guarded read'; the message is "
        f"{verdict.message()!r}"
    )


def test_reverse_drift_names_a_stand_in_production_no_longer_has():
    class Stale(Complete, register=False):
        _retired_helper = stand_in(lambda self: 0, reason="was needed before the refactor")
        old_field = state(1)

    verdict = guard(Stale)
    reverse = verdict.names("reverse")
    assert reverse == ["_retired_helper", "old_field"], (
        f"the drift guard did not report the stand-in _retired_helper and the state old_field, "
        f"names Scheduler no longer has, as reverse drift (it reported {reverse})")
    assert "stands in for names Scheduler no longer has" in verdict.message(), (
        "reverse drift must be explained as 'stands in for names Scheduler no longer has'; the "
        f"message is {verdict.message()!r}"
    )


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

    assert guard(Fits).names("signature") == [], (
        "a stand-in whose signature fits production's must not be signature drift; signature: "
        f"{guard(Fits).names('signature')}"
    )
    verdict = guard(Misfit)
    misfits = verdict.names("signature")
    production = inspect.signature(Scheduler.get_num_allocatable_reqs)
    assert misfits == ["get_num_allocatable_reqs"], (
        f"the drift guard accepted the stand-in get_num_allocatable_reqs(self), which no longer "
        f"fits production's get_num_allocatable_reqs{production} (signature drift reported: "
        f"{misfits})")
    assert "running_bs" in verdict.message(), (
        "signature drift must name the parameter the stand-in cannot take (running_bs); the "
        f"message is {verdict.message()!r}"
    )


@pytest.mark.parametrize("production, standin, fits", [
    (lambda self, a, b=1, *, c: 0, lambda self, a, b=2, *, c: 0, True),
    (lambda self, a, b=1, *, c: 0, lambda self, *args, **kwargs: 0, True),
    (lambda self, a, b=1: 0, lambda self, a: 0, False),      # cannot take b
    (lambda self, a: 0, lambda self, a, extra: 0, False),     # needs an argument never passed
    (lambda self, a: 0, lambda self, renamed: 0, False),      # keyword a= would fail
    (lambda self, a: 0, 5, False),                            # not callable
])
def test_signature_fit_rules(production, standin, fits):
    assert (guard_module.signature_misfit(production, standin) is None) is fits, (
        f"signature_misfit of stand-in {standin} against production {production} must "
        f"{'fit' if fits else 'misfit'}; it said "
        f"{guard_module.signature_misfit(production, standin)!r}"
    )


def test_the_can_fail_arm_plants_a_read_and_sees_exactly_it():
    result = can_fail(Complete)
    assert result.ok, result.message()
    assert result.added == [f"forward:{result.canary}"], (
        f"the can-fail arm must add exactly the planted forward:{result.canary}; it added "
        f"{result.added}"
    )
    (site,) = next(f for f in result.planted.findings if f.name == result.canary).sites
    assert site.path == ("BudgetMixin.update_budget",), (
        f"the planted read's site must be in BudgetMixin.update_budget; its path is {site.path}"
    )


def test_the_can_fail_arm_catches_a_dead_guard(monkeypatch):
    real_trace = guard_module.trace

    def blind_trace(*args, **kwargs):
        surf = real_trace(*args, **kwargs)
        surf.names = {n: u for n, u in surf.names.items() if "canary" not in n}
        return surf

    monkeypatch.setattr(guard_module, "trace", blind_trace)
    result = can_fail(Complete)
    assert not result.ok and "NOT live" in result.message(), (
        "a guard blind to the planted read must make the can-fail arm fail saying 'NOT live'; ok "
        f"{result.ok}, message {result.message()!r}"
    )


def test_static_mode_guard_agrees_with_runtime():
    assert guard(Complete, mode="static").ok, (
        "the complete harness must hold in static mode too; the verdict says "
        f"{guard(Complete, mode='static').message()!r}"
    )
    assert guard(Complete, roots=["run_once"], mode="static").names() == \
        guard(Complete, roots=["run_once"]).names(), (
        "static and runtime modes of the guard must find the same names for the root run_once, "
        "yet they differ"
    )


def test_a_value_set_directly_on_the_harness_is_named_as_undeclared():
    class Direct(Complete, register=False):
        evict_floor = 3  # not state(): the guard cannot rely on it

    Direct.__deskcheck_spec__.stand_ins.pop("_floors", None)
    Direct._floors = Scheduler._floors
    verdict = guard(Direct)
    assert "evict_floor" in verdict.names("forward"), (
        "a value set directly on the harness (evict_floor = 3, not state()) must be forward "
        f"drift; forward: {verdict.names('forward')}"
    )
    assert "declare it so the guard can see it" in verdict.message(), (
        "an undeclared value on the harness must say 'declare it so the guard can see it'; the "
        f"message is {verdict.message()!r}"
    )
