"""The first decision where ranks split: read every rank's recorded decisions and diff them.

Ranks on diverged inputs split all the time by design (each searches its own cache, sizes its
own pool); what the reader wants is the split that made the *outcome* differ. So the diff
works in epochs, the stretches between two collectives of the group (each record carries the
collective count it was taken at): the telling epoch is the last one every rank reached — the
one after the last collective they shared, where a rank that skips the next collective turned
away, and where ranks that all returned made their final choices. In it, rank 0's decisions
are aligned with each other rank's (longest matching runs, :mod:`difflib`), and the split is
a split inside a call the project declares rank-local for the uniformity audit
(``[tool.deskcheck.uniformity] rank_local``: each rank's own cache lookup) comes last; then
the first aligned decision taken different ways whose inputs set a value a collective agreed
against one that differs on the ranks — a function's return before a branch (``min(vote,
limit)`` is where a wrong vote meets the local limit) —, else the innermost one (a branch, or a
call with no split inside it) whose inputs mix a value every rank shares with one that differs,
else the first one taken different ways there. Failing that, the first place the records differ at all: one
decision taken two ways, different decisions reached, or a record that stops.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskcheck.suites._values import show
from deskcheck.suites.records import Decision, read_records


@dataclass(frozen=True)
class Split:
    """Where the ranks' decisions first differ. ``kind``: ``"way"`` (one decision, different
    ways), ``"decision"`` (different decisions reached) or ``"stopped"`` (a record ends)."""

    kind: str
    index: int
    per_rank: tuple[Decision | None, ...]
    last_shared: Decision | None
    counts: tuple[int, ...]
    others: tuple[str, ...] = ()  # where else the ranks split (file:line), for the record
    collectives: bool = True  # False: no rank's record saw a collective of the group

    def render(self) -> str:
        """The words every renderer uses (terminal, JSON ``text``, Markdown, HTML)."""
        first = next(d for d in self.per_rank if d is not None)
        lines: list[str] = []
        if self.kind == "way":
            what = f"call {_one_line(first.condition)}" if first.kind == "call" \
                else f"{first.kind} {_one_line(first.condition)}"
            lines.append(f"first split: {first.where} in {_function(first)}: {what}")
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
            values = ", ".join(f"{k}={v}" + (" [agreed]" if k in decision.agreed else "")
                               for k, v in decision.inputs.items())
            lines.append(head + (f" ({values})" if values else ""))
        lines.append("  call path: " + " -> ".join(first.path or (_function(first),)))
        if self.others:
            lines.append("  other splits (rank-local work, or after this one): "
                         + ", ".join(self.others))
        if not self.collectives:
            lines.append("  no collective of the group ran in this task on any rank: every "
                         "value the ranks decided on was their own")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "index": self.index, "counts": list(self.counts),
                "others": list(self.others),
                "per_rank": [d.as_json() if d else None for d in self.per_rank],
                "last_shared": self.last_shared.as_json() if self.last_shared else None,
                "text": self.render()}


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


def _aligned(reference: Sequence[Decision], other: Sequence[Decision]) -> dict[int, Decision]:
    """Index in ``reference`` -> the decision of ``other`` it aligns with (same file:line)."""
    keys = [(d.file, d.line) for d in reference]
    matcher = difflib.SequenceMatcher(None, keys, [(d.file, d.line) for d in other],
                                      autojunk=False)
    pairs: dict[int, Decision] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = other[block.b + k]
    return pairs


def _mixes_shared_and_local(step: Sequence[Decision]) -> bool:
    """The condition read one value every rank shares and one that differs."""
    keys = set.intersection(*(set(d.inputs) for d in step)) if step else set()
    same = [k for k in keys if len({d.inputs[k] for d in step}) == 1]
    differ = [k for k in keys if len({d.inputs[k] for d in step}) > 1]
    return bool(same) and bool(differ)


def _agreed_meets_local(step: Sequence[Decision]) -> bool:
    """An input every rank holds as agreed (a collective's value), against one that differs
    and is no collective's value on some rank (a reduced vector full of lengths makes many
    small numbers look agreed: a rank-local one is one the group never produced)."""
    keys = set.intersection(*(set(d.inputs) for d in step)) if step else set()
    agreed = [k for k in keys if all(k in d.agreed for d in step)
              and len({d.inputs[k] for d in step}) == 1]
    return bool(agreed) and any(len({d.inputs[k] for d in step}) > 1
                                and not all(k in d.agreed for d in step) for k in keys)


def _is_origin(split: tuple[Decision, ...], splits: Sequence[tuple[Decision, ...]]) -> bool:
    """A branch, or a call inside which no other split happened (its value differs because
    its own inputs meet there, not because a split inside it says so)."""
    call = split[0]
    if call.kind != "call":
        return True
    depth = len(call.path)
    return not any(other[0].n < call.n and other[0].path[:depth] == call.path
                   and other is not split for other in splits)


def _leaves(value: Any) -> set[str]:
    """Every scalar inside a rank's outcome, as the recorder shows values."""
    if isinstance(value, dict):
        return set().union(*(_leaves(v) for v in value.values()), set())
    if isinstance(value, (tuple, list, set, frozenset)):
        return set().union(*(_leaves(v) for v in value), set())
    return {show(value)}


