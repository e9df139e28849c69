"""SYMMETRIC means both arms issue the same collective sequence, groups included: a broadcast
over TP in one arm and over PP in the other parts the ranks (docs/uniformity.md)."""

from __future__ import annotations

from pathlib import Path

from deskcheck.uniformity import Verdict, audit

SOURCE = """
import torch
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        t = torch.tensor([1])
        if self.pool.available_size() > 0:
            dist.broadcast(t, 0, group=self.tp_group)
        else:
            dist.broadcast(t, 0, group={other})
"""


def _verdict(tmp_path: Path, other: str):
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(SOURCE.replace("{other}", other))
    report = audit("mini.sched:Scheduler", root=tmp_path)
    (d,) = [d for d in report.decisions if d.condition == "self.pool.available_size() > 0"]
    return d


def test_arms_with_the_same_group_are_symmetric(tmp_path: Path) -> None:
    d = _verdict(tmp_path, "self.tp_group")
    assert d.verdict is Verdict.SYMMETRIC, f"judged {d.verdict.value} ({d.why}), expected SYMMETRIC"


def test_arms_over_different_groups_are_not_symmetric(tmp_path: Path) -> None:
    d = _verdict(tmp_path, "self.pp_group")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"one arm broadcasts over tp, the other over pp, yet the decision was judged "
        f"{d.verdict.value} ({d.why}); expected RANK-LOCAL: the collective sequences differ "
        "in their group")


ORDERED = """
import time
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        if time.monotonic() - self.last > 5:
            dist.all_reduce(self.t, group=self.tp_group)
            dist.barrier(group=self.tp_group)
        else:
            dist.barrier(group=self.tp_group)
            dist.all_reduce(self.t, group=self.tp_group)
"""


def test_arms_issuing_the_same_collectives_in_another_order_are_not_symmetric(
        tmp_path: Path) -> None:
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(ORDERED)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    (d,) = [d for d in report.decisions if d.condition == "time.monotonic() - self.last > 5"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"one arm runs all_reduce then barrier, the other barrier then all_reduce (ranks that "
        f"disagree hang), yet the clock-gated decision was judged {d.verdict.value} "
        f"({d.why}); expected RANK-LOCAL: SYMMETRIC needs the same collective sequence, in "
        "the same order")
