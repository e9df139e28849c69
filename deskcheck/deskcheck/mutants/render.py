"""Terminal output of a sweep: progress while it runs (``deskcheck.progress``), a verdict
table after, and the JSON document (``--json``)."""

from __future__ import annotations

import json
import platform
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from deskcheck import __version__, screen
from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.sweep import SweepResult
from deskcheck.report.records import MutantRecord, RunRecord

STYLE = {"KILLED": "green", "ACCEPTED_SURVIVOR": "cyan", "SURVIVED": "bold red",
         "OWNER_MISSED": "red", "WRONG_FAILURE": "yellow", "STALE": "magenta",
         "TIMEOUT": "bold yellow", "BROKEN": "magenta", "BASELINE_RED": "bold red"}


def _reason_lines(record: MutantRecord) -> list[str]:
    """What the reason column shows: who killed it, else the first line of why."""
    if record.killed_by:
        return list(record.killed_by)
    from deskcheck.report.renderers.junit import verdict_message

    return [verdict_message(record)]


def verdict_table(records: list[MutantRecord], width: int | None = None) -> Table:
    """One row per mutant: its id, title and who killed it (or why not) stacked in one cell,
    beside the verdict and the seconds. Stacked, the table fits ``width`` (``screen.width()``)
    columns; an id or owner node id too long for the cell breaks only after a separator
    (``screen.id_lines``), never mid-word and never cut, so its parametrization shows."""
    room = width or screen.width()
    verdict_w = max([len("verdict"), *(len(r.verdict) for r in records)])
    cell_room = max(20, room - verdict_w - 5 - 10)  # two narrow columns and the borders
    table = Table(title="deskcheck sweep", title_justify="left")
    table.add_column("mutant · killed by / reason", no_wrap=True, min_width=cell_room,
                     max_width=cell_room)
    table.add_column("verdict", no_wrap=True, min_width=verdict_w)
    table.add_column("s", no_wrap=True, justify="right", min_width=5)
    for record in records:
        style = STYLE.get(record.verdict, "")
        cell = Text()
        parts = [(line, "bold", 0) for line in screen.id_lines(record.id, cell_room)]
        parts += [(line, "dim", 0) for line in screen.wrap("  " + record.title, cell_room)]
        for reason in _reason_lines(record):
            parts += [(line, "", 0) for line in screen.wrap("  " + reason, cell_room)]
        for n, (line, line_style, _) in enumerate(parts):
            cell.append(("\n" if n else "") + line, style=line_style or None)
        table.add_row(cell, Text(record.verdict, style=style), f"{record.duration_s:.2f}")
    return table


def catalog_listing(mutants: Sequence[Mutant], width: int | None = None) -> Group:
    """``mutants list``: a block per mutant, one token per line where a line could get long;
    every line fits ``width`` (ids broken only after a separator, see ``deskcheck.screen``)."""
    room = width or screen.width()
    blocks: list[Text] = []
    for mutant in mutants:
        head = screen.wrap(f"{mutant.id}  {mutant.title}", room)
        block = Text(head[0][:len(mutant.id)], style="bold")
        block.append(head[0][len(mutant.id):] + "".join("\n" + line for line in head[1:]))
        lines = screen.wrap(f"    target: {mutant.target}  [{mutant.operator}]", room)
        lines.append("    owners:")
        for owner in list(mutant.owners) or ["(none: @pytest.mark.kills markers)"]:
            lines += screen.wrap(f"      {owner}", room)
        block.append("".join("\n" + line for line in lines))
        if mutant.accepted_survivor:
            block.append("".join("\n" + line for line in screen.wrap(
                f"    accepted survivor: {mutant.accepted_survivor}", room)), style="cyan")
        blocks.append(block)
    return Group(*blocks)


def _split_after(excerpt: list[str], cut: int) -> list[str]:
    """The first split's header and each rank's way when the excerpt's cut left them out
    (a wide world's rank table fills the head): the lines a reader of a CI log needs."""
    start = next((i for i, line in enumerate(excerpt)
                  if line.lstrip().startswith("first split: ")), None)
    if start is None or start < cut:
        return []
    end = start + 1
    while end < len(excerpt) and re.match(r"\s*rank \d+: ", excerpt[end]):
        end += 1
    return excerpt[start:end]


