"""The drift verdict's rules and words (docs/drift.md, *Verdicts*): why each reverse and stale
allow entry is drift, the forward message with each name's detail, signature rules for
static, class and property production, chains judged through plain values, what a stub
provides, and ``provision_of``/runtime-mode inputs."""

from __future__ import annotations

from tests.drift_guard.shop import shop_harnesses as _shop_harnesses


def test_guard_names_why_each_reverse_and_stale_allow_entry_is_drift():
    from deskcheck.drift_guard import guard
    from deskcheck.harness import stand_in, state

    scheduler, complete = _shop_harnesses()

    class Stale(complete, register=False):
        _retired_helper = stand_in(lambda self: 0, reason="old")
        old_field = state(1)

    verdict = guard(Stale, allow={"gone_name": "was needed", "update_budget": "bound anyway"})
    details = {(f.direction, f.name): f.detail for f in verdict.findings}
    location = Stale.__deskcheck_provision__().location
    assert details.get(("reverse", "_retired_helper")) == f"stand-in declared at {location}", (
        f"a reverse finding does not say what was declared where: {details}")
    assert details.get(("reverse", "old_field")) == f"state declared at {location}", details
    assert details.get(("stale_allow", "gone_name")) == (
        "production no longer has it (reason given: was needed)"), details
    assert details.get(("stale_allow", "update_budget")) == (
        "nothing in the surface needs it unprovided (reason given: bound anyway)"), details
    assert verdict.location == location, "the verdict lost the harness's location"
    error = None
    try:
        verdict.raise_if_drifted()
    except Exception as exc:  # noqa: BLE001 - the type is checked below
        error = exc
    assert error is not None and error.location == location and error.verdict is verdict, (
        f"raise_if_drifted lost the location or the verdict: {error!r}")


def test_the_forward_message_shows_each_name_with_its_detail():
    from deskcheck.drift_guard import guard

    scheduler, complete = _shop_harnesses()

    class NoAllow(complete, register=False):
        pass

    NoAllow.__deskcheck_spec__.allow = {}
    message = guard(NoAllow).message()
    assert "  trace_enabled: guarded read: a getattr/hasattr default would silently skip it" \
        in message, f"the guarded-read detail is missing from the message:\n{message}"
    assert "guarded read" not in message.split("trace_enabled:", 1)[0], message


def test_provision_of_refuses_what_is_not_a_harness():
    import pytest

    from deskcheck.drift_guard.verdicts import provision_of

    with pytest.raises(TypeError, match="5 is neither a Harness, a stub spec nor a Provision"):
        provision_of(5)


def test_a_plain_forward_finding_has_no_detail_and_names_its_sites():
    from deskcheck.drift_guard import guard
    from deskcheck.harness import state

    scheduler, complete = _shop_harnesses()

    class NoGroup(complete, register=False):
        group = state(None)

    NoGroup.__deskcheck_spec__.state.pop("group", None)
    verdict = guard(NoGroup)
    details = {f.name: f.detail for f in verdict.findings if f.direction == "forward"}
    assert details == {"group": ""}, (
        f"a plain (unguarded) missing read got a detail, or others were lost: {details}")
    finding = next(f for f in verdict.findings if f.name == "group")
    assert finding.sites and all(s.kind != "write" for s in finding.sites), (
        f"a forward finding must list the sites that need the name: {finding.sites}")


def test_runtime_mode_reads_a_class_named_by_string():
    from deskcheck.drift_guard import surface

    scheduler, _ = _shop_harnesses()
    runtime = surface("dg_shop.scheduler:Scheduler.run_once", mode="runtime")
    static = surface(scheduler, "run_once", mode="static")
    assert runtime.model.mode == "runtime" and static.model.mode == "static", (
        f"the mode asked for was not used: {runtime.model.mode}, {static.model.mode}")
    assert set(runtime.names) == set(static.names), "runtime and static surfaces differ"


def test_signature_rules_for_static_class_and_property_production():
    from deskcheck.drift_guard.verdicts import signature_misfit

    def two(a, b):
        return 0

    assert signature_misfit(staticmethod(two), staticmethod(lambda a, b: 0)) is None, (
        "a staticmethod stand-in taking exactly the staticmethod's arguments was refused")
    assert signature_misfit(staticmethod(two), lambda self, a, b: 0) is None, (
        "a method stand-in (self, then the arguments) was refused for a staticmethod")
    assert signature_misfit(staticmethod(two), lambda a, b: 0) is not None, (
        "a plain function whose first argument would receive self was accepted")
    assert signature_misfit(classmethod(lambda cls, a: 0), lambda self, a: 0) is None, (
        "a stand-in for a classmethod was refused")
    assert signature_misfit(property(lambda self: 1), 3) is None, (
        "a plain value standing in for a property must fit; signature_misfit said "
        f"{signature_misfit(property(lambda self: 1), 3)!r}"
    )
    assert signature_misfit(property(lambda self: 1), lambda self: 1) == (
        "production is a property; stand in with a property or a plain value"), (
        "a plain function standing in for a property was accepted")
    assert signature_misfit(lambda self, a: 0, property(lambda self: 1)) == (
        "production is a method; a property cannot be called like it"), (
        "a property standing in for a method must misfit with 'production is a method; a property "
        "cannot be called like it'; it said "
        f"{signature_misfit(lambda self, a: 0, property(lambda self: 1))!r}"
    )
    assert signature_misfit(lambda self, a: 0, 5) == (
        "production is a method; the stand-in is a int value"), (
        "a plain value standing in for a method must misfit with 'production is a method; the "
        f"stand-in is a int value'; it said {signature_misfit(lambda self, a: 0, 5)!r}"
    )


