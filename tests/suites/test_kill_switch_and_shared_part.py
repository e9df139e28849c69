"""docs/suites.md, congruence arms: what each kill switch does in the rank for the premise run
(and only there), and that ``uniform=`` picks the part the ranks must share. Pure: the task a
rank runs (``decide_in_rank``) and the parent's check (``check_decisions``) are called here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from deskcheck.errors import CongruenceError
from deskcheck.suites import CongruenceArm, KillSwitch, check_decisions, decide_in_rank


def read_switch(_rank_input: int) -> str | None:
    return os.environ.get("DESK_TEST_SWITCH")


def fail_reading_switch(_rank_input: int) -> str | None:
    raise RuntimeError(os.environ.get("DESK_TEST_SWITCH"))


@pytest.mark.parametrize("before", [None, "1"], ids=["unset-before", "set-before"])
def test_the_env_switch_sets_the_variable_around_the_premise_call_then_restores_it(
        monkeypatch: pytest.MonkeyPatch, before: str | None) -> None:
    if before is None:
        monkeypatch.delenv("DESK_TEST_SWITCH", raising=False)
    else:
        monkeypatch.setenv("DESK_TEST_SWITCH", before)
    switch = KillSwitch.from_env("DESK_TEST_SWITCH", "0")
    seen_off = decide_in_rank(5, read_switch, switch, enforced=False)
    after = os.environ.get("DESK_TEST_SWITCH")
    seen_on = decide_in_rank(5, read_switch, switch, enforced=True)
    assert (seen_off, after, seen_on) == ("0", before, before), (
        "KillSwitch.from_env sets the variable in the rank's os.environ around the premise call "
        f"only, then restores it ({before!r} before): the premise call saw {seen_off!r}, after "
        f"it the variable is {after!r}, the enforced call saw {seen_on!r}")
    with pytest.raises(RuntimeError):
        decide_in_rank(5, fail_reading_switch, switch, enforced=False)
    assert os.environ.get("DESK_TEST_SWITCH") == before, (
        "a premise call that raises must still restore the variable to "
        f"{before!r}; it is {os.environ.get('DESK_TEST_SWITCH')!r}")


def keyword_decision(rank_input: int, **keywords: object) -> dict[str, object]:
    return {"input": rank_input, **keywords}


def test_the_keyword_switch_passes_its_keyword_only_in_the_premise_run() -> None:
    switch = KillSwitch.from_keyword("enforce", False)
    off = decide_in_rank(3, keyword_decision, switch, enforced=False)
    on = decide_in_rank(3, keyword_decision, switch, enforced=True)
    assert (off, on) == ({"input": 3, "enforce": False}, {"input": 3}), (
        "KillSwitch.from_keyword('enforce', False) calls decide(rank_input, enforce=False) for the "
        f"premise run and decide(rank_input) otherwise; the calls got {off} and {on}")


ENTERED: list[str] = []


@contextlib.contextmanager
def enforcer_off() -> Iterator[None]:
    ENTERED.append("in")
    try:
        yield
    finally:
        ENTERED.append("out")


def test_the_context_switch_wraps_only_the_premise_call() -> None:
    ENTERED.clear()
    switch = KillSwitch.from_context(enforcer_off)
    decide_in_rank(3, lambda x: ENTERED.append(f"decide {x}"), switch, enforced=True)
    decide_in_rank(4, lambda x: ENTERED.append(f"decide {x}"), switch, enforced=False)
    assert ENTERED == ["decide 3", "in", "decide 4", "out"], (
        "KillSwitch.from_context(factory) runs `with factory(): decide(rank_input)` for the "
        f"premise run only; the calls went {ENTERED}")


def _arm(**options: object) -> CongruenceArm:
    return CongruenceArm("count", keyword_decision, KillSwitch.from_keyword("enforce"), **options)


def test_uniform_picks_the_part_every_rank_must_share() -> None:
    arm = _arm(uniform=lambda decision: decision[0])
    try:
        check_decisions(arm, [3, 1, 2], [(1, "room 3"), (1, "room 1"), (1, "room 2")], "arm")
    except CongruenceError as exc:
        pytest.fail("with uniform= picking the count, ranks that share the count 1 and differ "
                    f"only in their rank-local evidence agree; the check failed:\n{exc}")
    with pytest.raises(CongruenceError) as info:
        check_decisions(arm, [3, 1, 2], [(1, "a"), (1, "b"), (2, "c")], "arm")
    text = str(info.value)
    assert "rank 2 diverged: decided 2 where ranks 0 and 1 decided 1" in text, (
        "with uniform= the shared part alone is compared: rank 2's count 2 against ranks 0 and "
        f"1's count 1 must be named; the error says:\n{text}")


def test_a_failed_check_is_located_at_the_arm_and_names_divergence_and_safety() -> None:
    arm = _arm(safety=lambda rank, free, decided: (
        f"was told to admit {decided} with room for {free}" if decided > free else None))
    with pytest.raises(CongruenceError) as info:
        check_decisions(arm, [3, 1, 3], [3, 3, 2], "count arm")
    error = info.value
    assert error.location == arm.defined_at and isinstance(error, AssertionError), (
        f"a congruence failure is an AssertionError located at the line that declared the arm "
        f"({arm.defined_at}); it is a {type(error).__name__} located at {error.location!r}")
    lines = error.message.splitlines()
    assert lines[:3] == ["count arm failed:", "  rank 2 diverged: decided 2 where ranks 0 and 1 "
                         "decided 3", "  rank 1 was told to admit 3 with room for 1"], (
        "the failure names the diverging rank, then each rank's safety clause after 'rank N'; "
        f"it says:\n{error.message}")