def shortfall_report(records: list[MutantRecord], excerpt_lines: int = 12,
                     width: int | None = None) -> str:
    """Plain text, one block per mutant that does not hold: why, where the mutant sits, the
    fix to try and the head of the failure, each said once. Printed after the table so that
    the tail of a CI log (all most CI pages show) names what fell short and why."""
    from deskcheck.report.records import HOLDING_VERDICTS
    from deskcheck.report.wording import excerpt_lines as excerpt_of
    from deskcheck.report.wording import fix_hint, verdict_message

    blocks = []
    for record in records:
        if record.verdict in HOLDING_VERDICTS:
            continue
        where = (f" (catalog entry {screen.relative(record.source_file)}:{record.source_line})"
                 if record.source_file else "")
        lines = [f"{record.verdict} {record.id}{where}: {verdict_message(record)}"]
        if record.failed_non_owners and record.verdict not in ("OWNER_MISSED", "KILLED"):
            lines.append(f"  failed instead (not owners): {', '.join(record.failed_non_owners)}")
        excerpt = excerpt_of(record)
        lines += [f"  | {line}" for line in excerpt[:excerpt_lines]]
        split = _split_after(excerpt, excerpt_lines)
        if len(excerpt) > excerpt_lines:
            lines.append(f"  | ... ({len(excerpt) - excerpt_lines - len(split)} more lines: "
                         "--json or deskcheck report)")
        lines += [f"  | {line}" for line in split]
        hint = fix_hint(record)
        if hint:
            lines.append(f"  fix: {hint}")
        blocks.append(screen.block("\n".join(lines), width or screen.width()))
    return "\n\n".join(blocks)


def summary_line(result: SweepResult) -> str:
    """The sweep in one line, plain (a CI log shows it as is)."""
    return summary_text(result).plain


def summary_text(result: SweepResult) -> Text:
    """The summary line styled token by token (each count in its verdict's colour, the
    duration one token): printed with the highlighter off, so rich never colours ``20.7s`` as
    ``20.`` + ``7s``."""
    holds = result.holds
    text = Text.assemble(f"{len(result.records)} mutants in ",
                         (f"{result.duration_s:.1f}s", "bold"),
                         f" with {result.workers} worker(s): ")
    from deskcheck.report.summary import killed_phrase

    killed = killed_phrase(result.records)
    separator = "; " if ":" in killed else ", "  # "8 KILLED: 2 by an assertion, ...; 1 TIMEOUT"
    for n, (verdict, count) in enumerate(sorted(result.counts().items())):
        text.append(separator if n else "")
        text.append(killed if verdict == "KILLED" else f"{count} {verdict}",
                    style=STYLE.get(verdict, ""))
    text.append(" -> ")
    text.append("holds" if holds else "falls short", style="bold green" if holds else "bold red")
    return text


def output_console(stderr: bool = False) -> Console:
    """A console for results at ``deskcheck.screen.width()``: ``COLUMNS``, else the
    terminal's width, else 80 (the same rule for every command, on a terminal or not)."""
    return screen.console(stderr=stderr)


def run_record(result: SweepResult) -> RunRecord:
    return RunRecord(kind="sweep", started_at=result.started_at,
                     finished_at=result.finished_at, machine=platform.node(),
                     deskcheck_version=__version__,
                     status="holds" if result.holds else "falls_short",
                     summary=result.counts())


def to_json(result: SweepResult, catalog: Path) -> dict[str, Any]:
    """``kills``: how the KILLED mutants were killed (``assertion``/``hang``/``error``/
    ``crash``), ``killed`` the same in words (``8 KILLED: 2 by an assertion, ...``)."""
    from deskcheck.report.summary import kill_split, killed_phrase

    return {"catalog": str(catalog), "run": run_record(result).to_json(),
            "duration_s": round(result.duration_s, 3), "workers": result.workers,
            "holds": result.holds, "summary": result.counts(), "timing": result.timing,
            "kills": kill_split(result.records), "killed": killed_phrase(result.records),
            "mutants": [r.to_json() for r in result.records]}


def write_json(result: SweepResult, catalog: Path, path: str) -> None:
    text = json.dumps(to_json(result, catalog), indent=2)
    if path == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")
