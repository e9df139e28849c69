"""A mutant's time budget (docs/mutants.md, *The catalog* and *The non-owner search has its
own budget*): ``timeout_s`` (the mutant's own, else ``[sweep]``'s) + ``timeout_factor`` x the
clean duration of each test it runs; the non-owner search gets ``search_timeout_s``, by default
max(60, 6 x timeout_s). Pure: the budget is built without a sweep."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import Mutant, SweepSettings
from deskcheck.mutants.sweep import mutant_budget


def mutant(timeout_s: float | None = None) -> Mutant:
    return Mutant(id="m.one", title="one", target="pkg.mod:f", operator="return",
                  params={"value": "None"}, owners=("tests/test_x.py::test_a",),
                  timeout_s=timeout_s)


def test_the_budget_is_the_constant_plus_the_factor_times_each_tests_clean_time():
    budget = mutant_budget(mutant(), SweepSettings(), {"t::a": 2.0})
    assert budget.constant == 10.0, (
        f"the default [sweep] timeout_s is documented as 10 s; the budget's constant is "
        f"{budget.constant}")
    assert budget.allowance("t::a") == pytest.approx(6.0), (
        "a test that took 2 s on clean code must be allowed timeout_factor (3.0) x 2 s = 6 s; "
        f"it was allowed {budget.allowance('t::a')}")
    assert budget.allowance("t::new") == 10.0, (
        "a test the baseline did not time must be allowed the constant timeout_s (10 s); it was "
        f"allowed {budget.allowance('t::new')}")


def test_a_mutants_own_timeout_s_overrides_the_catalogs_constant():
    settings = SweepSettings(timeout_s=7.0, timeout_factor=2.0)
    own = mutant_budget(mutant(timeout_s=5.0), settings, {"t::a": 1.0})
    assert own.constant == 5.0, (
        "a mutant's own timeout_s = 5 must override [sweep] timeout_s = 7; the budget's "
        f"constant is {own.constant}")
    plain = mutant_budget(mutant(), settings, {"t::a": 1.0})
    assert plain.constant == 7.0, (
        "a mutant without timeout_s must take [sweep] timeout_s = 7; the budget's constant is "
        f"{plain.constant}")
    assert plain.allowance("t::a") == pytest.approx(2.0), (
        "[sweep] timeout_factor = 2 must scale a 1 s clean test to 2 s; it was allowed "
        f"{plain.allowance('t::a')}")


@pytest.mark.parametrize(("timeout_s", "search_s"), [(5.0, 60.0), (10.0, 60.0), (11.0, 66.0),
                                                     (20.0, 120.0)])
def test_the_search_budget_defaults_to_the_larger_of_60_s_and_six_times_timeout_s(
        timeout_s, search_s):
    budget = mutant_budget(mutant(), SweepSettings(timeout_s=timeout_s), {})
    assert budget.search_s == pytest.approx(search_s), (
        f"with timeout_s = {timeout_s:g} and no search_timeout_s, the non-owner search's "
        f"budget must be max(60, 6 x {timeout_s:g}) = {search_s:g} s; it is {budget.search_s}")


def test_an_explicit_search_timeout_s_wins_over_the_default():
    budget = mutant_budget(mutant(), SweepSettings(timeout_s=20.0, search_timeout_s=30.0),
                           {"t::other": 4.0})
    assert budget.search_s == 30.0, (
        "search_timeout_s = 30 must be the non-owner search's budget (not the default "
        f"max(60, 6 x 20) = 120); it is {budget.search_s}")
    assert budget.search_allowance("t::other") == pytest.approx(12.0), (
        "a searched test with a 4 s clean time must add timeout_factor x 4 = 12 s; it added "
        f"{budget.search_allowance('t::other')}")
    assert budget.search_allowance("t::untimed") == 30.0, (
        "a searched test the baseline did not run must add search_timeout_s (30 s); it added "
        f"{budget.search_allowance('t::untimed')}")
