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


def test_a_re_audit_that_reports_the_decision_without_the_planted_read_is_vacuous(
        tmp_path: Path, monkeypatch) -> None:
    """The arm is LIVE only when the re-audit names the planted read among the decision's
    inputs: a decision that is RANK-LOCAL for another reason (its own `self.tp_rank`) proves
    nothing about the planted read."""
    import importlib

    audit_module = importlib.import_module("deskcheck.uniformity.audit")
    from deskcheck.uniformity.model import AuditReport, Decision, Input, InputClass, Verdict

    path = tmp_path / "sched.py"
    path.write_text("class S:\n    def step(self):\n        if self.tp_rank == 0:\n"
                    "            dist.barrier()\n")

    def decision() -> Decision:
        return Decision("S.step", str(path), 3, "self.tp_rank == 0", "if",
                        inputs=[Input("self.tp_rank", InputClass.RANK_LOCAL)],
                        verdict=Verdict.RANK_LOCAL)

    monkeypatch.setattr(audit_module, "audit",
                        lambda *a, **k: AuditReport("m:S", ["step"], decisions=[decision()]))
    report = AuditReport("m:S", ["step"], decisions=[decision()])
    run_can_fail(report, "m:S", root=tmp_path)
    arm = report.decisions[0].can_fail
    assert arm.startswith("VACUOUS"), (
        "the re-audit reported the decision RANK-LOCAL through self.tp_rank only, never "
        f"naming the planted time.monotonic() read, yet its can-fail arm was {arm!r} "
        "(docs/uniformity.md: exactly that decision must turn RANK-LOCAL naming the read)")


SCHED = """
import torch.distributed as dist
from mini.helper import Helper

class Scheduler:
    def __init__(self):
        self.helper = Helper()

    def event_loop(self):
        self.helper.tick()
        if self.waiting:
            dist.barrier(group=self.tp_group)
        else:
            dist.barrier(group=self.tp_group)
"""

HELPER = """
import time
import torch.distributed as dist


class Helper:
    def __init__(self):
        self.tp_group = None

    def tick(self):
        if time.monotonic() > 3:
            dist.barrier(group=self.tp_group)
"""


def test_a_clock_decision_of_another_function_on_the_same_line_does_not_make_one_live(
        tmp_path: Path) -> None:
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(SCHED)
    (tmp_path / "mini" / "helper.py").write_text(HELPER)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    lines = {d.condition: (d.function, d.line) for d in report.decisions}
    assert lines.get("self.waiting", (0, 0))[1] == lines.get("time.monotonic() > 3", (0, 1))[1], (
        f"the fixture needs both decisions on one line number: {lines}")
    run_can_fail(report, "mini.sched:Scheduler", root=tmp_path)
    arms = {d.condition: d.can_fail for d in report.decisions}
    assert arms.get("self.waiting", "").startswith("VACUOUS"), (
        "docs/uniformity.md: --can-fail requires that exactly the planted decision turns "
        "RANK-LOCAL; the SYMMETRIC `if self.waiting` cannot, yet its arm was "
        f"{arms.get('self.waiting')!r}: Helper.tick's clock decision on the same line number "
        "of another file was counted as its hit")
