"""docs/suites.md, congruence arms: "In property form the premise must hold for at least one
drawn example", and "Examples are not stored on disk". The ranks are stood in for by a pool
that runs each rank's task in this process (the decision takes no collective)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from deskcheck.errors import VacuousPremiseError
from deskcheck.suites import CongruenceArm, KillSwitch, check_arm_property
from deskcheck.suites.arm_property import DEFAULT_SETTINGS


class InProcessPool:
    """Each rank's task run here, one after the other."""

    world = 2

    def describe(self) -> str:
        return "in-process, world=2"

    def run(self, task: Any, *args: Any, per_rank: Sequence[Any], **kwargs: Any) -> list[Any]:
        return [task(value, *args, **kwargs) for value in per_rank]


def agreed_unless_off(free: int, enforce: bool = True) -> int:
    """Every rank decides 0 with the enforcer on; its own input with it off."""
    return 0 if enforce else free


ARM = CongruenceArm("agreed", agreed_unless_off, KillSwitch.from_keyword("enforce", False))
FEW = settings(DEFAULT_SETTINGS, max_examples=20, derandomize=True)


def test_one_diverging_example_among_many_is_enough_for_the_premise() -> None:
    mostly_alike = st.sampled_from([[1, 1], [2, 2], [1, 2]])
    try:
        tally = check_arm_property(ARM, mostly_alike, InProcessPool(), hypothesis_settings=FEW)
    except VacuousPremiseError as exc:
        pytest.fail("the premise must hold for at least one drawn example, not every one: "
                    f"draws where only [1, 2] diverges with the enforcer off were called "
                    f"vacuous:\n{exc}")
    assert tally.premise_diverged >= 1, (
        f"the diverging draw [1, 2] must be counted for the premise; the tally is {tally}")


def test_no_diverging_example_is_vacuous_at_the_arms_line() -> None:
    with pytest.raises(VacuousPremiseError) as info:
        check_arm_property(ARM, st.sampled_from([[1, 1], [2, 2]]), InProcessPool(),
                           hypothesis_settings=FEW)
    assert info.value.location == ARM.defined_at and "none made the ranks diverge" in \
        info.value.message, (
            "draws that never diverge with the enforcer off make the arm vacuous, located at the "
            f"arm's line {ARM.defined_at}; got {info.value.location!r}: {info.value.message}")


def test_drawn_examples_are_not_stored_on_disk() -> None:
    assert DEFAULT_SETTINGS.database is None, (
        "check_arm_property's default settings must store no examples on disk (database=None, "
        f"no .hypothesis/ in the user's tree); the database is {DEFAULT_SETTINGS.database!r}")
