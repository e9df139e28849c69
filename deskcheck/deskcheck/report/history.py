"""History: pick runs by selector and compare two of them ("what got worse since last night")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from deskcheck.errors import StoreError
from deskcheck.report.records import HOLDING_VERDICTS, SURVIVOR_VERDICTS, MutantRecord
from deskcheck.report.store import Store

_SELECTOR = re.compile(r"^(?:(\d+)|latest(?:~(\d+))?)$")
SELECTOR_FIX = "use a run id from `deskcheck history`, `latest`, or `latest~N` (N runs before)"


def resolve_run(store: Store, selector: str | int | None, kind: str | None = None) -> int:
    """A run id from ``ID``, ``latest`` or ``latest~N`` (among runs of ``kind`` when given)."""
    text = "latest" if selector in (None, "") else str(selector).strip()
    match = _SELECTOR.match(text)
    if not match:
        raise StoreError(f"bad run selector {text!r}", location=str(store.path), fix=SELECTOR_FIX)
    if match.group(1):
        return store.run(int(match.group(1))).id or 0
    back = int(match.group(2) or 0)
    runs = store.runs(kind)
    if back >= len(runs):
        what = f"{kind} runs" if kind else "runs"
        raise StoreError(f"{text!r}: the store has only {len(runs)} {what}",
                         location=str(store.path), fix=SELECTOR_FIX)
    return runs[-1 - back].id or 0


@dataclass
class VerdictChange:
    id: str
    before: str | None
    after: str | None
    mutant: MutantRecord | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "before": self.before, "after": self.after}


@dataclass
class RunDiff:
    """How run B differs from run A, mutant by mutant (matched by id)."""

    run_a: int
    run_b: int
    new_survivors: list[VerdictChange] = field(default_factory=list)
    fixed_survivors: list[VerdictChange] = field(default_factory=list)
    verdict_changes: list[VerdictChange] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[VerdictChange]:
        """Every mutant held in A (or new in B) that does not hold in B (removed ones aside)."""
        return [c for c in self.verdict_changes
                if c.after is not None and c.after not in HOLDING_VERDICTS
                and (c.before in HOLDING_VERDICTS or c.before is None)]

    @property
    def got_worse(self) -> bool:
        return bool(self.new_survivors or self.regressions)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a, "run_b": self.run_b, "got_worse": self.got_worse,
            "new_survivors": [c.to_json() for c in self.new_survivors],
            "fixed_survivors": [c.to_json() for c in self.fixed_survivors],
            "verdict_changes": [c.to_json() for c in self.verdict_changes],
            "regressions": [c.id for c in self.regressions],
            "added": self.added, "removed": self.removed,
        }


def diff_runs(run_a: int, mutants_a: list[MutantRecord], run_b: int,
              mutants_b: list[MutantRecord]) -> RunDiff:
    """New survivors (a survivor in B that was not one in A, or is new), fixed survivors
    (a survivor in A that no longer is one in B, still in the catalog), and every verdict
    change, including mutants added (``before`` None) and removed (``after`` None)."""
    before = {m.id: m for m in mutants_a}
    after = {m.id: m for m in mutants_b}
    result = RunDiff(run_a, run_b)
    for mutant_id in sorted(before.keys() | after.keys()):
        a, b = before.get(mutant_id), after.get(mutant_id)
        verdict_a, verdict_b = (a.verdict if a else None), (b.verdict if b else None)
        change = VerdictChange(mutant_id, verdict_a, verdict_b, b or a)
        if a is None:
            result.added.append(mutant_id)
        if b is None:
            result.removed.append(mutant_id)
        if verdict_a != verdict_b:
            result.verdict_changes.append(change)
        survivor_a, survivor_b = verdict_a in SURVIVOR_VERDICTS, verdict_b in SURVIVOR_VERDICTS
        if survivor_b and not survivor_a:
            result.new_survivors.append(change)
        elif survivor_a and not survivor_b and b is not None:
            result.fixed_survivors.append(change)
    return result


def diff_stored_runs(store: Store, run_a: int, run_b: int) -> RunDiff:
    return diff_runs(run_a, store.mutants(run_a), run_b, store.mutants(run_b))


def render_diff_text(diff: RunDiff) -> str:
    lines = [f"run {diff.run_a} -> run {diff.run_b}: "
             + ("got worse" if diff.got_worse else "nothing got worse")]
    sections = (("new survivors", diff.new_survivors), ("fixed survivors", diff.fixed_survivors),
                ("verdict changes", diff.verdict_changes))
    for title, changes in sections:
        lines.append(f"{title} ({len(changes)}):")
        for c in changes:
            target = f"  [{c.mutant.target}]" if c.mutant and c.mutant.target else ""
            lines.append(f"  {c.id}: {c.before or '(absent)'} -> {c.after or '(absent)'}"
                         f"{target}")
    return "\n".join(lines) + "\n"


def render_diff_markdown(diff: RunDiff) -> str:
    lines = [f"## deskcheck: run {diff.run_b} against run {diff.run_a} — "
             + ("**got worse**" if diff.got_worse else "nothing got worse"), ""]
    sections = (("New survivors", diff.new_survivors), ("Fixed survivors", diff.fixed_survivors),
                ("Verdict changes", diff.verdict_changes))
    for title, changes in sections:
        lines.append(f"### {title} ({len(changes)})")
        if changes:
            lines += ["", "| mutant | before | after | target |", "| --- | --- | --- | --- |"]
            lines += [f"| `{c.id}` | {c.before or '(absent)'} | {c.after or '(absent)'} | "
                      f"`{c.mutant.target if c.mutant else ''}` |" for c in changes]
        lines.append("")
    return "\n".join(lines)
