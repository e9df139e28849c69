"""The terminal view of ``deskcheck standins``: a table readable at 80 columns (rich), then
each stand-in's findings and every problem, in the words of ``drift_guard.paths``."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.table import Table

from deskcheck import screen
from deskcheck.drift_guard.paths import PathRecord
from deskcheck.drift_guard.standins.discover import Discovery
from deskcheck.drift_guard.standins.judge import StandInReport

TITLES = {
    "drift": "drift (needed on the driven path, not set)",
    "silent_skips": "silent skip (masked read on the driven path: would not raise)",
    "unexercised": "unexercised (only on branches the tests do not enter)",
    "unknown": "unknown (behind conditions the stand-in's constants cannot decide)",
    "context": "context (module-level state the driven path reads)",
    "reverse": "reverse (set on the stand-in, never touched by the driven methods)",
}


_BASES: list[Path] = []


def show(site: str) -> str:
    """``file:line`` relative to the working directory, else to a source root."""
    path, sep, line = site.rpartition(":")
    if not sep:
        return site
    resolved = Path(path).resolve()
    for base in (Path.cwd(), *_BASES):
        try:
            return f"{resolved.relative_to(base.resolve())}:{line}"
        except ValueError:
            continue
    return site


def _verdict_cell(report: StandInReport, strict: bool) -> str:
    if not report.judgments:
        return "not driven"
    counts = [(len(report.records(c)), label) for c, label in
              (("drift", "drift"), ("silent_skips", "silent"), ("unexercised", "unexercised"),
               ("unknown", "unknown"))]
    parts = ", ".join(f"{n} {label}" for n, label in counts if n)
    head = "[green]holds[/]" if report.holds else "[bold red]DRIFT[/]"
    return f"{head}\n{parts}" if parts else head


def build_table(discovery: Discovery) -> Table:
    table = Table(title=f"stand-ins ({discovery.mode})", title_justify="left",
                  show_lines=True)
    # widths from the cells (screen.Wrapped: never narrower than an unbreakable piece)
    table.add_column("built at")
    table.add_column("model")
    table.add_column("driven by")
    table.add_column("sets", justify="right")
    table.add_column("verdict", no_wrap=True)
    for report in discovery.reports:
        cons = report.construction
        through = f"\nvia {', '.join(cons.through)}" if cons.through else ""
        driven = "\n".join(f"{d.method} ({len(d.tests)} test{'s' * (len(d.tests) != 1)})"
                           for d in report.driven) or "-"
        table.add_row(screen.Wrapped(f"{Path(cons.file).name}:{cons.line}\n{cons.kind}{through}"),
                      screen.Wrapped(report.model.rpartition(":")[2]),
                      screen.Wrapped(driven), str(len(report.sets)),
                      _verdict_cell(report, discovery.strict))
    return table


def _record(rec: PathRecord, compact: bool) -> list[str]:
    if compact:
        under = f"  under {rec.condition}" if rec.condition else ""
        return [f"      {rec.name}  {show(rec.site)}{under}"]
    lines = [f"      {rec.name}  {show(rec.site)}"]
    if rec.call_path:
        lines.append(f"        path: {' -> '.join(rec.call_path)}")
    if rec.condition:
        lines.append(f"        under: {rec.condition}")
    if rec.detail:
        lines.append(f"        {rec.detail}")
    return lines


def details(discovery: Discovery) -> list[str]:
    lines: list[str] = []
    for report in discovery.reports:
        cons = report.construction
        found = [(c, report.records(c)) for c in TITLES]
        if not any(records for _c, records in found) and report.holds:
            continue
        lines.append(f"{cons.where} {cons.form} -> {report.model} [{report.status}]")
        for driven in report.driven:
            lines.append(f"  drives {driven.method} ({driven.how}): "
                         + ", ".join(t.rpartition('::')[2] for t in driven.tests))
        if report.sets:
            shown = ", ".join(f"{n}={s.value!r}" if s.constant else n
                              for n, s in report.sets.items())
            lines.append(f"  sets: {shown}")
        for category, records in found:
            if not records:
                continue
            fails = category in ("drift", "silent_skips") or discovery.strict and category in (
                "unexercised", "unknown", "reverse")
            lines.append(f"    {TITLES[category]}{' FAILS' if fails else ''}:")
            compact = category not in ("drift", "silent_skips")
            for rec in records:
                lines += _record(rec, compact)
        if not report.holds:
            lines.append(f"  built at {cons.where}: give it the name (a value, or "
                         "types.MethodType of the real function), or drive a path that does "
                         "not need it")
    return lines


def summary(discovery: Discovery) -> str:
    drifted = sum(not r.holds for r in discovery.reports)
    state = "all hold" if discovery.holds else "falls short"
    return (f"{len(discovery.reports)} stand-in(s) in {len(discovery.files)} file(s), "
            f"{len(discovery.driving_tests)} driving test(s): {drifted} drifted, "
            f"{len(discovery.problems)} problem(s) · {state} ({discovery.elapsed_s:.2f}s)")


def render(discovery: Discovery, *, width: int | None = None, color: bool = False) -> str:
    """The table and the blocks, every line within ``width`` (default: the one width rule,
    ``deskcheck.screen.width()``), ids broken only after a separator."""
    width = width or screen.width()
    _BASES[:] = discovery.roots
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color,
                      color_system="standard" if color else None, highlight=False)
    if discovery.reports:
        console.print(build_table(discovery))
    for line in details(discovery):
        console.print(screen.block(line, width), markup=False, soft_wrap=True)
    if discovery.problems:
        console.print(f"{len(discovery.problems)} problem(s) (not judged):", markup=False)
        for problem in discovery.problems:
            console.print(screen.block(f"  [{problem.kind}] " + problem.render().replace(
                "\n", "\n  "), width), markup=False, soft_wrap=True)
    if discovery.run:
        run = discovery.run
        console.print(f"--run: {run['tests']} driving test(s) under coverage in "
                      f"{run['wall_s']:.2f}s (exit {run['returncode']})", markup=False)
        if run.get("not_run"):
            console.print(screen.block("  did not run (their verdicts see no executed line): "
                                       + ", ".join(run["not_run"]), width), markup=False,
                          soft_wrap=True)
    console.print(screen.block(summary(discovery), width), markup=False, soft_wrap=True,
                  style="green" if discovery.holds else "red")
    return buffer.getvalue()