def _feeds_outcome(step: Sequence[Decision], outcome: Sequence[set[str]]) -> bool:
    """An input that differs on the ranks holds, on every rank, a value of that rank's own
    diverged outcome (the value the decision passed on is the one that came out apart)."""
    keys = set.intersection(*(set(d.inputs) for d in step))
    return any(len({d.inputs[k] for d in step}) > 1
               and all(d.inputs[k] in leaves for d, leaves in zip(step, outcome, strict=False))
               for k in keys)


def way_splits(records: Sequence[Sequence[Decision]],
               outcome: Sequence[set[str]] | None = None) -> list[tuple[Decision, ...]]:
    """Every decision of rank 0 that every other rank also took, at least one another way,
    in rank 0's order (each as the tuple of every rank's evaluation of it). With each rank's
    ``outcome`` (its diverged decision's values): also a decision taken the same way whose
    differing input is the value that came out apart (a split by value, not by way)."""
    reference = records[0]
    alignments = [_aligned(reference, other) for other in records[1:]]
    found = []
    for index, decision in enumerate(reference):
        step = [decision] + [a.get(index) for a in alignments]
        if all(d is not None for d in step) and (
                len({d.took for d in step}) > 1 or outcome and _agreed_meets_local(step)
                and _feeds_outcome(step, outcome)):
            found.append(tuple(step))
    return found


def _uniformity(path: str | Path) -> dict[str, Any]:
    for folder in Path(path).resolve().parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
            section = data.get("tool", {}).get("deskcheck", {}).get("uniformity", {})
            return section if isinstance(section, dict) else {}
    return {}


def declared_rank_local(path: str | Path) -> tuple[str, ...]:
    """The ``rank_local`` patterns of ``[tool.deskcheck.uniformity]`` in the nearest
    pyproject.toml above ``path`` (calls such as ``*.match_len``: work each rank does on its
    own state by design, where ranks split on clean code too)."""
    patterns = _uniformity(path).get("rank_local", [])
    return tuple(p for p in patterns if isinstance(p, str))


def declared_collectives(path: str | Path) -> tuple[str, ...]:
    """The names of the functions ``[tool.deskcheck.uniformity] collectives`` declares
    (``self._all_reduce_min`` -> ``_all_reduce_min``): every rank must get the same value."""
    entries = _uniformity(path).get("collectives", [])
    return tuple(e["call"].rsplit(".", 1)[-1] for e in entries
                 if isinstance(e, dict) and isinstance(e.get("call"), str))


def _declared_call(function: str, patterns: Sequence[str]) -> bool:
    calls = [p for p in patterns if not p.startswith("self.") or p.count(".") > 1]
    return any(fnmatch.fnmatchcase(function, p.removeprefix("self.")) for p in calls)


