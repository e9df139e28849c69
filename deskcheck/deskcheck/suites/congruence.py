"""Congruence arms: a decision every rank must reach identically, checked three ways.

Each rank decides with its OWN inputs over real collectives. The arm then checks
(1) uniformity: every rank reached the same decision (the diverging ranks are named);
(2) safety: a per-rank predicate, e.g. "rank 1 was told to admit 3 with room for 1";
(3) the premise: with the enforcer off (the kill switch) the same inputs really do produce
divergent decisions. An arm whose premise does not hold is vacuous, and fails as such:
green on inputs that never diverge proves nothing about the enforcer.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import CongruenceError, RankError, VacuousPremiseError
from deskcheck.suites.decision_log import note_split, recording
from deskcheck.suites.hang_gate import note_gate
from deskcheck.suites.recorder import recording_enabled, recording_every_task

Safety = Callable[[int, Any, Any], "str | None"]


@dataclass(frozen=True)
class KillSwitch:
    """How to turn the enforcer off inside a rank: env vars, a keyword, or a context."""

    env: tuple[tuple[str, str], ...] = ()
    keyword: tuple[str, Any] | None = None
    context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None

    @classmethod
    def from_env(cls, name: str, off: str = "0") -> KillSwitch:
        """The enforcer reads ``os.environ[name]``; ``off`` disables it."""
        return cls(env=((name, off),))

    @classmethod
    def from_keyword(cls, name: str, off: Any = False) -> KillSwitch:
        """``decide(rank_input, **{name: off})`` runs the decision with the enforcer off."""
        return cls(keyword=(name, off))

    @classmethod
    def from_context(cls, factory: Callable[[], contextlib.AbstractContextManager[Any]]
                     ) -> KillSwitch:
        """``with factory(): decide(rank_input)`` runs it with the enforcer off."""
        return cls(context=factory)

    def describe(self) -> str:
        parts = [f"{name}={value}" for name, value in self.env]
        if self.keyword:
            parts.append(f"{self.keyword[0]}={self.keyword[1]!r}")
        if self.context:
            parts.append(f"{getattr(self.context, '__qualname__', self.context)}()")
        return ", ".join(parts) or "no kill switch"

    @contextlib.contextmanager
    def applied(self) -> Iterator[dict[str, Any]]:
        saved = {name: os.environ.get(name) for name, _ in self.env}
        os.environ.update(dict(self.env))
        try:
            with self.context() if self.context else contextlib.nullcontext():
                yield dict([self.keyword]) if self.keyword else {}
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@dataclass(frozen=True)
class CongruenceArm:
    """A decision every rank must reach identically.

    ``decide(rank_input)`` runs in each rank (module-level, so it pickles) and performs the
    collectives itself; its return value is the decision (plain, comparable data).
    ``safety(rank, rank_input, decision)`` returns a clause naming the violation, e.g.
    ``"was told to admit 3 with room for 1"``, or None. ``uniform(decision)`` is the part
    every rank must share (default: all of it; a decision may carry rank-local evidence for
    the safety predicate beside it). ``show`` renders what ``uniform`` returns.
    """

    name: str
    decide: Callable[..., Any]
    kill_switch: KillSwitch
    safety: Safety | None = None
    show: Callable[[Any], str] = repr
    uniform: Callable[[Any], Any] | None = None
    defined_at: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.defined_at:
            frame = sys._getframe(2)  # the caller of the generated __init__
            object.__setattr__(self, "defined_at",
                               f"{frame.f_code.co_filename}:{frame.f_lineno}")


@dataclass(frozen=True)
class ArmResult:
    """What the arm saw, rank by rank: each rank's shared part (``arm.uniform``) with the
    enforcer on, and with it off (``premise``; None when the premise was not checked)."""

    arm: str
    decisions: tuple[Any, ...]
    premise: tuple[Any, ...] | None

    @property
    def premise_diverged(self) -> bool:
        return self.premise is not None and len(_agreeing_groups(self.premise)) > 1


def _agreeing_groups(decisions: Sequence[Any]) -> list[list[int]]:
    """Ranks grouped by equal decisions (``==``, so dict order or float repr cannot split)."""
    groups: list[tuple[Any, list[int]]] = []
    for rank, decision in enumerate(decisions):
        for value, ranks in groups:
            if value == decision:
                ranks.append(rank)
                break
        else:
            groups.append((decision, [rank]))
    return [ranks for _value, ranks in groups]


def _shared(arm: CongruenceArm, decisions: Sequence[Any]) -> list[Any]:
    return [arm.uniform(d) for d in decisions] if arm.uniform else list(decisions)


def decide_in_rank(rank_input: Any, decide: Callable[..., Any], kill_switch: KillSwitch,
                   enforced: bool, record: str | None = None) -> Any:
    """The task a rank runs: the arm's decision, with or without the enforcer.

    Only ``decide`` and the kill switch travel to the ranks; the arm's safety, ``uniform``
    and ``show`` run in the parent, so they may be lambdas. With ``record`` (a folder), the
    rank records the decisions its code takes there (:mod:`deskcheck.suites.recorder`).
    """
    with _recorded(record):
        if enforced:
            return decide(rank_input)
        with kill_switch.applied() as keywords:
            return decide(rank_input, **keywords)


def _recorded(folder: str | None) -> contextlib.AbstractContextManager[Any]:
    if folder is None:
        return contextlib.nullcontext()
    from deskcheck.suites._rank_main import rank_context
    from deskcheck.suites.recorder import record_decisions

    return record_decisions(folder, rank_context().rank)


def _ranks(numbers: Sequence[int]) -> str:
    words = [str(n) for n in numbers]
    body = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return ("rank " if len(words) == 1 else "ranks ") + body


def diverging_ranks(decisions: Sequence[Any]) -> tuple[list[int], list[int]]:
    """(reference ranks, diverging ranks): the largest agreeing group is the reference,
    ties going to the group that holds the lowest rank."""
    groups = _agreeing_groups(decisions)
    reference = max(groups, key=lambda ranks: (len(ranks), -ranks[0]))
    return reference, [r for r in range(len(decisions)) if r not in reference]


def _table(inputs: Sequence[Any], columns: dict[str, Sequence[Any] | None],
           show: Callable[[Any], str]) -> str:
    lines = []
    for rank, rank_input in enumerate(inputs):
        cells = [f"input {rank_input!r}"]
        cells += [f"{title}: {show(values[rank])}" for title, values in columns.items()
                  if values is not None]
        lines.append(f"  rank {rank}: " + " | ".join(cells))
    return "\n".join(lines)


def _label(arm: CongruenceArm, pool: Any) -> str:
    return f"congruence arm {arm.name!r} ({pool.describe()})"


def _run(arm: CongruenceArm, inputs: Sequence[Any], pool: Any, enforced: bool,
         record: Path | None = None) -> list[Any]:
    """The decisions rank by rank; a rank failure names the arm, and with ``record`` (a
    folder the ranks record into) the first decision where the ranks split."""
    __tracebackhide__ = True  # the user's test line, then the rank table
    try:
        return pool.run(decide_in_rank, arm.decide, arm.kill_switch, enforced,
                        per_rank=list(inputs), record=str(record) if record else None)
    except RankError as exc:
        state = "on" if enforced else f"off ({arm.kill_switch.describe()})"
        exc.add_note(f"while {_label(arm, pool)} decided with the enforcer {state}")
        if record is not None:
            note_split(exc, record, pool.world)
        elif recording_enabled():
            note_gate(exc)
        raise


def _split_on_rerun(arm: CongruenceArm, inputs: Sequence[Any], pool: Any,
                    exc: BaseException, outcome: Sequence[Any]) -> None:
    """Run the enforced decision once more with the recorder (the code is deterministic, the
    inputs the same) and add the first split to ``exc``."""
    with recording(pool, arm.decide) as folder:
        if folder is None:
            return
        try:
            _run(arm, inputs, pool, enforced=True, record=folder)
        except RankError:
            pass  # a rank failing the second time still leaves what it recorded
        note_split(exc, folder, pool.world, outcome)


def check_decisions(arm: CongruenceArm, inputs: Sequence[Any], decisions: Sequence[Any],
                    label: str) -> None:
    """Uniformity and safety over decisions already taken; raises CongruenceError."""
    __tracebackhide__ = True  # the user's test line, then the rank table
    problems: list[str] = []
    shared = _shared(arm, decisions)
    reference, diverging = diverging_ranks(shared)
    for rank in diverging:
        problems.append(f"rank {rank} diverged: decided {arm.show(shared[rank])} where "
                        f"{_ranks(reference)} decided {arm.show(shared[reference[0]])}")
    if arm.safety is not None:
        for rank, (rank_input, decision) in enumerate(zip(inputs, decisions, strict=True)):
            clause = arm.safety(rank, rank_input, decision)
            if clause:
                problems.append(f"rank {rank} {clause}")
    if problems:
        raise CongruenceError(
            f"{label} failed:\n" + "\n".join(f"  {p}" for p in problems)
            + "\nrank by rank (enforcer on):\n"
            + _table(inputs, {"decided": shared}, arm.show),
            location=arm.defined_at,
            fix="every rank must derive the decision from group-reduced values only")


def note_divergence(arm: CongruenceArm, inputs: Sequence[Any], decisions: Sequence[Any],
                    exc: BaseException, pool: Any, folder: Path | None) -> None:
    """Name the first split when the ranks diverged (a safety failure on agreeing ranks has
    no split to name): from what the ranks recorded, else by a recorded re-run."""
    shared = _shared(arm, decisions)
    if not diverging_ranks(shared)[1] or not recording_enabled():
        return
    if folder is not None:
        note_split(exc, folder, pool.world, shared)
    else:
        _split_on_rerun(arm, inputs, pool, exc, shared)


def check_arm(arm: CongruenceArm, inputs: Sequence[Any], pool: Any, *,
              premise: bool = True) -> ArmResult:
    """Run the arm on ``pool`` with one input per rank; raise on any of the three checks."""
    __tracebackhide__ = True  # the user's test line, then the rank table
    if len(inputs) != pool.world:
        raise ValueError(f"{len(inputs)} rank inputs for a world of {pool.world}")
    label = _label(arm, pool)
    with recording(pool, arm.decide) if recording_every_task() \
            else contextlib.nullcontext() as folder:
        decisions = _run(arm, inputs, pool, enforced=True, record=folder)
        try:
            check_decisions(arm, inputs, decisions, label)
        except CongruenceError as exc:
            note_divergence(arm, inputs, decisions, exc, pool, folder)
            raise
    if not premise:
        return ArmResult(arm.name, tuple(_shared(arm, decisions)), None)
    unenforced = _shared(arm, _run(arm, inputs, pool, enforced=False))
    result = ArmResult(arm.name, tuple(_shared(arm, decisions)), tuple(unenforced))
    if not result.premise_diverged:
        raise VacuousPremiseError(
            f"{label} is vacuous: with the enforcer off ({arm.kill_switch.describe()}) every "
            f"rank still decided {arm.show(unenforced[0])}, so these inputs cannot tell a "
            f"working enforcer from a missing one\nrank by rank:\n"
            + _table(inputs, {"enforcer on": result.decisions, "enforcer off": unenforced},
                     arm.show),
            location=arm.defined_at,
            fix="give the ranks inputs that diverge without the enforcer (different queue "
                "orders, absent rids, prefix-match lengths, free pools)")
    return result
