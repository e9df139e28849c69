"""Terminal output of a sweep: a rich progress bar while it runs, a verdict table after,
and the JSON document (``--json``)."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from deskcheck import __version__
from deskcheck.mutants.sweep import SweepResult
from deskcheck.report.records import MutantRecord, RunRecord

STYLE = {"KILLED": "green", "ACCEPTED_SURVIVOR": "cyan", "SURVIVED": "bold red",
         "OWNER_MISSED": "red", "WRONG_FAILURE": "yellow", "STALE": "magenta",
         "TIMEOUT": "bold yellow", "BROKEN": "magenta", "BASELINE_RED": "bold red"}


class ProgressReporter:
    """A rich progress bar per phase. Refreshed from the sweep loop only (no thread), so
    forking a child never happens while another thread holds a lock."""

    def __init__(self, console: Console):
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.fields[last]}"), console=console,
                                 auto_refresh=False, transient=False)
        self.task: Any = None
        self.started = False

    def phase(self, name: str, total: int) -> None:
        if not self.started:
            self.progress.start()
            self.started = True
        self.task = self.progress.add_task(name, total=total, last="")
        self.progress.refresh()

    def advance(self, label: str) -> None:
        self.progress.update(self.task, advance=1, last=label)
        self.progress.refresh()

    def stop(self) -> None:
        if self.started:
            self.progress.stop()


def verdict_table(records: list[MutantRecord]) -> Table:
    table = Table(title="deskcheck sweep", show_lines=False)
    for column in ("mutant", "verdict", "killed by / reason", "s"):
        table.add_column(column, overflow="fold")
    for record in records:
        style = STYLE.get(record.verdict, "")
        why = ", ".join(record.killed_by) if record.killed_by else (
            record.excerpt.splitlines()[0] if record.excerpt else "")
        table.add_row(f"{record.id}\n[dim]{record.title}[/dim]",
                      f"[{style}]{record.verdict}[/{style}]", why[:160],
                      f"{record.duration_s:.2f}")
    return table


def shortfall_report(records: list[MutantRecord], excerpt_lines: int = 12) -> str:
    """Plain text, one block per mutant that does not hold: why, its owners, where the
    mutant sits and the head of the failure. Printed after the table so that the tail of a CI
    log (all most CI pages show) names what fell short and why."""
    from deskcheck.report.records import HOLDING_VERDICTS
    from deskcheck.report.renderers.junit import verdict_message

    blocks = []
    for record in records:
        if record.verdict in HOLDING_VERDICTS:
            continue
        where = (f" (catalog entry {record.source_file}:{record.source_line})"
                 if record.source_file else "")
        lines = [f"{record.verdict} {record.id}{where}: {verdict_message(record)}"]
        if record.failed_non_owners and record.verdict != "OWNER_MISSED":
            lines.append(f"  failed instead (not owners): {', '.join(record.failed_non_owners)}")
        excerpt = record.excerpt.strip().splitlines()
        lines += [f"  | {line}" for line in excerpt[:excerpt_lines]]
        if len(excerpt) > excerpt_lines:
            lines.append(f"  | ... ({len(excerpt) - excerpt_lines} more lines: --json or "
                         "deskcheck report)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def summary_line(result: SweepResult) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in sorted(result.counts().items()))
    state = "holds" if result.holds else "falls short"
    return (f"{len(result.records)} mutants in {result.duration_s:.1f}s with "
            f"{result.workers} worker(s): {counts} -> {state}")


def run_record(result: SweepResult) -> RunRecord:
    return RunRecord(kind="sweep", started_at=result.started_at,
                     finished_at=result.finished_at, machine=platform.node(),
                     deskcheck_version=__version__,
                     status="holds" if result.holds else "falls_short",
                     summary=result.counts())


def to_json(result: SweepResult, catalog: Path) -> dict[str, Any]:
    return {"catalog": str(catalog), "run": run_record(result).to_json(),
            "duration_s": round(result.duration_s, 3), "workers": result.workers,
            "holds": result.holds, "summary": result.counts(), "timing": result.timing,
            "mutants": [r.to_json() for r in result.records]}


def write_json(result: SweepResult, catalog: Path, path: str) -> None:
    text = json.dumps(to_json(result, catalog), indent=2)
    if path == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")
