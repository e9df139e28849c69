"""--can-fail requires that exactly the planted decision turns RANK-LOCAL naming the read: a
neighbour in the same function that already reads a clock does not make it LIVE."""

from __future__ import annotations

from pathlib import Path

from deskcheck.uniformity import audit
from deskcheck.uniformity.canfail import run_can_fail

SOURCE = """
import time
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        if self.waiting:
            dist.barrier(group=self.tp_group)
        else:
            dist.barrier(group=self.tp_group)
        if time.monotonic() > 3:
            dist.barrier(group=self.tp_group)
"""


def test_a_neighbouring_clock_decision_does_not_make_a_symmetric_one_live(
        tmp_path: Path) -> None:
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(SOURCE)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    run_can_fail(report, "mini.sched:Scheduler", root=tmp_path)
    arms = {d.condition: d.can_fail for d in report.decisions}
    assert arms.get("time.monotonic() > 3") == "LIVE", f"the clock decision's arm: {arms}"
    assert arms.get("self.waiting", "").startswith("VACUOUS"), (
        "planting a clock read into the SYMMETRIC `if self.waiting` cannot turn it "
        f"RANK-LOCAL, yet its can-fail arm was {arms.get('self.waiting')!r}: the RANK-LOCAL "
        "clock decision on another line of the same function was counted as its hit")
