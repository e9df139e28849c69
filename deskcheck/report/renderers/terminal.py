"""The verdict table for a terminal (rich)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from deskcheck.report.records import HOLDING_VERDICTS
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import verdict_order

VERDICT_STYLES = {
    "KILLED": "green", "ACCEPTED_SURVIVOR": "cyan", "SURVIVED": "bold red",
    "OWNER_MISSED": "bold red", "WRONG_FAILURE": "red", "TIMEOUT": "magenta",
    "STALE": "yellow", "BROKEN": "yellow", "BASELINE_RED": "bold yellow",
}


def build_table(data: ReportData) -> Table:
    run = data.run
    title = f"deskcheck {run.kind} run {run.id} · {run.commit[:12] or 'no commit'} · {run.tier}"
    table = Table(title=title, title_justify="left")
    for header in ("mutant", "verdict", "target", "owners", "killed by", "time"):
        table.add_column(header, overflow="fold")
    for m in sorted(data.mutants, key=lambda m: (verdict_order(m.verdict), m.id)):
        style = VERDICT_STYLES.get(m.verdict, "")
        verdict = m.verdict + (" (reused)" if m.reused else "")
        killers = m.killed_by or ([f"non-owner: {t}" for t in m.failed_non_owners]
                                  if m.verdict == "OWNER_MISSED" else [])
        table.add_row(m.id, f"[{style}]{verdict}[/]" if style else verdict, m.target,
                      "\n".join(m.owners), "\n".join(killers), f"{m.duration_s:.2f}s")
    return table


def summary_line(data: ReportData) -> str:
    summary = data.summary
    counts = ", ".join(f"{n} {v}" for v, n in summary.get("counts", {}).items() if n)
    state = "holds" if summary.get("holds") else "falls short"
    return (f"{summary.get('total', 0)} mutants: {counts or 'none'} · reused "
            f"{summary.get('reused', 0)} · {state}")


def render(data: ReportData, *, width: int = 120, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, color_system=None
                      if not color else "standard", highlight=False)
    print_report(data, console)
    return buffer.getvalue()


def print_report(data: ReportData, console: Console) -> None:
    console.print(build_table(data))
    held = all(m.verdict in HOLDING_VERDICTS for m in data.mutants)
    console.print(summary_line(data), style="green" if held else "red", markup=False)