def _declared_owners(records: Sequence[Sequence[Decision]], patterns: Sequence[str]) -> set[str]:
    """The classes whose methods the project declares rank-local (``*.match_len`` seen at run
    time as ``RadixCache.match_len``): every method of a rank's own cache is its own work."""
    owners = set()
    for rank in records:
        for decision in rank:
            for function in decision.path:
                if "." in function and _declared_call(function, patterns):
                    owners.add(function.rsplit(".", 1)[0])
    return owners


def _test_file(file: str) -> bool:
    name = Path(file).name
    return name.startswith("test_") or name == "conftest.py" or f"{os.sep}tests{os.sep}" in file


def _in_test_code(split: tuple[Decision, ...], files: dict[str, str] | None = None) -> bool:
    """In test code, or under a test helper the task's own function called (the arm's
    set-up: each rank builds its own scenario)."""
    path = split[0].path
    return _test_file(split[0].file) or bool(files) and len(path) > 2 \
        and _test_file(files.get(path[1], ""))


def _group_value(split: tuple[Decision, ...], collectives: Sequence[str]) -> bool:
    """A field the project declares agreed given different values, or a declared collective
    that returned different values: where the group's agreement itself came apart."""
    first = split[0]
    return first.kind == "set" or first.kind == "call" and bool(first.path) \
        and first.path[-1].rsplit(".", 1)[-1] in collectives


def _inside_declared_work(split: tuple[Decision, ...], patterns: Sequence[str],
                          owners: set[str]) -> bool:
    """The split happened inside a call the project declares rank-local, or inside a method
    of a class such a call belongs to, or in test code (the arm's own set-up diverges by
    design: each rank builds its own scenario)."""
    if _in_test_code(split):
        return True
    return any(_declared_call(f, patterns) or f.rsplit(".", 1)[0] in owners
               for f in split[0].path if "." in f)


def telling_split(records: Sequence[Sequence[Decision]], rank_local: Sequence[str] = (),
                  collectives: Sequence[str] = (),
                  outcome: Sequence[Any] | None = None) -> Split | None:
    """The split that made the outcome differ (see the module docstring), or None.
    ``rank_local``: the project's declared rank-local calls; a split inside one comes last.
    ``collectives``: its declared collective functions; one returning different values comes
    first, with a declared agreed field given different values. ``outcome``: each rank's
    diverged decision, for splits by value."""
    if not records or not any(records):
        return None
    leaves = [_leaves(o) for o in outcome] if outcome is not None else None
    counts = tuple(len(r) for r in records)
    files = {d.path[-1]: d.file for r in records for d in r if d.kind == "call" and d.path}
    reached = min(max((d.epoch for d in r), default=0) for r in records)
    epoch = [[d for d in r if d.epoch == reached] for r in records]
    splits = [s for s in (way_splits(epoch, leaves) if all(epoch) else [])
              if not _in_test_code(s, files)] \
        or [s for s in way_splits(records, leaves) if not _in_test_code(s, files)]
    owners = _declared_owners(records, rank_local)

    def preference(split: tuple[Decision, ...]) -> tuple[bool, ...]:
        agreed = _agreed_meets_local(split)
        return (_inside_declared_work(split, rank_local, owners),
                not _group_value(split, collectives), not agreed,
                len({d.took for d in split}) == 1, agreed and split[0].kind != "call",
                not _mixes_shared_and_local(split), not _is_origin(split, splits))

    chosen = min(splits, key=preference) if splits else None
    if chosen is None:
        return first_split(records)
    everywhere = {s[0].where for s in way_splits(records)} | {s[0].where for s in splits}
    others = tuple(sorted(everywhere - {chosen[0].where}))[:4]
    ran = any(d.epoch for r in records for d in r)
    return Split("way", chosen[0].n - 1, chosen, None, counts, others, ran)


def split_in(folder: str | Path, world: int,
             outcome: Sequence[Any] | None = None) -> Split | None:
    """:func:`telling_split` of what the ranks recorded into ``folder``, with the rank-local
    calls the recorded project declares for the uniformity audit."""
    records = read_records(folder, world)
    first = next((r[0] for r in records if r), None)
    if first is None:
        return None
    return telling_split(records, declared_rank_local(first.file),
                         declared_collectives(first.file), outcome)
