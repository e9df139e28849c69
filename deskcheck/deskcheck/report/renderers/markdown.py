"""Markdown for a PR comment or a CI job summary: what needs attention first, each with the
mutant's diff and the owner that missed it; the kills folded away at the end."""

from __future__ import annotations

from deskcheck.report.records import HOLDING_VERDICTS, MutantRecord
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import kill_phrase, kill_split, verdict_order
from deskcheck.report.wording import (
    accepted_reason,
    excerpt_lines,
    fix_hint,
    kill_proof,
    verdict_message,
)

GITHUB_COMMENT_LIMIT = 65_000  # GitHub refuses comments over 65,536 characters
_TRUNCATED = "\n\n_…report truncated to fit a PR comment; see the full report artifact._\n"


def fence(text: str, language: str = "") -> str:
    """A code fence longer than any backtick run inside ``text``."""
    longest = max((len(run) for run in text.split("\n") for run in _backtick_runs(run)),
                  default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text.rstrip()}\n{marks}"


def _backtick_runs(line: str) -> list[str]:
    runs, current = [], ""
    for char in line:
        if char == "`":
            current += char
        elif current:
            runs.append(current)
            current = ""
    return [*runs, current] if current else runs


def code(text: str) -> str:
    """Inline code that survives backticks and table pipes."""
    text = text.replace("|", "\\|")
    marks = "``" if "`" in text else "`"
    return f"{marks} {text} {marks}" if marks == "``" else f"`{text}`"


def _mutant_section(mutant: MutantRecord) -> str:
    """One mutant: target, why (which names the owners concerned, once), the fix to try, the
    diff, and the failure excerpt less what the lines above already said."""
    lines = [f"#### {mutant.verdict}: {code(mutant.id)} {mutant.title}", "",
             f"- target: {code(mutant.target)} ({mutant.operator})"]
    if mutant.verdict == "ACCEPTED_SURVIVOR":
        lines.append(f"- accepted: {accepted_reason(mutant)}")
    elif mutant.verdict == "SURVIVED":
        lines.append("- owner that missed it: "
                     + (", ".join(code(o) for o in mutant.owners) or "_no owner declared_"))
    elif mutant.verdict == "OWNER_MISSED":
        lines.append("- owner that missed it: "
                     + (", ".join(code(o) for o in mutant.owners) or "_no owner declared_"))
        lines.append("- failed instead (not owners): "
                     + ", ".join(code(t) for t in mutant.failed_non_owners))
    else:
        lines.append(f"- why: {verdict_message(mutant)}")
    hint = fix_hint(mutant)
    if hint:
        lines.append(f"- fix: {hint}")
    if mutant.diff:
        lines += ["", fence(mutant.diff, "diff")]
    excerpt = "\n".join(excerpt_lines(mutant))
    if excerpt.strip():
        lines += ["", "<details><summary>failure excerpt</summary>", "",
                  fence(excerpt, "text"), "", "</details>"]
    return "\n".join(lines) + "\n"


def render(data: ReportData, *, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    run, summary = data.run, data.summary
    short = [m for m in data.mutants if m.verdict not in HOLDING_VERDICTS]
    short.sort(key=lambda m: (verdict_order(m.verdict), m.id))
    accepted = [m for m in data.mutants if m.verdict == "ACCEPTED_SURVIVOR"]
    killed = [m for m in data.mutants if m.verdict == "KILLED"]
    state = "holds" if not short else "falls short"
    proof = kill_phrase(kill_split(killed))
    head = [f"## deskcheck {run.kind}: {state} — {len(killed)} of {len(data.mutants)} "
            "mutants killed by their owners" + (f": {proof}" if proof else ""), "",
            f"run {run.id} · commit {code(run.commit[:12] or 'unknown')} · branch "
            f"{code(run.branch or 'unknown')} · tier {run.tier}"
            + (f" · shard {run.shard}" if run.shard else "")
            + f" · {summary.get('reused', 0)} verdicts reused", "",
            "| verdict | mutants |", "| --- | ---: |"]
    head += [f"| {v} | {n} |" for v, n in summary.get("counts", {}).items() if n]
    body = ["\n".join(head) + "\n"]
    if short:
        body.append(f"### Needs attention ({len(short)})\n")
        body += [_mutant_section(m) for m in short]
    if accepted:
        body.append(f"### Accepted survivors ({len(accepted)})\n")
        body += [_mutant_section(m) for m in accepted]
    if killed:
        rows = ["| mutant | target | killed by | time |", "| --- | --- | --- | ---: |"]
        rows += [f"| {code(m.id)} | {code(m.target)} | "
                 f"{', '.join(code(t) for t in m.killed_by)}"
                 + (f" ({kill_proof(m)})" if kill_proof(m) else "") + " | "
                 f"{'reused' if m.reused else f'{m.duration_s:.2f}s'} |" for m in killed]
        body.append(f"<details><summary>Killed ({len(killed)})</summary>\n\n"
                    + "\n".join(rows) + "\n\n</details>\n")
    text = ""
    for part in body:
        if len(text) + len(part) > limit - len(_TRUNCATED):
            return text + _TRUNCATED
        text += part + "\n"
    return text
