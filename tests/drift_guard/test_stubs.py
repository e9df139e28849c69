"""Stubs: real methods/properties of the production class, supplied fields, loud misses."""

from __future__ import annotations

import pytest
from dg_shop.mixins.budget import BudgetMixin
from dg_shop.scheduler import Scheduler

from deskcheck.drift_guard import can_fail, guard, registered
from deskcheck.drift_guard.registry import unregister
from deskcheck.errors import HarnessError, UnmodelledFieldError
from deskcheck.stubs import StubSpec, stub
from tests.drift_guard.stub_drift import drift_error_of_a_stub_missing_reserved_tokens


def test_a_stub_runs_the_real_property_on_supplied_fields():
    s = stub(BudgetMixin, _budget_base=10, reserved_tokens=4)
    assert s.budget == 6 and isinstance(s, BudgetMixin), (
        "a stub must be a real BudgetMixin whose property runs on the fields given: 10 - 4 = 6; "
        f"budget {s.budget}, a BudgetMixin: {isinstance(s, BudgetMixin)}"
    )
    s.budget = 0
    assert s._budget_base == 4, (
        "the real setter must run on the stub: budget = 0 sets _budget_base to 4; it is "
        f"{s._budget_base}"
    )


def test_super_runs_on_a_stub_because_it_is_a_real_subclass():
    s = stub(Scheduler, base_reserved=1, batch_reserved=2)
    try:
        admitted = s.admit(5)  # pool_limit is a class default the stub did not adopt
    except UnmodelledFieldError as exc:
        assert "'pool_limit'" in str(exc), (
            f"reading the unadopted class default pool_limit failed without naming it: {exc}")
    else:
        pytest.fail(f"a stub read the class default pool_limit, which it did not adopt, without "
                    f"failing: admit(5) returned {admitted!r}")
    adopted = StubSpec(Scheduler, fields=["base_reserved", "batch_reserved"], adopt=["pool_limit"],
                       register=False)(base_reserved=1, batch_reserved=2)
    assert adopted.admit(5) == 5 - 1 - 2, (
        "super() must run on a stub with pool_limit adopted: admit(5) = 5 - 1 - 2 = 2; it "
        f"returned {adopted.admit(5)}"
    )


def test_reading_an_unmodelled_field_names_it_and_the_production_site():
    s = stub(BudgetMixin, _budget_base=10)
    with pytest.raises(UnmodelledFieldError) as info:
        _ = s.budget
    text = info.value.render()
    assert "does not model field 'reserved_tokens'" in text, (
        "an unmodelled read must say the stub 'does not model field 'reserved_tokens''; the error "
        f"says {text!r}"
    )
    assert "read by BudgetMixin.budget at " in text and "dg_shop/mixins/budget.py:6" in text, (
        f"an unmodelled read of reserved_tokens does not name its production site, "
        f"BudgetMixin.budget at dg_shop/mixins/budget.py:6; the error says: {text}")
    assert "pass reserved_tokens=..." in text, (
        f"an unmodelled read must give the fix 'pass reserved_tokens=...'; the error says {text!r}"
    )
    assert isinstance(info.value, AttributeError), (
        f"an UnmodelledFieldError must be an AttributeError; it is {type(info.value).__mro__}"
    )  # but never silently: it says where


def test_stub_with_roots_is_drift_guarded_when_built():
    error = drift_error_of_a_stub_missing_reserved_tokens()
    assert "BudgetMixinStub has drifted behind BudgetMixin.budget: ['reserved_tokens']" \
        in error.render(), (
        "a stub with roots must be drift-guarded when built, naming reserved_tokens; the error "
        f"says {error.render()!r}"
    )
    assert stub(BudgetMixin, roots=["budget"], _budget_base=1, reserved_tokens=1).budget == 0, (
        "a stub with roots and every field given must build and run: 1 - 1 = 0; budget is "
        f"{stub(BudgetMixin, roots=['budget'], _budget_base=1, reserved_tokens=1).budget}"
    )


def test_a_field_cannot_replace_a_real_method_or_property():
    with pytest.raises(HarnessError, match="BudgetMixin.budget is a method/property"):
        stub(BudgetMixin, budget=3)


def test_a_declared_stub_spec_registers_and_has_a_live_can_fail_arm():
    spec = StubSpec(BudgetMixin, fields=["_budget_base", "reserved_tokens"], name="BudgetStub")
    key = f"{__name__}:BudgetStub"
    try:
        assert registered()[key] is spec, (
            f"a declared StubSpec must be registered under {key}; registered: "
            f"{sorted(registered())}"
        )
        assert spec.roots == ("budget",), (
            "a StubSpec's roots must default to every property of the class (budget); they are "
            f"{spec.roots}"
        )  # default: every property
        assert guard(spec).ok, guard(spec).message()
        assert can_fail(spec).ok, (
            f"a declared stub's can-fail arm must be live; it says {can_fail(spec).message()!r}"
        )
    finally:
        unregister(key)
    with pytest.raises(HarnessError, match=r"does not declare field\(s\) \['other'\]"):
        spec(other=1)


def test_a_stub_field_production_no_longer_reads_is_reverse_drift():
    spec = StubSpec(BudgetMixin, fields=["_budget_base", "reserved_tokens", "retired"],
                    register=False)
    assert guard(spec).names("reverse") == ["retired"], (
        "a stub field production no longer reads (retired) must be reverse drift; reverse: "
        f"{guard(spec).names('reverse')}"
    )


@pytest.mark.parametrize("name", ["admit", "no_such_default"])
def test_adopt_takes_a_class_level_default_never_a_method_or_a_missing_name(name):
    try:
        StubSpec(Scheduler, fields=["base_reserved"], adopt=[name], register=False)
    except HarnessError as err:
        assert f"adopts {name!r}, not a class-level default" in str(err), (
            f"the refusal must name {name!r} as not a class-level default; it says {err}")
    else:
        pytest.fail(f"docs/drift.md:428: class-level defaults count only when adopted; a stub "
                    f"adopting {name!r}, not a plain class default of Scheduler, was accepted")


def test_a_stub_missing_a_field_is_guarded_even_after_a_full_one_of_the_same_roots():
    full = stub(BudgetMixin, roots=["budget"], _budget_base=1, reserved_tokens=1)
    assert full.budget == 0, f"the full stub must run: 1 - 1 = 0; budget is {full.budget}"
    error = drift_error_of_a_stub_missing_reserved_tokens()
    assert "['reserved_tokens']" in error.render(), (
        "docs/drift.md:428: stub(..., roots=...) is guarded when built, each set of fields on "
        "its own; after a full BudgetMixin stub of the same roots, one without reserved_tokens "
        f"must still be refused naming it; the error says {error.render()!r}")
