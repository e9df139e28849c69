"""The audit for people: a terminal table (rich, 80 columns), Markdown, the same words."""

from __future__ import annotations

import os
from pathlib import Path

from deskcheck.uniformity.model import AuditReport, Decision, Verdict

_FAILING = (Verdict.RANK_LOCAL, Verdict.UNKNOWN)


def _vacuous(d: Decision) -> bool:
    """A decision whose can-fail arm is VACUOUS fails the audit whatever its verdict."""
    return d.can_fail.startswith("VACUOUS")


def short(path_and_rest: str) -> str:
    """``/abs/path/file.py:12 hop`` -> ``path/file.py:12 hop`` relative to the cwd."""
    head, sep, rest = path_and_rest.partition(":")
    try:
        rel = os.path.relpath(head)
        head = rel if not rel.startswith("../..") else head
    except ValueError:
        pass
    return f"{head}{sep}{rest}"


def summary_line(report: AuditReport, strict: bool) -> str:
    counts = report.counts()
    shown = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    state = "holds" if report.exit_code(strict) == 0 else "falls short"
    return (f"{report.target}: {len(report.decisions)} gating decisions over "
            f"{len(report.sites)} collective sites in {report.functions} functions "
            f"({shown or 'none'}) in {report.seconds:.2f}s: {state}")


_INPUTS_SHOWN = 3  # a finding's RANK-LOCAL/UNKNOWN inputs shown in the terminal
_HOPS_AT_EACH_END = 4  # a witness's first and last hops shown in the terminal


def _finding_lines(d: Decision, every: bool = False) -> list[str]:
    """A finding for the terminal: its first inputs, each witness's two ends; ``every``
    (--verbose): every input, every hop."""
    lines = [f"{d.verdict.value} {short(d.where)} {d.function}: {d.kind} `{d.condition}`",
             f"  why: {d.why}"]
    gated = ", ".join(f"{c.call} [{c.group or 'WORLD'}] {short(c.where)}" for c in d.collectives[:3])
    more = f" (+{len(d.collectives) - 3} more)" if len(d.collectives) > 3 else ""
    lines.append(f"  gates: {gated}{more}")
    failing = [i for i in d.inputs if i.klass.value in ("RANK-LOCAL", "UNKNOWN")]
    shown = failing if every else failing[:_INPUTS_SHOWN]
    for i in shown:
        lines.append(f"  input {i.klass.value} {i.name}: {i.reason}")
        lines += [f"    {hop}" for hop in _witness(i.witness, every)]
    if len(failing) > len(shown):
        lines.append(f"  (+{len(failing) - len(shown)} more inputs: --verbose, --json or "
                     f"--markdown list them)")
    if d.can_fail and d.can_fail != "LIVE":
        lines.append(f"  can-fail: {d.can_fail}")
    return lines


def _witness(hops: list[str], every: bool) -> list[str]:
    """A witness's hops, or its first and last few with the count left out between."""
    if every or len(hops) <= 2 * _HOPS_AT_EACH_END:
        return [short(w) for w in hops]
    left = len(hops) - 2 * _HOPS_AT_EACH_END
    return [*(short(w) for w in hops[:_HOPS_AT_EACH_END]), f"... ({left} more hops)",
            *(short(w) for w in hops[-_HOPS_AT_EACH_END:])]


