"""The first decision where ranks split: read every rank's recorded decisions and diff them.

Ranks that agree take the same decisions in the same order the same way. Walking the records
in step, the first place they differ is either one decision taken different ways (the split:
its condition, each rank's way and input values, the call path), or ranks that reached
different decisions (a way this recorder does not see, e.g. a ternary, came first: the last
decision they shared is named), or a rank whose record stops (it hung there or returned).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.scratch import make_scratch, reap_stale
from deskcheck.suites.recorder import rank_file, recording_enabled

# Under the rank pools' prefix: the sweep reaps what a killed run left (deskcheck-w...).
FOLDER_PREFIX = "deskcheck-w-decisions-"

_WAYS = {"if": ("true", "false"), "while": ("true", "false"),
         "for": ("next item", "loop done")}


@dataclass(frozen=True)
class Decision:
    """One recorded evaluation of a decision in one rank."""

    n: int
    file: str
    line: int
    kind: str
    condition: str
    took: bool | None
    inputs: dict[str, str] = field(default_factory=dict)
    path: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{_relative(self.file)}:{self.line}"

    @property
    def way(self) -> str:
        if self.took is None:
            return "no line ran after it"
        yes, no = _WAYS.get(self.kind, ("taken", "not taken"))
        return yes if self.took else no

    def as_json(self) -> dict[str, Any]:
        return {"where": self.where, "kind": self.kind, "condition": self.condition,
                "way": self.way, "took": self.took, "inputs": self.inputs,
                "path": list(self.path)}


@dataclass(frozen=True)
class Split:
    """Where the ranks' decisions first differ. ``kind``: ``"way"`` (one decision, different
    ways), ``"decision"`` (different decisions reached) or ``"stopped"`` (a record ends)."""

    kind: str
    index: int
    per_rank: tuple[Decision | None, ...]
    last_shared: Decision | None
    counts: tuple[int, ...]

    def render(self) -> str:
        """The words every renderer uses (terminal, JSON ``text``, Markdown, HTML)."""
        first = next(d for d in self.per_rank if d is not None)
        lines: list[str] = []
        if self.kind == "way":
            lines.append(f"first split: {first.where} in {_function(first)}: "
                         f"{first.kind} {_one_line(first.condition)}")
        elif self.kind == "decision":
            lines.append(f"first split: after {self.index} shared decisions the ranks reached "
                         "different decisions" + _after(self.last_shared))
        else:
            lines.append(f"first split: after {self.index} shared decisions a rank recorded "
                         "nothing more" + _after(self.last_shared))
        for rank, decision in enumerate(self.per_rank):
            if decision is None:
                lines.append(f"  rank {rank}: no more decisions (recorded "
                             f"{self.counts[rank]}: it returned, raised or hung here)")
                continue
            head = f"  rank {rank}: {decision.way}" if self.kind == "way" else \
                f"  rank {rank}: {decision.where} {decision.kind} " \
                f"{_one_line(decision.condition)} -> {decision.way}"
            values = ", ".join(f"{k}={v}" for k, v in decision.inputs.items())
            lines.append(head + (f" ({values})" if values else ""))
        lines.append("  call path: " + " -> ".join(first.path or (_function(first),)))
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "index": self.index, "counts": list(self.counts),
                "per_rank": [d.as_json() if d else None for d in self.per_rank],
                "last_shared": self.last_shared.as_json() if self.last_shared else None,
                "text": self.render()}


def _relative(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _function(decision: Decision) -> str:
    return decision.path[-1] if decision.path else "?"


def _one_line(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _after(decision: Decision | None) -> str:
    if decision is None:
        return ""
    return f" (the last shared one: {decision.where} {decision.kind} " \
           f"{_one_line(decision.condition, 40)} -> {decision.way})"


def read_records(folder: str | Path, world: int) -> list[list[Decision]]:
    """Each rank's decisions in order; a rank with no file recorded nothing. A line cut by a
    kill mid-write is dropped."""
    ranks: list[list[Decision]] = []
    for rank in range(world):
        decisions: list[Decision] = []
        try:
            text = rank_file(folder, rank).read_text(encoding="utf-8")
        except OSError:
            text = ""
        for line in text.splitlines():
            try:
                raw = json.loads(line)
                decisions.append(Decision(int(raw["n"]), raw["file"], int(raw["line"]),
                                          raw["kind"], raw["condition"], raw["took"],
                                          dict(raw.get("inputs", {})),
                                          tuple(raw.get("path", ()))))
            except (ValueError, KeyError, TypeError):
                continue
        ranks.append(decisions)
    return ranks


def first_split(records: Sequence[Sequence[Decision]]) -> Split | None:
    """The first place the ranks' decisions differ, or None when they are all alike."""
    counts = tuple(len(r) for r in records)
    last: Decision | None = None
    for index in range(max(counts, default=0)):
        step = tuple(r[index] if index < len(r) else None for r in records)
        present = [d for d in step if d is not None]
        if len(present) < len(step):
            return Split("stopped", index, step, last, counts)
        if len({(d.file, d.line) for d in present}) > 1:
            return Split("decision", index, step, last, counts)
        if len({d.took for d in present}) > 1:
            return Split("way", index, step, last, counts)
        last = present[0]
    return None


def split_in(folder: str | Path, world: int) -> Split | None:
    """:func:`first_split` of what the ranks recorded into ``folder``."""
    return first_split(read_records(folder, world))


@contextlib.contextmanager
def recording(pool: Any) -> Iterator[Path | None]:
    """A private folder the ranks of ``pool`` record into, removed after; None when recording
    is off (``DESKCHECK_RECORD=off``) or the ranks are not this machine's processes."""
    from deskcheck.suites.pool import RankPool

    if not recording_enabled() or not isinstance(pool, RankPool):
        yield None
        return
    reap_stale(FOLDER_PREFIX)
    folder = make_scratch(FOLDER_PREFIX)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def clear(folder: Path | None) -> None:
    """Forget what the ranks recorded so far (the next task starts a fresh record)."""
    if folder is not None:
        for path in folder.glob("rank*.jsonl"):
            path.unlink(missing_ok=True)


def note_split(exc: BaseException, folder: Path | None, world: int) -> Split | None:
    """Add the first split to ``exc``'s notes (and as ``exc.first_split``); None if none."""
    if folder is None:
        return None
    split = split_in(folder, world)
    if split is not None:
        exc.add_note(split.render())
        exc.first_split = split  # type: ignore[attr-defined]
    return split
