"""Output of an auto sweep: terminal, the Markdown PR summary (survivors by file) and JSON."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from deskcheck.mutants.auto.coverage_map import describe
from deskcheck.mutants.auto.pipeline import NO_COVERAGE, AutoResult
from deskcheck.report.records import MutantRecord
from deskcheck.report.summary import kill_phrase, kill_split, killed_phrase
from deskcheck.report.wording import kill_proof

try:  # the report part's helpers keep our Markdown consistent with its renderers
    from deskcheck.report.renderers.markdown import code, fence
except ImportError:  # pragma: no cover - the report part is optional here
    def fence(text: str, language: str = "") -> str:
        return f"````{language}\n{text.rstrip()}\n````"

    def code(text: str) -> str:
        return f"`` {text} ``"

STYLE = {"KILLED": "green", "SURVIVED": "bold red", "OWNER_MISSED": "red",
         NO_COVERAGE: "bold yellow", "TIMEOUT": "yellow", "BASELINE_RED": "bold red"}
ATTENTION = ("SURVIVED", "OWNER_MISSED", NO_COVERAGE, "WRONG_FAILURE", "TIMEOUT", "BROKEN",
             "NOT_INJECTABLE", "STALE", "BASELINE_RED", "NOT_RUN")


def _auto(record: MutantRecord) -> dict[str, Any]:
    return record.detail.get("auto", {})


def headline(result: AutoResult) -> str:
    gen, changes = result.generation, result.changes
    killed = killed_phrase(result.records)
    counts = ("; " if ":" in killed else ", ").join(
        killed if v == "KILLED" else f"{n} {v}" for v, n in sorted(result.counts().items())
    ) or "no mutants"
    state = "holds" if result.holds else "falls short"
    return (f"deskcheck auto vs {result.settings.changed_since} ({changes.base[:10]}): "
            f"{changes.line_count} changed production line(s) in {len(changes.files)} file(s), "
            f"{len(gen.mutants)} mutant(s) from {gen.candidates} candidate(s) "
            f"[{gen.dropped_by_line_cap} over the per-line cap, {gen.dropped_by_pr_cap} over the "
            f"PR cap], {len(gen.suppressed)} line(s) suppressed -> {counts} -> {state}")


def suppressed_summary(result: AutoResult) -> str:
    reasons = Counter(s.reason for s in result.generation.suppressed)
    return ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())


def verdict_table(result: AutoResult, width: int | None = None) -> tuple[Table, list[str]]:
    """The auto table fitted to ``width`` (``deskcheck.screen``): the mutant (path:line and
    family), its verdict and who killed it are kept, ids broken only after separators; the
    mutated line and the seconds are dropped first when the screen is narrow (returned)."""
    from deskcheck import screen

    mutant, line, verdict, who, secs = (
        screen.Column("mutant", keep=True, ids=True), screen.Column("mutated line", drop_order=1),
        screen.Column("verdict", keep=True), screen.Column("killed by / owners", ids=True,
                                                           keep=True),
        screen.Column("s", drop_order=0, justify="right"))
    for record in result.records:
        auto = _auto(record)
        proof = kill_proof(record)
        # Text cells: source code is full of `[...]`, which rich would read as markup
        mutant.cells.append(Text(f"{auto.get('path')}:{auto.get('line')}\n"
                                 f"{auto.get('family')}"))
        after = auto.get("change", "").rpartition(" -> ")[2]
        line.cells.append(Text(after))
        verdict.cells.append(Text(record.verdict, style=STYLE.get(record.verdict, "")))
        who.cells.append(Text("\n".join(record.killed_by) + (f"\n({proof})" if proof else "")
                              if record.killed_by else (
            f"{len(record.owners)} covering test(s)" if record.owners else "no covering test")))
        secs.cells.append(Text(f"{record.duration_s:.2f}"))
    return screen.fit_table([mutant, line, verdict, who, secs], width or screen.width(),
                            title="deskcheck auto")


def print_result(result: AutoResult, console: Console) -> None:
    """Table, then every survivor with its diff and a ready-to-paste catalog entry."""
    if result.records:
        table, dropped = verdict_table(result, console.width)
        console.print(table)
        if dropped:
            from deskcheck import screen

            console.print(screen.block(screen.dropped_note(dropped, "--json has them"),
                                       console.width), highlight=False, soft_wrap=True)
    for record in result.records:
        if record.verdict not in ("SURVIVED", "OWNER_MISSED", NO_COVERAGE):
            continue
        auto = _auto(record)
        console.rule(f"{record.verdict}: {auto.get('path')}:{auto.get('line')} {record.target}")
        # plain, unwrapped text: the diff and the TOML must survive copy and paste
        console.print(record.diff.rstrip(), markup=False, soft_wrap=True)
        if record.verdict == NO_COVERAGE:
            console.print("no test runs this line: add one, then adopt the mutant below")
        console.print("catalog entry (paste into the mutant catalog once a test kills it):")
        console.print(auto.get("catalog_entry", "").rstrip(), markup=False, soft_wrap=True)
    from deskcheck import screen

    if result.generation.suppressed:
        console.print(screen.block(f"suppressed changed lines: {suppressed_summary(result)}",
                                   console.width), markup=False, soft_wrap=True)
    for line in describe(result.coverage_refresh):
        console.print(screen.block(line, console.width), markup=False, soft_wrap=True)
    for note in result.coverage.notes if result.coverage is not None else ():
        console.print(screen.block(f"note: {note}", console.width), markup=False, soft_wrap=True)
    console.print(screen.block(headline(result), console.width), markup=False, soft_wrap=True)


def markdown_summary(result: AutoResult) -> str:
    """The PR comment: counts, then what needs attention grouped by file, kills folded away."""
    state = "holds" if result.holds else "falls short"
    killed = sum(1 for r in result.records if r.verdict == "KILLED")
    proof = kill_phrase(kill_split(result.records))
    lines = [f"## deskcheck auto: {state} — {killed} of {len(result.records)} mutants on "
             f"changed lines killed" + (f": {proof}" if proof else ""), "", headline(result), ""]
    if result.coverage_refresh is not None:
        lines += [*describe(result.coverage_refresh), ""]
    if result.generation.suppressed:
        lines += [f"Suppressed changed lines: {suppressed_summary(result)}.", ""]
    by_file: dict[str, list[MutantRecord]] = defaultdict(list)
    for record in result.records:
        if record.verdict in ATTENTION:
            by_file[_auto(record).get("path", record.source_file)].append(record)
    if by_file:
        lines += ["### Survivors and uncovered lines, by file", ""]
    for path in sorted(by_file):
        lines += [f"#### {code(path)}", ""]
        for record in sorted(by_file[path], key=lambda r: _auto(r).get("line", 0)):
            auto = _auto(record)
            covering = ", ".join(code(t) for t in auto.get("covering_tests", [])) or "none"
            lines += [f"- **{record.verdict}** line {auto.get('line')} in {code(record.target)}: "
                      f"{code(auto.get('change', ''))} ({auto.get('family')}); covering tests: "
                      f"{covering}", "", fence(record.diff, "diff"), "",
                      "<details><summary>catalog entry to adopt it as a named mutant</summary>",
                      "", fence(auto.get("catalog_entry", ""), "toml"), "", "</details>", ""]
    kills = [r for r in result.records if r.verdict == "KILLED"]
    if kills:
        lines += ["<details><summary>killed</summary>", ""]
        lines += [f"- {code(_auto(r).get('path', '') + ':' + str(_auto(r).get('line')))} "
                  f"{code(_auto(r).get('change', ''))} by {', '.join(code(k) for k in r.killed_by)}"
                  + (f", {kill_proof(r)}" if kill_proof(r) else "") for r in kills]
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def to_json(result: AutoResult) -> dict[str, Any]:
    """Stable keys: ``changed_since``, ``base``, ``files``, ``suppressed``, ``mutants``,
    ``counts``, ``holds``, ``timings_s``, ``coverage_map`` (what the owners pass did with the
    stored coverage map, in the terminal's words; empty when no map was looked for)."""
    gen = result.generation
    return {
        "changed_since": result.settings.changed_since,
        "base": result.changes.base,
        "files": [{"path": f.path, "changed_lines": sorted(f.lines)} for f in result.changes.files],
        "skipped_test_files": result.changes.skipped_tests,
        "suppressed": [{"path": s.path, "line": s.line, "reason": s.reason}
                       for s in gen.suppressed],
        "candidates": gen.candidates,
        "dropped_by_line_cap": gen.dropped_by_line_cap,
        "dropped_by_pr_cap": gen.dropped_by_pr_cap,
        "mutants": [r.to_json() for r in result.records],
        "counts": result.counts(),
        "kills": kill_split(result.records),
        "killed": killed_phrase(result.records),
        "holds": result.holds,
        "timings_s": {k: round(v, 3) for k, v in result.timings.items()},
        "coverage_map": describe(result.coverage_refresh),
        "notes": list(result.coverage.notes) if result.coverage is not None else [],
    }


def write_json(result: AutoResult, path: str) -> None:
    text = json.dumps(to_json(result), indent=2, sort_keys=True)
    if path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
