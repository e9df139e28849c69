"""What one rank sends back for one task: its value or its failure, plus what it was doing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RankFailure:
    """An exception raised in a rank, carried back as text (exceptions need not pickle)."""

    type_name: str
    message: str
    traceback: str
    is_assertion: bool = False
    collective: str | None = None  # e.g. "all_reduce" when raised inside torch.distributed
    call_site: str | None = None  # the innermost frame outside torch, "file:line in func"

    def headline(self) -> str:
        return f"{self.type_name}: {self.message}".rstrip(": ")


@dataclass(frozen=True)
class RankOutcome:
    """One rank's result for one task.

    ``collectives`` is the process group's collective sequence number when the task ended:
    ranks that left a task with different numbers did not enter the same collectives.
    ``hung`` marks a rank that had not answered by the deadline; ``stack`` is then its
    faulthandler dump, taken before the group was killed.
    """

    rank: int
    pid: int
    value: Any = None
    failure: RankFailure | None = None
    collectives: int | None = None
    output: str = ""
    seconds: float = 0.0
    hung: bool = False
    died: str | None = None  # "exit code 3" / "signal 9" when the process ended mid-task
    stack: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.hung and self.died is None
