"""docs/suites.md: the process-group timeout defaults to 10 s."""

from __future__ import annotations

import pytest

from deskcheck.suites import default_pg_timeout


def test_the_pg_timeout_defaults_to_10_s(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("DESKCHECK_PG_TIMEOUT", raising=False)
    got = default_pg_timeout()
    assert got == 10.0, (f"the process-group timeout defaults to {got} s; "
                         "docs/suites.md promises 10 s")


def test_deskcheck_pg_timeout_sets_it_and_an_explicit_timeout_wins(
        monkeypatch: pytest.MonkeyPatch):
    from deskcheck.suites import RankPool

    monkeypatch.setenv("DESKCHECK_PG_TIMEOUT", "2.5")
    assert default_pg_timeout() == 2.5, (
        f"DESKCHECK_PG_TIMEOUT=2.5 must set the process-group timeout; it is {default_pg_timeout()}")
    from_env = RankPool(2, "gloo").timeout_s  # no rank is started
    explicit = RankPool(2, "gloo", timeout_s=7).timeout_s
    assert (from_env, explicit) == (2.5, 7.0), (
        "a pool without timeout_s= takes DESKCHECK_PG_TIMEOUT (2.5 s) and rank_pool(..., "
        f"timeout_s=7) wins over it; the pools got {from_env} s and {explicit} s")


def test_a_pg_timeout_that_is_not_a_number_names_the_variable_and_the_fix(
        monkeypatch: pytest.MonkeyPatch):
    from deskcheck.errors import DeskcheckError

    monkeypatch.setenv("DESKCHECK_PG_TIMEOUT", "10s")
    with pytest.raises(DeskcheckError) as info:
        default_pg_timeout()
    text = info.value.render()
    assert "DESKCHECK_PG_TIMEOUT='10s'" in text and "fix:" in text, (
        f"DESKCHECK_PG_TIMEOUT=10s must be refused naming the variable, its value and the fix: {text}")
