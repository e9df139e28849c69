"""Tests that close gaps mutmut found in deskcheck's pure modules (bench/results/selfproof.md).

Each pins a behaviour no other test observed, with a message naming what went wrong.
"""

from __future__ import annotations

from pathlib import Path

from deskcheck.report.fingerprint import canonical_json, config_fingerprint, mutant_fingerprint

OWNER_TEST = "def test_x():\n    assert True\n"
TARGET = "def f():\n    return 1\n"


def test_canonical_json_is_one_compact_text_per_value():
    text = canonical_json({"b": {1, "a"}, "a": (Path("x/y"), "é")})
    assert text == '{"a":["x/y","é"],"b":["a",1]}', (
        f"the canonical encoding changed (spacing, key order, set order, paths or non-ASCII): "
        f"{text}")


def test_fingerprints_are_pinned(tmp_path):
    owner = tmp_path / "test_x.py"
    owner.write_text(OWNER_TEST)
    got = mutant_fingerprint({"id": "m1", "owners": ["t.py::x"]}, TARGET, [owner], "0.1.0")
    assert got == "a0784ded65de2b8d45918465fd383880f0f263ce0bf2e54d702dd7fefc8c3688", (
        "the mutant fingerprint of fixed inputs changed: every stored verdict would silently "
        "stop being reused (bump FINGERPRINT_SCHEME when that is meant)")
    config = config_fingerprint({"catalog": "mutants.toml"}, owner)
    assert config == "1f2f31558bc6ac3040ab482ad6bfa3368077892dde319b30719b4c3059626a21", (
        "the config fingerprint of fixed inputs changed: a resumable run would not resume")


# -- the sweep's verdict rules (deskcheck.mutants.verdicts) -----------------------------------

def _failed(nodeid: str, message: str, text: str = "", when: str = "call"):
    from deskcheck.mutants.verdicts import ItemResult

    return ItemResult(nodeid, "failed", when, message, text)


def _passed(nodeid: str):
    from deskcheck.mutants.verdicts import ItemResult

    return ItemResult(nodeid, "passed")


WRONG = ("ImportError", "TypeError", "fixture")


def test_exception_name_reads_only_the_dotted_name_before_the_first_colon():
    from deskcheck.mutants.verdicts import exception_name

    cases = {"a.b.RankError: rank 1: lost": "RankError", "KeyboardInterrupt": "",
             "pkg.mod.Err: x": "Err", "Timeout: a.b: c": "Timeout"}
    got = {message: exception_name(message) for message in cases}
    assert got == cases, f"exception names are read wrongly: {got}"


def test_a_failed_setup_of_a_plain_assertion_is_still_a_kill():
    from deskcheck.mutants.verdicts import failure_reason

    for name in ("AssertionError", "Failed"):
        result = _failed("t::o", f"{name}: told to admit", when="setup")
        assert failure_reason(result, None, WRONG) == "kill", (
            f"an owner whose fixture asserted ({name}) was not counted as a kill")


def test_a_rank_error_is_a_kill_unless_its_text_shows_a_crash():
    from deskcheck.mutants.verdicts import failure_reason

    clean = _failed("t::o", "deskcheck.errors.RankError: rank 1 failed", "rank 1 returned 3")
    assert failure_reason(clean, None, WRONG) == "kill", (
        "a rank error without any crash in its text was not counted as a kill")
    both = _failed("t::o", "deskcheck.errors.RankError: rank 1 failed",
                   "TypeError: x\nAssertionError: ranks disagree")
    assert failure_reason(both, None, WRONG) == "kill", (
        "a rank error whose text shows an AssertionError was not counted as a kill")


def test_killed_verdict_carries_killers_non_owner_failures_and_excerpt():
    from deskcheck.mutants.verdicts import decide

    results = [_failed("t::o", "AssertionError: told to admit", "E  long text"),
               _failed("t::x", "AssertionError: other"), _failed("t::red", "AssertionError: r")]
    verdict = decide(["t::o"], results, None, WRONG, clean_red=["t::red"])
    assert (verdict.verdict, verdict.killed_by, verdict.failed_non_owners) == (
        "KILLED", ["t::o"], ["t::x"]), f"a kill is reported wrongly: {verdict}"
    assert verdict.excerpt == "t::o: AssertionError: told to admit\nE  long text", (
        f"the kill's excerpt does not show the owner's failure: {verdict.excerpt!r}")


def test_expect_is_applied_to_every_owner_when_deciding():
    from deskcheck.mutants.verdicts import decide

    results = [_failed("t::o", "AssertionError: budget exhausted")]
    verdict = decide(["t::o"], results, "told to admit", WRONG)
    assert verdict.verdict == "WRONG_FAILURE", (
        f"decide ignored expect: a failure not matching it gave {verdict.verdict}")


def test_wrong_failure_and_timeout_verdicts_carry_their_evidence():
    from deskcheck.mutants.verdicts import decide

    for message, expected in (("TypeError: bad operand", "WRONG_FAILURE"),
                              ("TimeoutError: rank 1", "TIMEOUT")):
        results = [_failed("t::o", message, "trace"), _failed("t::x", "AssertionError: x")]
        verdict = decide(["t::o"], results, None, WRONG)
        assert (verdict.verdict, verdict.killed_by, verdict.failed_non_owners) == (
            expected, [], ["t::x"]), f"{expected} is reported wrongly: {verdict}"
        assert verdict.excerpt == f"t::o: {message}\ntrace", (
            f"the {expected} excerpt does not show the owner's failure: {verdict.excerpt!r}")


