"""What fails an audit (docs/uniformity.md): RANK-LOCAL always, UNKNOWN only under --strict,
a VACUOUS can-fail arm, and any failing declaration (exit 1); everything else holds (0)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.uniformity import Verdict, audit

SOURCE = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        try:
            self.poll()
        except Exception:
            dist.barrier(group=self.tp_group)

    def poll(self):
        pass
"""


def _package(root: Path, pyproject: str = "") -> Path:
    (root / "mini").mkdir()
    (root / "mini" / "__init__.py").write_text("")
    (root / "mini" / "sched.py").write_text(SOURCE)
    if pyproject:
        (root / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    return root


def test_unknown_fails_only_under_strict(tmp_path: Path) -> None:
    report = audit("mini.sched:Scheduler", root=_package(tmp_path))
    verdicts = {d.condition: d.verdict for d in report.decisions}
    assert verdicts.get("except Exception") is Verdict.UNKNOWN, (
        f"the except handler gating a barrier was not UNKNOWN: {verdicts}")
    assert report.exit_code(strict=False) == 0, (
        "an audit whose worst verdict is UNKNOWN failed without --strict (exit 1, expected 0)")
    assert report.exit_code(strict=True) == 1, (
        "an audit with an UNKNOWN decision held under --strict (exit 0, expected 1): "
        "--strict was ignored")


def test_a_vacuous_can_fail_arm_fails_the_audit(tmp_path: Path) -> None:
    report = audit("mini.sched:Scheduler", root=_package(tmp_path))
    assert report.exit_code(strict=False) == 0, "the clean audit should hold before the change"
    report.decisions[0].can_fail = "VACUOUS: a rank-local read planted here was not reported"
    assert report.exit_code(strict=False) == 1, (
        "a decision whose can-fail arm is VACUOUS did not fail the audit (exit 0, expected 1)")


def test_a_failing_declaration_fails_the_audit(tmp_path: Path) -> None:
    root = _package(tmp_path, """
        [tool.deskcheck.uniformity]
        [[tool.deskcheck.uniformity.role]]
        condition = "self.tp_rank == 0"
        why = "no decision has this condition: the declaration is stale"
    """)
    report = audit("mini.sched:Scheduler", root=root)
    stale = [f for f in report.declarations if f.kind == "role" and f.status == "stale"]
    assert stale, f"a role matching no decision was not reported stale: {report.declarations}"
    assert report.exit_code(strict=False) == 1, (
        "an audit with a stale role declaration held (exit 0, expected 1): a failing "
        "declaration must fail the audit")


@pytest.mark.parametrize("verdict, plain, strict", [
    ("UNIFORM", 0, 0), ("SANCTIONED", 0, 0), ("SYMMETRIC", 0, 0), ("TRIVIAL", 0, 0),
    ("ROLE", 0, 0), ("RANK-LOCAL", 1, 1), ("UNKNOWN", 0, 1)])
def test_each_verdict_exits_as_the_table_says(verdict, plain, strict) -> None:
    from deskcheck.uniformity.model import AuditReport, Decision

    report = AuditReport("m:S", ["step"], decisions=[
        Decision("S.step", "s.py", 3, "self.x", "if", verdict=Verdict(verdict))])
    got = (report.exit_code(strict=False), report.exit_code(strict=True))
    assert got == (plain, strict), (
        f"docs/uniformity.md's verdict table: an audit whose one decision is {verdict} exits "
        f"{plain} (and {strict} with --strict); it exits {got[0]} (and {got[1]})")