def test_chains_are_judged_only_through_plain_values():
    from types import SimpleNamespace

    from deskcheck.drift_guard import MISSING, Provision, StandIn
    from deskcheck.drift_guard.verdicts import _chain_missing

    class Dynamic:
        def __getattr__(self, name):
            if name == "dyn":
                return SimpleNamespace(deep=1)
            raise AttributeError(name)

    class WithProperty:
        @property
        def prop(self):
            return 1

        def method(self):
            return 1

    scheduler, _ = _shop_harnesses()
    prov = Provision(
        subject="S", model=scheduler, roots=("run_once",),
        state={"ps": SimpleNamespace(tp_rank=0, inner=SimpleNamespace(x=1)), "gone": MISSING,
               "empty": None, "dynamic": Dynamic(), "shaped": WithProperty()},
        stand_ins={"plain": StandIn(SimpleNamespace(a=1), reason="r"),
                   "fn": StandIn(lambda self: 0, reason="r")})
    cases = {("ps", "tp_rank"): False, ("ps", "nope"): True, ("ps", "inner.x"): False,
             ("ps", "inner.y"): True, ("gone", "x"): False, ("empty", "x"): False,
             ("plain", "a"): False, ("plain", "b"): True, ("fn", "anything"): False,
             ("unknown", "x"): False, ("dynamic", "dyn.deep"): False,
             ("shaped", "prop.deeper"): False, ("shaped", "method.deeper"): False}
    got = {key: _chain_missing(prov, *key) for key in cases}
    assert got == cases, (
        "chains are judged wrongly (through state, a plain stand-in, a dynamic attribute, a "
        f"property or a method): { {k: v for k, v in got.items() if v != cases[k]} }")


def test_element_chains_are_judged_on_every_real_element():
    from collections import deque
    from types import SimpleNamespace

    from deskcheck.drift_guard import Provision
    from deskcheck.drift_guard.verdicts import _chain_missing

    scheduler, _ = _shop_harnesses()
    full, bare = SimpleNamespace(rid="a"), SimpleNamespace()
    prov = Provision(
        subject="S", model=scheduler, roots=("run_once",),
        state={"queue": [full, full], "mixed": deque([full, bare]),
               "states": {"r1": full, "r2": bare}, "sent": {"r1": full}, "empty": [],
               "opaque": object(),
               "nested": [SimpleNamespace(kv=SimpleNamespace(size=1))]})
    cases = {("queue", "[]"): False, ("queue", "[].rid"): False,
             ("mixed", "[].rid"): True, ("states", "[].rid"): True, ("sent", "[].rid"): False,
             ("empty", "[].rid"): False, ("opaque", "[].rid"): False,
             ("nested", "[].kv.size"): False, ("nested", "[].kv.page"): True}
    got = {key: _chain_missing(prov, *key) for key in cases}
    assert got == cases, (
        "an element chain (`queue.[].rid`) is missing when some real element of the list, "
        "deque or dict (its values, not its keys) lacks it, never for an empty container or a "
        "value that "
        f"is no container; wrong: { {k: v for k, v in got.items() if v != cases[k]} }")


def test_a_stub_provides_every_real_function_but_not_class_defaults():
    from deskcheck.drift_guard import Provision, guard

    scheduler, _ = _shop_harnesses()
    prov = Provision(subject="Stub", model=scheduler,
                     roots=("run_once", "get_num_allocatable_reqs"), binds_everything=True,
                     state={"waiting_queue": [], "ps": None})
    forward = guard(prov).names("forward")
    assert "update_budget" not in forward and "admit" not in forward, (
        f"a stub's real methods were reported as missing: {forward}")
    assert "pool_limit" in forward, (
        f"a class default the stub did not adopt was taken as provided: {forward}")
    assert "prio_weight" in forward and "batch_reserved" in forward, (
        f"the guard stopped judging needed names early: {forward}")


def test_reverse_and_stale_allow_details_for_adopted_and_dotted_names():
    from deskcheck.drift_guard import Provision, guard

    scheduler, _ = _shop_harnesses()
    prov = Provision(subject="P", model=scheduler, roots=("update_budget",),
                     binds_everything=True, adopted=frozenset({"retired_default"}),
                     allow={"ps.gone_attr": "chain"}, location="here.py:1")
    details = {(f.direction, f.name): f.detail for f in guard(prov).findings}
    assert details.get(("reverse", "retired_default")) == "adopted default declared at here.py:1", (
        "reverse drift of an adopted default must say 'adopted default declared at here.py:1'; "
        f"details: {details}"
    )
    assert details.get(("stale_allow", "ps.gone_attr")) == (
        "nothing in the surface needs it unprovided (reason given: chain)"), (
        f"a stale dotted allow entry is judged by the wrong name: {details}")
