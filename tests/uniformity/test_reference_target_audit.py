"""docs/target.md: "The audit holds on the target: 3 UNIFORM, 2 SANCTIONED (through the
declared agreed fields and the replica), 1 TRIVIAL (the shutdown exit ...); `--strict` too."
Static, nothing imported: the audit of examples/tp_scheduler as the doc states it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from deskcheck.uniformity import audit

TARGET = Path(__file__).resolve().parents[2] / "examples" / "tp_scheduler"


def test_the_reference_target_audit_holds_with_the_documented_verdicts():
    report = audit("tp_scheduler.scheduler:Scheduler", root=TARGET)
    counts = dict(Counter(d.verdict.name for d in report.decisions))
    assert counts == {"UNIFORM": 3, "SANCTIONED": 2, "TRIVIAL": 1}, (
        "docs/target.md: the audit of the reference target finds 3 UNIFORM, 2 SANCTIONED, "
        f"1 TRIVIAL decisions; it found {counts}")
    codes = (report.exit_code(False), report.exit_code(True))
    assert codes == (0, 0), (
        "docs/target.md: the audit holds on the target, --strict too; exit codes (plain, "
        f"strict) were {codes}")
