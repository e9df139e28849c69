"""The terminal view of ``deskcheck standins``: a table readable at 80 columns (rich), then
each stand-in's findings and every problem, in the words of ``drift_guard.paths``."""

from __future__ import annotations

import io
import textwrap
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
    "reverse": "reverse (set on the stand-in, touched by no group's driven path)",
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


WIDTH = 80


def _wrap(text: str, indent: str, more: str | None = None, width: int = WIDTH) -> list[str]:
    """``text`` wrapped to ``width`` columns, first line at ``indent``, the rest at ``more``."""
    return textwrap.wrap(text, width, initial_indent=indent,
                         subsequent_indent=more if more is not None else indent + "  ",
                         break_long_words=True, break_on_hyphens=False) or [indent]


def _cut(text: str, room: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= room else text[: max(room - 1, 1)] + "…"


def _condition(rec: PathRecord, indent: str, width: int = WIDTH) -> list[str]:
    """The branch condition on one line: the text cut to fit, its ``file:line`` kept whole
    (the whole text is in ``--json``)."""
    text, sep, where = rec.condition.rpartition(" at ")
    if not sep:
        text, where = rec.condition, ""
    loc = f" ({Path(show(where).rpartition(':')[0]).name}:{where.rpartition(':')[2]})" \
        if where else ""
    head = f"{indent}under: "
    lines = [head + _cut(text, width - len(head) - len(loc)) + loc]
    if rec.why:
        lines += _wrap(f"why: {rec.why}", indent, indent + "     ", width)
    return lines


def _record(rec: PathRecord, compact: bool) -> list[str]:
    lines = _wrap(f"{rec.name}  {show(rec.site)}", "      ", "        ")
    if rec.call_path and not compact:
        lines += _wrap(f"path: {' -> '.join(rec.call_path)}", "        ", "          ")
    if rec.condition:
        lines += _condition(rec, "        ")
    if rec.detail and not compact:
        lines += _wrap(rec.detail, "        ")
    return lines


def _fixes(report: StandInReport, strict: bool) -> list[str]:
    """One fix line per failing category, in its own words."""
    where = report.construction.where
    model = report.model.rpartition(":")[2]
    out: list[str] = []
    drift = sorted({r.name for r in report.records("drift")})
    top = [n for n in drift if "." not in n]
    if top:
        out.append(f"fix (drift): set {_names(top)} on the stand-in built at {where} (a "
                   f"value, or types.MethodType of {model}'s function), or drive a path that "
                   "does not need it")
    inner: dict[str, list[str]] = {}
    for name in drift:
        if "." in name:
            holder, _dot, attr = name.rpartition(".")
            inner.setdefault(holder, []).append(attr)
    for holder, attrs in inner.items():
        container, _dot, last = holder.rpartition(".")
        if last == "[]":  # queue.[].rid: an element of the container in `queue` lacks it
            out.append(f"fix (drift): give {_names(attrs)} to every element of the container "
                       f"the stand-in built at {where} holds in `{container}`, or drive a path "
                       "that does not need it")
            continue
        out.append(f"fix (drift): set {_names(attrs)} on the namespace the stand-in built at "
                   f"{where} holds in `{holder}`, or drive a path that does not need it")
    skips = report.records("silent_skips")
    masked = sorted({r.name for r in skips if r.detail.startswith("masked")})
    served = sorted({r.name for r in skips if not r.detail.startswith("masked")})
    if masked:
        out.append(f"fix (silent skip): set {_names(masked)} on the stand-in: production "
                   "sets it, and the masked read hides that the stand-in does not")
    if served:
        out.append(f"fix (silent skip): set {_names(served)} explicitly, or build the mock "
                   "with spec_set= so that a name it lacks raises")
    for drift_call in report.signature:
        out.append(f"fix (signature): the call at {drift_call.site} {drift_call.problem}: "
                   f"update it to {drift_call.method}'s signature")
    if strict and report.records("unknown"):
        out.append("fix (unknown): pass literals at the call site or set the fields the "
                   "conditions read to literals, or judge with --run")
    if strict and report.records("unexercised"):
        out.append("fix (unexercised): add a test that enters those branches, or accept "
                   "them (they pass without --strict)")
    reverse = sorted({r.name for r in report.records("reverse")})
    if strict and reverse:
        out.append(f"fix (reverse): drop {_names(reverse)} from the stand-in, or drive the "
                   "method that reads it")
    return out


def _plain(value: object) -> bool:
    """A literal worth showing (not an object deskcheck only knows exists, nor a container of
    stand-ins)."""
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    if isinstance(value, tuple | list | set | frozenset):
        return all(_plain(v) for v in value)
    return value is None or type(value).__module__ == "builtins" or hasattr(value, "short")


def _names(names: list[str], most: int = 6) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _groups(report: StandInReport) -> list[str]:
    """The driving tests once per group (groups driven by the same tests shown together):
    their file once, then each test class once, then the test names."""
    lines: list[str] = []
    if not report.judgments:
        for driven in report.driven:
            lines += _wrap(f"drives {driven.method} ({driven.how})", "  ")
        return lines
    hows: dict[str, str] = {}
    for driven in report.driven:  # an argument drive is labelled Cls.method(param)
        name = driven.method.partition("(")[0].rpartition(".")[2] \
            if driven.how == "argument" else driven.method
        hows.setdefault(name, driven.how)
    shown: dict[tuple[str, ...], list[str]] = {}
    for judgment in report.judgments:
        methods = shown.setdefault(tuple(judgment.tests), [])
        methods += [m for m in judgment.methods if m not in methods]
    for i, (tests, methods) in enumerate(shown.items(), 1):
        label = f"group {i}" if len(shown) > 1 else "driven"
        lines += _wrap(f"{label}: " + ", ".join(f"{m} ({hows.get(m, '?')})" for m in methods),
                       "  ", "      ")
        files: dict[str, dict[str, list[str]]] = {}
        for test in tests:
            file, _, tail = test.partition("::")
            klass, _, name = tail.rpartition("::")
            files.setdefault(file, {}).setdefault(klass, []).append(name)
        for file, classes in files.items():
            count = sum(len(v) for v in classes.values())
            lines += _wrap(f"{count} test{'s' * (count != 1)} in {file}", "    ", "      ")
            for klass, names in classes.items():
                head = f"{klass}: " if klass else ""
                # a test name is never split (one longer than the line stays whole)
                lines += textwrap.wrap(head + ", ".join(names), WIDTH, initial_indent="      ",
                                       subsequent_indent="        ", break_long_words=False,
                                       break_on_hyphens=False)
    return lines


def details(discovery: Discovery) -> list[str]:
    lines: list[str] = []
    for report in discovery.reports:
        cons = report.construction
        found = [(c, report.records(c)) for c in TITLES]
        if not any(records for _c, records in found) and report.holds:
            continue
        lines += _wrap(f"{cons.where} {cons.form} -> {report.model.rpartition(':')[2]} "
                       f"[{report.status}]", "")
        if report.judgments:
            undecided = f"; {len(report.undecided)} undecided: {', '.join(report.undecided)}" \
                if report.undecided else ""
            lines += _wrap(f"judged on {report.decided} of {report.needed} needed "
                           f"name{'s' * (report.needed != 1)}{undecided}", "  ", "    ")
        lines += _groups(report)
        if report.sets:
            shown = ", ".join(f"{n}={_cut(repr(s.value), 20)}" if _plain(s.value) else n
                              for n, s in report.sets.items())
            lines += _wrap(f"sets: {shown}", "  ", "        ")
        if report.signature:
            lines.append("    signature drift (the driven call no longer fits) FAILS:")
            for item in report.signature:
                lines += _wrap(f"{item.method}  {item.site}: {item.problem}", "      ",
                               "        ")
        for category, records in found:
            if not records:
                continue
            fails = category in ("drift", "silent_skips") or discovery.strict and category in (
                "unexercised", "unknown", "reverse")
            lines += _wrap(f"{TITLES[category]}{' FAILS' if fails else ''}:", "    ", "      ")
            compact = category not in ("drift", "silent_skips")
            if category == "reverse":
                lines += _wrap(", ".join(r.name for r in records), "      ")
                continue
            for rec in records:
                lines += _record(rec, compact)
        notes = sorted({n for j in report.judgments for n in j.verdict.notes})
        for note in notes:
            lines += _wrap(f"note: {note}", "  ", "    ")
        for fix in _fixes(report, discovery.strict):
            lines += _wrap(fix, "  ", "    ")
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
