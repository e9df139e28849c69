"""A mutant made concrete (the mutated ``def`` text) and the two ways that can fail.

Light on purpose (no libcst): processes the tests start import this to apply a mutant.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from deskcheck.mutants.source import read_file


class StaleOperator(Exception):
    """The operator does not match the target function (names the snippet and function)."""


class OccurrenceOutOfRange(StaleOperator):
    """``occurrence = N`` names a site the target does not have: a catalog error (the entry
    is wrong), not drift of the production code."""


class BrokenMutant(Exception):
    """The mutated function does not parse or compile."""


class NotInjectable(BrokenMutant):
    """The mutant compiles, but the code that would run it cannot be reached in memory (e.g. a
    closure built before the tests ran whose free variables the mutant changes): judged
    NOT_INJECTABLE with this reason, never SURVIVED."""


@dataclass(frozen=True)
class MutatedFunction:
    """A mutant made concrete against today's source of its target."""

    mutant_id: str
    target: str
    file: str
    start_line: int
    end_line: int
    indent: str
    original: str
    mutated: str
    file_sha: str

    def payload(self) -> dict[str, Any]:
        """What a process needs to apply this mutant (JSON-able; see ``injection``)."""
        return asdict(self)

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> MutatedFunction:
        return cls(**data)

    def file_lines(self) -> tuple[list[str], list[str]]:
        """(the file on disk, the file with the mutant in place), as lines; nothing written."""
        _, lines, _ = read_file(self.file)
        new_lines = [self.indent + line if line.strip() else line
                     for line in self.mutated.splitlines(keepends=True)]
        return lines, lines[: self.start_line - 1] + new_lines + lines[self.end_line:]

    def mutated_file_text(self) -> str:
        """The target's whole file with the mutant in place: what a static reader (the
        uniformity audit) is given as an in-memory overlay of that file."""
        return "".join(self.file_lines()[1])

    def diff(self, relative_to: Path | None = None) -> str:
        """Unified diff of the mutant against the file on disk."""
        lines, mutated = self.file_lines()
        name = self.file
        if relative_to is not None:
            try:
                name = os.path.relpath(self.file, relative_to)
            except ValueError:
                pass
        return "".join(difflib.unified_diff(lines, mutated, fromfile=f"a/{name}",
                                            tofile=f"b/{name}"))