def test_owner_missed_and_survived_excerpts_name_the_tests():
    from deskcheck.mutants.verdicts import decide

    results = [_passed("t::o"), _passed("t::p"), _failed("t::x", "AssertionError: x")]
    missed = decide(["t::o", "t::p"], results, None, WRONG)
    assert (missed.verdict, missed.killed_by) == ("OWNER_MISSED", []), missed
    assert missed.excerpt == "killed only by non-owner(s): t::x\nt::x: AssertionError: x", (
        f"the OWNER_MISSED excerpt does not name the non-owner kill: {missed.excerpt!r}")
    survived = decide(["t::o", "t::p"], results[:2], None, WRONG)
    assert survived.excerpt == "every owner passed under the mutant: t::o, t::p", (
        f"the SURVIVED excerpt does not name the owners that passed: {survived.excerpt!r}")


def test_a_long_failure_text_is_trimmed_to_its_tail():
    from deskcheck.mutants.verdicts import decide

    text = "head " + "x" * 1300 + " tail"
    verdict = decide(["t::o"], [_failed("t::o", "AssertionError: a", text)], None, WRONG)
    body = verdict.excerpt.split("\n", 1)[1]
    assert body == text[-1200:], "the excerpt keeps the wrong part of a long failure text"
    exact = "y" * 1200
    verdict = decide(["t::o"], [_failed("t::o", "AssertionError: a", exact)], None, WRONG)
    assert verdict.excerpt.endswith("\n" + exact), "a text of exactly the limit was cut"


# -- shards ----------------------------------------------------------------------------------

def test_bad_shard_specs_name_the_spec_and_the_option():
    import pytest

    from deskcheck.errors import ConfigError
    from deskcheck.report.shard import parse_shard, shard_of

    for spec, words in (("a/4", "bad shard 'a/4': expected I/N"),
                        ("5/4", "bad shard '5/4': I must be between 1 and N"),
                        ("1/2/3", "bad shard '1/2/3': expected I/N")):
        with pytest.raises(ConfigError) as info:
            parse_shard(spec)
        assert words in info.value.message and info.value.location == "--shard", (
            f"a bad --shard {spec!r} is reported as {info.value.render()!r}")
    with pytest.raises(ValueError, match="shard count must be at least 1, got 0"):
        shard_of("x", 0)


# -- drift verdicts (deskcheck.drift_guard.verdicts) -----------------------------------------

def _shop_harnesses():
    """The dg_shop fixture's Scheduler with a complete harness (as tests/drift_guard uses)."""
    import sys
    from types import SimpleNamespace

    shop = Path(__file__).resolve().parents[1] / "drift_guard" / "fixtures" / "shopsrc"
    if str(shop) not in sys.path:
        sys.path.insert(0, str(shop))
    from dg_shop.mixins.budget import BudgetMixin
    from dg_shop.scheduler import Scheduler

    from deskcheck.harness import Harness, bind, stand_in, state

    class Complete(Harness, model=Scheduler, roots=["update_budget"], adopt=["streak"],
                   register=False, allow={"trace_enabled": "covered elsewhere"}):
        update_budget = bind(Scheduler.update_budget)
        budget = bind(BudgetMixin.budget)
        _floors = stand_in(lambda self: [1, 2], reason="floor inputs are not under test")
        ps = state(factory=lambda: SimpleNamespace(tp_rank=0))
        group = state(factory=lambda: SimpleNamespace(size=2))
        _budget_base = state(10)
        reserved_tokens = state(3)
        debug_hook = state(None)

    return Scheduler, Complete


def test_can_fail_plants_into_the_roots_and_mode_it_is_given():
    from deskcheck.drift_guard import can_fail

    scheduler, complete = _shop_harnesses()
    result = can_fail(complete, scheduler, ["run_once"], mode="static")
    assert result.ok, result.message()
    assert result.subject == "Complete", f"can_fail names {result.subject!r}, not the harness"
    assert result.planted.roots == ("run_once",), (
        f"can_fail ignored the roots it was given: planted into {result.planted.roots}")
    assert result.planted.surface.model.mode == "static", (
        "can_fail ignored mode='static' and read the class at runtime")
    canary = next(f for f in result.planted.findings if f.name == result.canary)
    assert canary.sites[0].path == ("Scheduler.run_once",), (
        f"the canary was not planted into the given root: {canary.sites[0].path}")


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
    assert signature_misfit(property(lambda self: 1), 3) is None
    assert signature_misfit(property(lambda self: 1), lambda self: 1) == (
        "production is a property; stand in with a property or a plain value"), (
        "a plain function standing in for a property was accepted")
    assert signature_misfit(lambda self, a: 0, property(lambda self: 1)) == (
        "production is a method; a property cannot be called like it")
    assert signature_misfit(lambda self, a: 0, 5) == (
        "production is a method; the stand-in is a int value")


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
    assert details.get(("reverse", "retired_default")) == "adopted default declared at here.py:1"
    assert details.get(("stale_allow", "ps.gone_attr")) == (
        "nothing in the surface needs it unprovided (reason given: chain)"), (
        f"a stale dotted allow entry is judged by the wrong name: {details}")
