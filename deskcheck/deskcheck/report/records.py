"""Plain records every part hands to the store and the renderers (no logic, no I/O).

The verdict names are DESIGN.md's vocabulary; the code that *decides* a verdict lives in
``deskcheck.mutants.verdicts``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

VERDICTS: tuple[str, ...] = (
    "KILLED",
    "OWNER_MISSED",
    "SURVIVED",
    "WRONG_FAILURE",
    "STALE",
    "TIMEOUT",
    "BROKEN",
    "BASELINE_RED",
    "ACCEPTED_SURVIVOR",
    "NO_COVERAGE",  # auto mutants: a changed line no test covers (nothing could kill it)
    "NOT_INJECTABLE",  # compiles, but the code that would run it cannot be reached in memory
)
HOLDING_VERDICTS: frozenset[str] = frozenset({"KILLED", "ACCEPTED_SURVIVOR"})
# A survivor: the mutant's owners did not kill it (whether or not some other test did).
SURVIVOR_VERDICTS: frozenset[str] = frozenset({"SURVIVED", "OWNER_MISSED"})
RUN_KINDS: tuple[str, ...] = ("sweep", "redfirst", "regress", "auto")
TIERS: tuple[str, ...] = ("DESK", "METAL")


@dataclass
class MutantRecord:
    """One mutant's outcome in one run. ``verdict`` is one of ``VERDICTS``."""

    id: str
    title: str
    target: str
    operator: str
    verdict: str
    owners: list[str] = field(default_factory=list)
    killed_by: list[str] = field(default_factory=list)
    failed_non_owners: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    excerpt: str = ""
    diff: str = ""
    source_file: str = ""
    source_line: int = 0
    fingerprint: str = ""
    reused: bool = False
    detail: dict[str, Any] = field(default_factory=dict)
    # Optional precise span of the mutated code (1-based; 0 = unknown, derived from ``diff``).
    source_column: int = 0
    source_end_line: int = 0
    source_end_column: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MutantRecord:
        """Inverse of ``to_json``; unknown keys are ignored (records from newer versions)."""
        return cls(**{k: v for k, v in data.items() if k in _field_names(cls)})


@dataclass
class RunRecord:
    """One sweep, gate or suite run; ``kind`` is ``sweep``/``redfirst``/``regress``/``suite``/``auto``."""

    kind: str
    commit: str = ""
    branch: str = ""
    started_at: str = ""
    finished_at: str = ""
    machine: str = ""
    tier: str = "DESK"
    config_fingerprint: str = ""
    deskcheck_version: str = ""
    shard: str = ""
    status: str = "running"
    summary: dict[str, Any] = field(default_factory=dict)
    id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        """Inverse of ``to_json``; unknown keys are ignored."""
        return cls(**{k: v for k, v in data.items() if k in _field_names(cls)})


def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))
