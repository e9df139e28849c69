"""What the audit reports: collective sites, gating decisions, their inputs and verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class InputClass(StrEnum):
    """Where an input's value comes from, relative to the collective's group."""

    AGREED = "AGREED"  # made by a collective over a group that covers it
    CONFIG = "CONFIG"  # replicated configuration and constants
    SANCTIONED = "SANCTIONED"  # through a declared source ([tool.deskcheck.uniformity] / inline)
    TRIVIAL = "TRIVIAL"  # reaches the decision only on a path where the group has one rank
    RANK_LOCAL = "RANK-LOCAL"  # rank ids, clocks, random, per-rank pools/caches, IPC polls
    UNKNOWN = "UNKNOWN"  # a hop the static model could not resolve (named in the witness)


AGREED, CONFIG, SANCTIONED, TRIVIAL_INPUT, RANK_LOCAL, UNKNOWN = (
    InputClass.AGREED, InputClass.CONFIG, InputClass.SANCTIONED, InputClass.TRIVIAL,
    InputClass.RANK_LOCAL, InputClass.UNKNOWN)


class Verdict(StrEnum):
    """A decision's verdict. The first five hold (exit 0)."""

    UNIFORM = "UNIFORM"
    SANCTIONED = "SANCTIONED"
    SYMMETRIC = "SYMMETRIC"
    TRIVIAL = "TRIVIAL"
    ROLE = "ROLE"
    RANK_LOCAL = "RANK-LOCAL"
    UNKNOWN = "UNKNOWN"

    @property
    def holds(self) -> bool:
        return self not in (Verdict.RANK_LOCAL, Verdict.UNKNOWN)


@dataclass(frozen=True)
class CollectiveSite:
    """A call that every rank of ``group`` must enter: ``kind`` collective, p2p or forward."""

    function: str
    file: str
    line: int
    call: str
    kind: str
    group: str
    dim: str  # the group's dimension: tp, pp, dp, attn_tp, world, ...

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "file": self.file, "line": self.line,
                "call": self.call, "kind": self.kind, "group": self.group, "dim": self.dim}


@dataclass
class Input:
    """One value a decision's condition reads. ``witness``: ``file:line hop`` from the
    decision back to the source; ``reason`` says why it is classed so."""

    name: str
    klass: InputClass
    witness: list[str] = field(default_factory=list)
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "class": self.klass.value, "reason": self.reason,
                "witness": list(self.witness)}


@dataclass
class Decision:
    """A condition that decides whether (or with what shape) collectives run."""

    function: str
    file: str
    line: int
    condition: str
    kind: str  # if, while, for, exit, break, boolop, ternary, except, shape, raise
    collectives: list[CollectiveSite] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)
    verdict: Verdict = Verdict.UNIFORM
    why: str = ""
    chain: list[str] = field(default_factory=list)  # root -> ... -> function (call sites)
    can_fail: str = ""  # "", "LIVE", "VACUOUS: ...", "SKIPPED: ..."
    covered_by: list[str] = field(default_factory=list)  # congruence arms naming it

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def key(self) -> str:
        """Stable across line moves: function + condition text + kind."""
        return f"{self.function}|{self.kind}|{self.condition}"

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "file": self.file, "line": self.line,
                "condition": self.condition, "kind": self.kind, "verdict": self.verdict.value,
                "why": self.why, "chain": list(self.chain), "can_fail": self.can_fail,
                "collectives": [c.to_json() for c in self.collectives],
                "inputs": [i.to_json() for i in self.inputs],
                "covered_by": list(self.covered_by)}


@dataclass
class DeclarationFinding:
    """A declaration that does not hold: ``status`` stale, unproven (agreed with no
    evidence), or claimed-not-enforced (replica with no existing arm)."""

    kind: str
    subject: str
    status: str
    where: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "status": self.status,
                "where": self.where, "detail": self.detail}


@dataclass
class RankLocalSource:
    """A rank-local source the RANK-LOCAL findings rest on: what to declare or fix first."""

    name: str
    reason: str
    read_at: str  # file:line where a witness reaches it ("": every witness was cut first)
    decisions: list[str] = field(default_factory=list)  # "function:line" of each finding

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "reason": self.reason, "read_at": self.read_at,
                "decisions": len(self.decisions), "findings": list(self.decisions)}


