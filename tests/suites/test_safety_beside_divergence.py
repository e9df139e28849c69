"""docs/suites.md: "Each check runs the decision on every rank and verifies: 1. uniformity
... 2. safety: the per-rank predicate". Both are verified: a rank that breaks the safety
predicate is named even when the ranks also diverged (checked on decisions already taken,
no rank started)."""

from __future__ import annotations

import pytest

from deskcheck.errors import CongruenceError
from deskcheck.suites import CongruenceArm, KillSwitch, check_decisions


def _admit(rank_input: int, enforce: bool = True) -> int:
    return rank_input


def _room_for_one(rank: int, rank_input: int, decision: int) -> str | None:
    return f"was told to admit {decision} with room for 1" if decision > 1 else None


def test_a_safety_violation_is_named_when_the_ranks_also_diverge() -> None:
    arm = CongruenceArm("admit", _admit, KillSwitch.from_keyword("enforce", False),
                        safety=_room_for_one)
    with pytest.raises(CongruenceError) as info:
        check_decisions(arm, [1, 1, 3], [1, 1, 3], "admit")
    message = str(info.value)
    assert "rank 2 diverged" in message, f"the divergence of rank 2 is not named:\n{message}"
    assert "rank 2 was told to admit 3 with room for 1" in message, (
        f"rank 2 diverged and also broke the safety predicate, but only the divergence is "
        f"named: safety must be verified on every rank, not only when they agree:\n{message}")
