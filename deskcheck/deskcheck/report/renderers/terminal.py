"""The verdict table for a terminal (rich)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from deskcheck import screen
from deskcheck.report.records import HOLDING_VERDICTS
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import killed_phrase, verdict_order

VERDICT_STYLES = {
    "KILLED": "green", "ACCEPTED_SURVIVOR": "cyan", "SURVIVED": "bold red",
    "OWNER_MISSED": "bold red", "WRONG_FAILURE": "red", "TIMEOUT": "magenta",
    "STALE": "yellow", "BROKEN": "yellow", "BASELINE_RED": "bold yellow",
}


def _cell(lines: list[Text], room: int) -> Text:
    """Whole lines, each within ``room``: an id too long breaks only after a separator, its
    continuation indented (``deskcheck.screen``); nothing is cut."""
    cell = Text()
    for line in lines:
        for piece in screen.wrap(line.plain, room):
            cell.append(("\n" if cell.plain else "") + piece, style=line.style or None)
    return cell


def build_table(data: ReportData, width: int | None = None) -> Table:
    """One row per mutant, survivors first: id, target and owners stacked in one cell (✔ the
    owner that killed it, ✘ a non-owner that failed instead), beside verdict and time, the
    whole table within ``width`` (the one width rule); ids are never cut."""
    run = data.run
    title = f"deskcheck {run.kind} run {run.id} · {run.commit[:12] or 'no commit'} · {run.tier}"
    table = Table(title=title, title_justify="left")
    rows = sorted(data.mutants, key=lambda m: (verdict_order(m.verdict), m.id))
    verdicts = [m.verdict + (" (reused)" if m.reused else "") for m in rows]
    verdict_w = max([len("verdict"), *map(len, verdicts)])
    room = max(20, (width or screen.width()) - verdict_w - 7 - 10)
    table.add_column("mutant · target · owners", no_wrap=True, min_width=room, max_width=room)
    table.add_column("verdict", no_wrap=True, min_width=verdict_w)
    table.add_column("time", no_wrap=True, justify="right", min_width=7)
    for m, verdict in zip(rows, verdicts, strict=True):
        killed = set(m.killed_by)
        lines = [Text(m.id, style="bold"), Text(f"  {m.target}", style="dim")]
        lines += [Text(f"  {'✔' if o in killed else '·'} {o}") for o in m.owners]
        lines += [Text(f"  ✔ non-owner: {t}") for t in m.killed_by if t not in m.owners]
        if m.verdict == "OWNER_MISSED":
            lines += [Text(f"  ✘ non-owner: {t}", style="red") for t in m.failed_non_owners]
        table.add_row(_cell(lines, room),
                      Text(verdict, style=VERDICT_STYLES.get(m.verdict, "")),
                      f"{m.duration_s:.2f}s")
    return table


def summary_line(data: ReportData) -> str:
    summary = data.summary
    killed = killed_phrase(data.mutants)
    counts = ("; " if ":" in killed else ", ").join(
        killed if v == "KILLED" else f"{n} {v}" for v, n in summary.get("counts", {}).items()
        if n)
    state = "holds" if summary.get("holds") else "falls short"
    return (f"{summary.get('total', 0)} mutants: {counts or 'none'} · reused "
            f"{summary.get('reused', 0)} · {state}")


def render(data: ReportData, *, width: int | None = None, color: bool = False) -> str:
    width = width or screen.width()
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, color_system=None
                      if not color else "standard", highlight=False)
    print_report(data, console)
    return buffer.getvalue()


def print_report(data: ReportData, console: Console) -> None:
    console.print(build_table(data, console.width))
    held = all(m.verdict in HOLDING_VERDICTS for m in data.mutants)
    console.print(summary_line(data), style="green" if held else "red", markup=False,
                  highlight=False, soft_wrap=True)