def render_terminal(report: AuditReport, *, strict: bool = False, verbose: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=min(int(os.environ.get("COLUMNS", "80") or 80), 120), soft_wrap=True)
    table = Table(title="uniformity: gating decisions by verdict", width=80)
    table.add_column("verdict")
    table.add_column("decisions", justify="right")
    for verdict, count in report.counts().items():
        table.add_row(verdict, str(count))
    console.print(table)
    sources = report.sources()
    if sources:
        rows = Table(title="rank-local sources behind the RANK-LOCAL findings", width=80)
        rows.add_column("source (read at)", overflow="fold", ratio=3)
        rows.add_column("why", overflow="fold", ratio=1)
        rows.add_column("findings", justify="right")
        for row in sources[:20]:
            shown = f"{row.name}\n  {short(row.read_at)}" if row.read_at else row.name
            rows.add_row(shown, row.reason, str(len(row.decisions)))
        console.print(rows)
        if len(sources) > 20:
            console.print(f"(+{len(sources) - 20} more sources: --json lists them all)",
                          markup=False)
    lines: list[str] = []
    for d in report.decisions:
        if d.verdict in _FAILING or verbose or _vacuous(d):
            if d.verdict is Verdict.UNKNOWN and not (strict or verbose or _vacuous(d)):
                continue
            lines += _finding_lines(d, every=verbose)
    if lines:  # one print: tens of thousands of witness lines, each print costs rich ~0.1 ms
        console.print("\n".join(lines), markup=False, highlight=False)
    unknown = report.by_verdict(Verdict.UNKNOWN)
    if unknown and not (strict or verbose):
        console.print(f"{len(unknown)} UNKNOWN decisions (listed with --strict or --verbose)",
                      markup=False)
    unexercised = report.unexercised()
    if unexercised:
        console.print(f"{len(unexercised)} decisions with a rank-local or sanctioned input are "
                      f"exercised by no congruence arm (declare a replica with its arm)",
                      markup=False, highlight=False)
    for f in report.declarations:
        console.print(f"declaration {f.status}: {f.kind} {f.subject} ({short(f.where)}): "
                      f"{f.detail}", markup=False, highlight=False)
    for line in not_entered_lines(report):
        console.print(line, markup=False, highlight=False)
    for note in report.notes[:10]:
        console.print(f"note: {note}", markup=False, highlight=False)
    console.print(summary_line(report, strict), markup=False, highlight=False)


def not_entered_lines(report: AuditReport, top: int = 3) -> list[str]:
    """The calls the audit could not follow, by why: a collective inside one is not seen."""
    groups = report.not_entered_by_why()
    if not groups:
        return []
    out = [f"{len(report.not_entered)} calls not entered (a collective inside one is not "
           f"seen; --json lists them):"]
    out += [f"  {n} x {why} (first at {short(where)})" for why, n, where in groups[:top]]
    if len(groups) > top:
        out.append(f"  (+{len(groups) - top} more reasons)")
    return out


def render_markdown(report: AuditReport, *, strict: bool = False) -> str:
    out = [f"## deskcheck uniformity: {report.target}", "", summary_line(report, strict), "",
           "| verdict | decisions |", "|---|---:|"]
    out += [f"| {v} | {n} |" for v, n in report.counts().items()]
    sources = report.sources()
    if sources:
        out += ["", "### Rank-local sources behind the RANK-LOCAL findings", "",
                "| source | why | findings | read at |", "|---|---|---:|---|"]
        out += [f"| `{r.name}` | {r.reason} | {len(r.decisions)} | "
                f"{short(r.read_at) if r.read_at else '(witness cut before it)'} |"
                for r in sources]
    failing = [d for d in report.decisions if d.verdict is Verdict.RANK_LOCAL
               or (strict and d.verdict is Verdict.UNKNOWN) or _vacuous(d)]
    if failing:
        out += ["", "### Findings", ""]
        for d in failing:
            lines = _finding_lines(d, every=True)
            out.append(f"- **{lines[0]}**")
            out += [f"  {line.strip()}" if not line.startswith("    ") else f"    - `{line.strip()}`"
                    for line in lines[1:]]
    groups = report.not_entered_by_why()
    if groups:
        out += ["", "### Calls not entered", "",
                f"{len(report.not_entered)} calls not entered: their receivers did not resolve, "
                "so a collective inside one is not seen.", "",
                "| why | calls | first at |", "|---|---:|---|"]
        out += [f"| {why} | {n} | {short(where)} |" for why, n, where in groups]
    if report.declarations:
        out += ["", "### Declarations", ""]
        out += [f"- {f.status}: {f.kind} `{f.subject}` ({short(f.where)}): {f.detail}"
                for f in report.declarations]
    return "\n".join(out) + "\n"


def write_markdown(report: AuditReport, path: str, strict: bool) -> None:
    Path(path).write_text(render_markdown(report, strict=strict), encoding="utf-8")
