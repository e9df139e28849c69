"""The hang budget: a test that joined a rank group gets, once, the group's timeout twice
plus 5 s; a group over 300 s is not waited for (docs/mutants.md, *Hangs*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck import rank_hooks
from deskcheck.mutants.runner import Budget, Runner, _Running


def running(stacks: Path, group_s: float) -> _Running:
    (stacks / f"123{rank_hooks.GROUP_SUFFIX}").write_text(f"{group_s:g}")
    return _Running(job=None, budget=Budget(constant=10.0, factor=3.0), pid=0, fd=-1,  # type: ignore[arg-type]
                    token="", stacks_dir=str(stacks), started=0.0, deadline=10.0,
                    current="t::a", item_started=0.0)


def test_the_budget_covers_the_group_timeout_twice_plus_five_seconds(tmp_path):
    run = running(tmp_path, 20.0)
    assert Runner._wait_for_diagnosis(run), "a test in a 20 s rank group was not waited for"
    assert run.deadline == pytest.approx(10.0 + 2 * 20.0 + 5.0), (
        f"the deadline became {run.deadline}, expected the allowance 10 + 2 x the group's "
        "20 s timeout + 5 s")
    assert not Runner._wait_for_diagnosis(run), "the same test was given the extension twice"


def test_a_group_over_300_seconds_is_not_waited_for(tmp_path):
    run = running(tmp_path, 301.0)
    assert not Runner._wait_for_diagnosis(run), (
        "a rank group with a 301 s timeout was waited for (over 300 s must stay TIMEOUT)")
    assert run.deadline == 10.0, "the deadline moved for a group over 300 s"


def test_a_group_of_exactly_300_seconds_is_still_waited_for(tmp_path):
    run = running(tmp_path, 300.0)
    assert Runner._wait_for_diagnosis(run), (
        "docs/mutants.md: only groups with a timeout *over* 300 s are not waited for; a group "
        "of exactly 300 s was not")
    assert run.deadline == pytest.approx(10.0 + 2 * 300.0 + 5.0), (
        f"the deadline became {run.deadline}, expected 10 + 2 x 300 + 5")
