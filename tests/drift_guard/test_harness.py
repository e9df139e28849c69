"""Harness declarations: what binds, what stands in (with a reason), state, and bad input."""

from __future__ import annotations

import functools
import threading
from functools import cached_property
from types import SimpleNamespace

import pytest
from dg_shop.base import BaseMixin
from dg_shop.mixins.budget import BudgetMixin
from dg_shop.scheduler import Scheduler

from deskcheck.drift_guard import guard, registered
from deskcheck.drift_guard.registry import unregister
from deskcheck.errors import HarnessError, RankError, RankTimeoutError
from deskcheck.harness import Harness, InProcessGroup, bind, harness, ranks, stand_in, state


class Admit(Harness, model=Scheduler, roots=["get_num_allocatable_reqs"], adopt=["pool_limit"],
            register=False):
    get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)


def test_bound_functions_are_the_production_objects_and_run():
    assert vars(Admit)["get_num_allocatable_reqs"] is vars(Scheduler)["get_num_allocatable_reqs"], (
        "bind() must put production's own function object on the harness, yet the harness holds "
        "another"
    )
    assert Admit().get_num_allocatable_reqs(3) == 8 - 3, (
        "the bound production get_num_allocatable_reqs must run: pool_limit 8 - 3 = 5; it "
        f"returned {Admit().get_num_allocatable_reqs(3)}"
    )
    assert guard(Admit).ok, guard(Admit).message()


def test_binding_a_function_that_uses_zero_arg_super_is_refused():
    with pytest.raises(HarnessError, match="uses zero-argument super()"):
        type("Supers", (Harness,), {"admit": bind(Scheduler.admit)}, model=Scheduler,
             roots=["admit"], register=False)


class _Base:
    pass


class _SuperSetter(_Base):
    @property
    def limit(self):
        return 1

    @limit.setter
    def limit(self, value):
        super().__init__()


@pytest.mark.parametrize("part", ["setter", "deleter"])
def test_binding_a_property_whose_setter_or_deleter_uses_zero_arg_super_is_refused(part):
    prop = _SuperSetter.__dict__["limit"]
    if part == "deleter":
        prop = property(lambda self: 1, None, prop.fset)
    model = type("Model", (_Base,), {"limit": prop})
    try:
        type("Supers", (Harness,), {"limit": bind(model.limit)}, model=model, roots=["limit"],
             register=False)
    except HarnessError as err:
        assert "uses zero-argument super()" in str(err), (
            f"the refusal must say the {part} uses zero-argument super(); it says {err}")
    else:
        pytest.fail(
            "docs/drift.md:396-397: bind() of a function using zero-argument super() is a "
            f"HarnessError; a property whose {part} calls super() was bound without one")


def test_properties_bind_as_properties():
    class Budget(Harness, model=Scheduler, roots=["budget"], register=False):
        budget = bind(BudgetMixin.budget)
        _budget_base = state(10)
        reserved_tokens = state(4)

    assert isinstance(vars(Budget)["budget"], property), (
        "bind() of a property must bind it as a property; the harness holds "
        f"{vars(Budget)['budget']!r}"
    )
    h = Budget()
    assert h.budget == 6, (
        f"the bound property's getter must run: 10 - 4 = 6; it returned {h.budget}"
    )
    h.budget = 1
    assert h._budget_base == 5, (
        "the bound property's setter must run: budget = 1 sets _budget_base to 5; it is "
        f"{h._budget_base}"
    )
    assert guard(Budget).ok, guard(Budget).message()


def test_state_defaults_are_per_instance_and_required_fields_must_be_given():
    class Queue(Harness, model=Scheduler, roots=["get_new_batch"], register=False):
        waiting_queue = state(factory=list)
        ps = state()

    a, b = Queue(ps=1), Queue(ps=2)
    a.waiting_queue.append("x")
    assert b.waiting_queue == [], (
        "state(factory=list) must give each instance its own list; the second instance has "
        f"{b.waiting_queue}"
    )
    with pytest.raises(HarnessError, match="needs a value for state field 'ps'"):
        Queue()
    with pytest.raises(HarnessError, match=r"has no state field\(s\) \['nope'\]"):
        Queue(ps=1, nope=2)


def test_the_decorator_form_declares_the_same_harness():
    @harness(model=Scheduler, roots=["get_num_allocatable_reqs"], adopt=["pool_limit"],
             register=False)
    class Decorated:
        get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)

    assert issubclass(Decorated, Harness), (
        "the @harness decorator must make the class a Harness subclass, yet it did not"
    )
    assert Decorated().get_num_allocatable_reqs(3) == 5, (
        "the decorated harness must run the bound production code: 8 - 3 = 5; it returned "
        f"{Decorated().get_num_allocatable_reqs(3)}"
    )
    assert guard(Decorated).names() == guard(Admit).names(), (
        "the decorator form must declare the same harness as the class form; names "
        f"{guard(Decorated).names()} vs {guard(Admit).names()}"
    )
    assert Decorated.__deskcheck_spec__.location.endswith(".py:" + str(
        test_the_decorator_form_declares_the_same_harness.__code__.co_firstlineno + 1)), (
        "the harness's location must be the decorated class's line; it is "
        f"{Decorated.__deskcheck_spec__.location!r}"
    )