@dataclass(frozen=True)
class NotEntered:
    """A call the audit could not follow (its receiver did not resolve): a collective inside
    its callee is not seen."""

    file: str
    line: int
    call: str
    why: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "call": self.call, "why": self.why}


@dataclass
class AuditReport:
    """Everything one audit found. ``exit_code(strict)``: 0 holds, 1 falls short."""

    target: str
    roots: list[str]
    decisions: list[Decision] = field(default_factory=list)
    sites: list[CollectiveSite] = field(default_factory=list)
    functions: int = 0
    declarations: list[DeclarationFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    files_read: list[str] = field(default_factory=list)  # every source file the audit entered
    not_entered: list[NotEntered] = field(default_factory=list)  # calls it could not follow

    def not_entered_by_why(self) -> list[tuple[str, int, str]]:
        """(why, how many calls, the first one's file:line), the commonest first."""
        groups: dict[str, list[NotEntered]] = {}
        for call in self.not_entered:
            groups.setdefault(call.why, []).append(call)
        return sorted(((why, len(calls), calls[0].where) for why, calls in groups.items()),
                      key=lambda row: (-row[1], row[0]))

    def by_verdict(self, verdict: Verdict) -> list[Decision]:
        return [d for d in self.decisions if d.verdict is verdict]

    def find(self, function: str, line: int | None = None) -> list[Decision]:
        """Decisions of ``function`` (a qualname such as ``Scheduler.step``), at ``line``."""
        return [d for d in self.decisions if (d.function == function
                or d.function.endswith("." + function)) and (line is None or d.line == line)]

    def unexercised(self) -> list[Decision]:
        """Decisions with a rank-local or sanctioned input that no congruence arm exercises
        (no ``replica`` declaration with an existing arm covers any of their inputs)."""
        return [d for d in self.decisions if not d.covered_by and any(
            i.klass in (InputClass.RANK_LOCAL, InputClass.SANCTIONED) for i in d.inputs)]

    def sources(self) -> list[RankLocalSource]:
        """The rank-local inputs of the RANK-LOCAL decisions, one row per source, those
        reaching the most decisions first."""
        found: dict[str, RankLocalSource] = {}
        for d in self.by_verdict(Verdict.RANK_LOCAL):
            for i in d.inputs:
                if i.klass is not InputClass.RANK_LOCAL:
                    continue
                row = found.setdefault(i.name, RankLocalSource(i.name, i.reason,
                                                                _read_at(i.name, i.witness)))
                if not row.read_at:
                    row.read_at = _read_at(i.name, i.witness)
                if f"{d.function}:{d.line}" not in row.decisions:
                    row.decisions.append(f"{d.function}:{d.line}")
        return sorted(found.values(), key=lambda s: (-len(s.decisions), s.name))

    def exit_code(self, strict: bool = False) -> int:
        bad = {Verdict.RANK_LOCAL} | ({Verdict.UNKNOWN} if strict else set())
        failing = any(d.verdict in bad for d in self.decisions)
        vacuous = any(d.can_fail.startswith("VACUOUS") for d in self.decisions)
        return 1 if failing or vacuous or self.declarations else 0

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for d in self.decisions:
            out[d.verdict.value] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "roots": list(self.roots), "functions": self.functions,
                "seconds": round(self.seconds, 3), "counts": self.counts(),
                "sites": [s.to_json() for s in self.sites],
                "decisions": [d.to_json() for d in self.decisions],
                "declarations": [f.to_json() for f in self.declarations],
                "unexercised": [f"{d.function}:{d.line}" for d in self.unexercised()],
                "sources": [r.to_json() for r in self.sources()],
                "not_entered": [c.to_json() for c in self.not_entered],
                "notes": list(self.notes)}


def _read_at(name: str, witness: list[str]) -> str:
    """``file:line`` of the witness's last hop when that hop reads ``name`` (a witness cut
    at 24 hops ends before its source: then "")."""
    if not witness:
        return ""
    where, _sep, text = witness[-1].partition(" ")
    return where if text.endswith(name.rsplit(".", 1)[-1]) else ""
