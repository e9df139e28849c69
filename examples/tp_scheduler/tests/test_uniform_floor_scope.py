"""Unit arms of the floor-scope reporter: every transition, both directions, first always."""

from __future__ import annotations

import pytest
from tp_scheduler.uniform_floor_scope import floors_cover, scope_transition


def walk(worlds: list[int]) -> list[str | None]:
    previous = None
    reports = []
    for world in worlds:
        step = scope_transition(previous, world)
        previous = step.covered
        reports.append(step.report)
    return reports


def test_a_singleton_group_is_not_covering():
    assert floors_cover(1) is False
    assert scope_transition(None, 1).covered is False


def test_a_real_group_is_covering():
    assert floors_cover(2) is True and scope_transition(None, 3).covered is True


@pytest.mark.parametrize("world", [1, 2])
def test_the_first_observation_is_always_reported(world):
    report = scope_transition(None, world).report
    assert report is not None and "first observation" in report


def test_quiet_while_nothing_changes():
    assert walk([2, 2, 2])[1:] == [None, None]
    assert walk([1, 1, 1])[1:] == [None, None]


def test_every_transition_is_reported_in_both_directions():
    reports = walk([2, 1, 1, 2, 2, 1])
    assert [r is not None for r in reports] == [True, True, False, True, False, True]
    assert "floors OFF (lost)" in reports[1]
    assert "floors ON (restored)" in reports[3]


def test_context_is_named_in_the_line():
    report = scope_transition(None, 1, tp_rank=2, pp_size=3).report
    assert report.endswith("pp_size=3 tp_rank=2") and "world=1 -> floors OFF" in report


def test_an_empty_group_is_refused():
    with pytest.raises(ValueError, match=">= 1"):
        scope_transition(None, 0)