def test_registered_harnesses_are_listed_for_the_guard():
    class Listed(Harness, model=Scheduler, roots=["get_num_allocatable_reqs"]):
        get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)

    key = f"{__name__}:{Listed.__qualname__}"
    try:
        assert registered()[key] is Listed, (
            f"a harness declared with the default register must be listed under {key}; registered: "
            f"{sorted(registered())}"
        )
    finally:
        unregister(key)
    assert key not in registered(), (
        f"unregister({key!r}) must remove the harness from the registry, yet it is still listed"
    )


@pytest.mark.parametrize("body, message", [
    ({"admit": bind(42)}, "binds 42, which is not a function or property"),
    ({"admit": bind(lambda self, n: n)}, "which is not Scheduler.admit"),
    ({"admit": bind(BaseMixin.admit)}, "which is not Scheduler.admit"),
    ({"admit": state(0)}, "is state, but Scheduler.admit is a method/property"),
    ({"budget": state(0)}, "is state, but Scheduler.budget is a method/property"),
    ({"admit": lambda self, n: n}, "defines 'admit' directly, but Scheduler has it"),
])
def test_bad_declarations_are_clear_errors(body, message):
    try:
        type("Bad", (Harness,), dict(body), model=Scheduler, roots=["admit"], register=False)
    except HarnessError as err:
        info = SimpleNamespace(value=err)
    else:
        pytest.fail(f"the bad declaration {dict(body)!r} on a Harness of Scheduler was accepted; "
                    f"it must be refused with a HarnessError saying {message!r}")
    text = info.value.render()
    assert message in text and "fix:" in text, (
        f"a bad declaration of admit was refused without saying {message!r} (and a fix); "
        f"the error says: {text}")
    assert "test_harness.py" in info.value.render() or info.value.location, (
        "a bad declaration must be located in this test file; the error says "
        f"{info.value.render()!r}, location {info.value.location!r}"
    )
    assert info.value.exit_code == 2, (
        "a HarnessError is a usage error (docs/drift.md: exit 2); its exit_code is "
        f"{info.value.exit_code}")


def test_a_stand_in_needs_a_reason_and_adopt_needs_a_class_default():
    try:
        stand_in(lambda self: 0, reason=" ")
    except HarnessError as err:
        assert "needs a reason" in str(err), f"the error must say a reason is needed: {err}"
    else:
        pytest.fail("stand_in(value, reason=' ') was accepted: a blank reason is no reason, "
                    "and a stand-in needs one (HarnessError 'a stand-in needs a reason')")
    with pytest.raises(HarnessError, match="adopts 'admit'"):
        type("Bad", (Harness,), {}, model=Scheduler, roots=["admit"], adopt=["admit"],
             register=False)


def test_helpers_production_does_not_have_are_allowed():
    class Helped(Admit, register=False):
        def scenario(self):
            return self.get_num_allocatable_reqs(5)

    assert Helped().scenario() == 3, (
        "a helper production does not have (scenario) must be allowed and run: 8 - 5 = 3; it "
        f"returned {Helped().scenario()}"
    )


class Voter(Harness, model=Scheduler, roots=["admit"], register=False):
    admit = stand_in(lambda self, n: self.group.all_reduce(self.rank, [n, -n]),
                     reason="the collective is in-process")
    rank = state()
    group = state()


def test_ranks_build_divergent_instances_that_meet_in_the_collective():
    rankset = ranks(Voter, 3, lambda r, g: {"rank": r, "group": g})
    assert [h.rank for h in rankset] == [0, 1, 2], (
        f"ranks() must build one instance per rank, 0 to 2; ranks: {[h.rank for h in rankset]}"
    )
    results = rankset.run(lambda h: h.admit(10 + h.rank))
    assert results == [[10, -12]] * 3 and rankset.group.calls == 1, (
        "the in-process all_reduce must give every rank the sum [10, -12] in one call; results "
        f"{results}, calls {rankset.group.calls}"
    )


def test_a_failing_rank_is_named():
    rankset = ranks(Voter, 2, lambda r, g: {"rank": r, "group": g}, timeout_s=2)

    def body(h):
        if h.rank == 1:
            raise ValueError("rank one breaks")
        return h.admit(1)

    with pytest.raises(RankError) as info:
        rankset.run(body)
    message = str(info.value)
    headline = message.partition("\n")[0]
    assert "rank 1 first" in message, (
        f"rank 1 raised and broke the barrier, but the rank error does not blame it first: "
        f"{headline!r}")
    assert "rank one breaks" in message, f"the rank error lost rank 1's own error: {message}"


