"""TRIVIAL (docs/uniformity.md verdict table): a decision whose collectives only run where
their group has one rank holds, whatever it reads; the single-rank guard must be on the
collective's own group, on the side that runs it (an enclosing `if` or an early exit)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.uniformity import Verdict, audit

SOURCE = """
import time
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        if self.tp_size == 1:
            if time.monotonic() > 1:
                dist.barrier(group=self.tp_group)
        if self.pp_size == 1:
            if time.monotonic() > 2:
                dist.barrier(group=self.tp_group)
        if self.tp_size > 1:
            if time.monotonic() > 3:
                dist.barrier(group=self.tp_group)
        if self.tp_size != 1:
            return
        if time.monotonic() > 4:
            dist.barrier(group=self.tp_group)
"""

CASES = [
    ("time.monotonic() > 1", Verdict.TRIVIAL, "under `if self.tp_size == 1`: the TP barrier "
     "runs only where the TP group has one rank"),
    ("time.monotonic() > 2", Verdict.RANK_LOCAL, "under `if self.pp_size == 1`: one PP rank "
     "says nothing of the TP group the barrier runs over"),
    ("time.monotonic() > 3", Verdict.RANK_LOCAL, "under `if self.tp_size > 1`: the TP group "
     "has several ranks there"),
    ("time.monotonic() > 4", Verdict.TRIVIAL, "after `if self.tp_size != 1: return`: only a "
     "one-rank TP group gets there"),
]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, tuple[Verdict, str]]:
    root: Path = tmp_path_factory.mktemp("trivial")
    (root / "mini").mkdir()
    (root / "mini" / "__init__.py").write_text("")
    (root / "mini" / "sched.py").write_text(textwrap.dedent(SOURCE))
    report = audit("mini.sched:Scheduler", root=root)
    return {d.condition: (d.verdict, d.why) for d in report.decisions}


@pytest.mark.parametrize("condition, expected, why", CASES, ids=[c[0] for c in CASES])
def test_a_clock_decision_is_trivial_only_where_its_groups_collectives_need_one_rank(
        verdicts, condition, expected, why) -> None:
    got = verdicts.get(condition)
    assert got is not None and got[0] is expected, (
        f"`if {condition}` gating a TP barrier {why}, so it must be {expected}; it was {got}")


def test_a_decision_gating_tp_and_pp_collectives_under_tp_size_one_is_not_trivial(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_size == 1:
                    if time.monotonic() > self.deadline:
                        dist.barrier(group=self.tp_group)
                        dist.barrier(group=self.pp_group)
    """}, "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n")
    d = next(d for d in audit("pkg.s:S", root=root).decisions if "monotonic" in d.condition)
    assert d.verdict is Verdict.RANK_LOCAL, (
        "docs/uniformity.md: TRIVIAL means the collectives only matter where the group has "
        "one rank; under tp_size == 1 the pp barrier still has several ranks, so a clock "
        f"gating it is RANK-LOCAL: the audit said {d.verdict} ({d.why})")