def test_a_rank_that_skips_the_collective_times_out_instead_of_hanging():
    group = InProcessGroup(2, timeout_s=0.3)
    box = SimpleNamespace(error=None)

    def lonely():
        try:
            group.all_reduce(0, [1])
        except RankTimeoutError as exc:
            box.error = exc

    thread = threading.Thread(target=lonely)
    thread.start()
    thread.join(5)
    assert "collective #0 did not complete: ranks [0] arrived, [1] did not" in str(box.error), (
        "a rank that skips the collective must time out naming who arrived and who did not; the "
        f"error is {box.error!r}"
    )


def test_mismatched_payload_widths_are_named():
    rankset = ranks(Voter, 2, lambda r, g: {"rank": r, "group": g}, timeout_s=2)
    with pytest.raises(RankError, match="payload widths differ"):
        rankset.run(lambda h: h.group.all_reduce(h.rank, [0] * (h.rank + 1)))


class _SuperCached(_Base):
    @cached_property
    def limit(self):
        return super().__sizeof__()


def test_binding_a_cached_property_that_uses_zero_arg_super_is_refused():
    model = type("Model", (_Base,), {"limit": _SuperCached.__dict__["limit"]})
    try:
        type("Supers", (Harness,), {"limit": bind(model.limit)}, model=model, roots=["limit"],
             register=False)
    except HarnessError as err:
        assert "uses zero-argument super()" in str(err), (
            f"the refusal must say the cached_property uses zero-argument super(); it says {err}")
    else:
        pytest.fail(
            "docs/drift.md:396-397: bind() of a function using zero-argument super() is a "
            "HarnessError; a cached_property whose getter calls super() was bound without one")


class _Limits:
    @classmethod
    def cap(cls, n):
        return n * 2

    @classmethod
    def parent_cap(cls, n):
        return n


class _SuperLimits(_Limits):
    @classmethod
    def parent_cap(cls, n):
        return super().parent_cap(n) + 1


def test_a_classmethod_binds_as_model_dot_name():
    try:
        bound = type("Caps", (Harness,), {"cap": bind(_SuperLimits.cap)}, model=_SuperLimits,
                     roots=["cap"], register=False)
    except HarnessError as err:
        pytest.fail("docs/drift.md:396: bind(Model.name) of a classmethod is the production "
                    f"object itself and must bind; it was refused: {err}")
    assert isinstance(vars(bound)["cap"], classmethod) and bound().cap(3) == 6, (
        "a bound classmethod must stay production's classmethod and run (3 * 2 = 6); the "
        f"harness holds {vars(bound)['cap']!r}")
    with pytest.raises(HarnessError, match="uses zero-argument super()"):
        type("Caps", (Harness,), {"parent_cap": bind(_SuperLimits.parent_cap)},
             model=_SuperLimits, roots=["parent_cap"], register=False)


class _Defaults:
    pool_limit = 8
    clock = functools.partial(max, 0)  # callable, not a function: not a plain default

    def admit(self, n):
        return min(n, self.pool_limit)


def test_adopt_takes_plain_class_defaults_only_never_a_callable_one():
    plain = type("Plain", (Harness,), {"admit": bind(_Defaults.admit)}, model=_Defaults,
                 roots=["admit"], adopt=["pool_limit"], register=False)
    assert plain().admit(20) == 8, (
        f"adopt=['pool_limit'] must copy the class default 8; admit(20) gave {plain().admit(20)}")
    try:
        type("Clocked", (Harness,), {"admit": bind(_Defaults.admit)}, model=_Defaults,
             roots=["admit"], adopt=["clock"], register=False)
    except HarnessError as err:
        assert "adopts 'clock', which is not a class-level default" in str(err), (
            f"the refusal must name the callable adopted; it says {err}")
    else:
        pytest.fail("docs/drift.md:402: adopt copies plain class-level defaults; adopting "
                    "_Defaults.clock, a callable (functools.partial), was accepted")


def test_a_state_default_is_copied_into_each_instance():
    class Pending(Harness, model=Scheduler, roots=["get_new_batch"], register=False):
        waiting_queue = state([])

    a, b = Pending(), Pending()
    a.waiting_queue.append("r1")
    assert b.waiting_queue == [], (
        "docs/drift.md:400: state(default) is an instance field, its default copied per "
        f"instance; after a.waiting_queue.append('r1'), b.waiting_queue is {b.waiting_queue}")


def test_a_harness_without_roots_is_a_base_and_is_not_registered():
    class RootlessBase(Harness, model=Scheduler):
        get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)

    key = f"{__name__}:{RootlessBase.__qualname__}"
    listed = key in registered()
    unregister(key)
    assert not listed, (
        "docs/drift.md:404-405: a harness without roots is not registered (it is a base for "
        f"others); {key} was registered")
