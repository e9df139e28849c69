"""The sweep's side of the ``uniformity:`` owners: judged in the warm parent, merged as items.

For the mutants of a sweep that name ``uniformity:`` owners this holds the one judge of the
catalog (the clean audit is run once), reports owners that name a function with no gating
decision (catalog errors, at the owner's line), says which owners are red on clean code, and
judges each mutant before its child starts. The judgements are ``ItemResult``s whose node id
is the owner as written; ``decide`` then treats them like any owner's result, except that a
mutant's ``expect`` is for its tests: a uniformity owner kills by its verdict flip alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from deskcheck.errors import CatalogError, UnknownTargetError
from deskcheck.mutants.catalog import Catalog, Mutant
from deskcheck.mutants.mutated import MutatedFunction
from deskcheck.mutants.uniformity_owner import UniformityJudge, is_uniformity_owner
from deskcheck.mutants.verdicts import ItemResult, decide


def owner_line(mutant: Mutant, owner: str) -> str:
    """``catalog.toml:LINE`` of ``owner`` inside the mutant's entry (else the entry's line)."""
    try:
        lines = Path(mutant.catalog_file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return mutant.location
    for number in range(max(mutant.line, 1), len(lines) + 1):
        text = lines[number - 1]
        if number > mutant.line and re.match(r"^\s*\[", text) and "=" not in text:
            break
        if f'"{owner}"' in text or f"'{owner}'" in text:
            return f"{mutant.catalog_file}:{number}"
    return mutant.location


class StaticOwners:
    """The ``uniformity:`` owners of the mutants being swept, and their judgements."""

    def __init__(self, catalog: Catalog, mutants: Sequence[Mutant]):
        self.catalog = catalog
        self.owners = {m.id: [o for o in m.owners if is_uniformity_owner(o)] for m in mutants}
        wanted = any(self.owners.values())
        self.judge = (UniformityJudge(catalog.uniformity, catalog.root)
                      if wanted and catalog.uniformity is not None else None)
        self.results: dict[str, list[ItemResult]] = {}

    def of(self, mutant_id: str) -> list[str]:
        return self.owners.get(mutant_id, [])

    def errors(self, mutants: Sequence[Mutant]) -> list[CatalogError]:
        """Owners naming a function with no gating decision (runs the clean audit)."""
        if self.judge is None:
            return []
        try:
            return self.judge.owner_errors([m for m in mutants if self.of(m.id)], owner_line)
        except UnknownTargetError as exc:  # the [uniformity] target names no class there
            settings = self.judge.settings
            return [CatalogError(f"[uniformity] target {settings.target!r}: {exc.message}",
                                 location=f"{self.catalog.path}:{settings.line}",
                                 fix=exc.fix or "name the class the audit walks "
                                 "(package.module:Class)")]

    def baseline_red(self, mutant: Mutant) -> str | None:
        """Why the mutant cannot be judged: an owner's decision already fails clean."""
        if self.judge is None:
            return None
        reasons = [why for owner in self.of(mutant.id)
                   if (why := self.judge.baseline_red(owner)) is not None]
        return "\n".join(reasons) or None

    def judge_mutant(self, mutant: Mutant, mutated: MutatedFunction) -> list[ItemResult]:
        """Each uniformity owner's result under the mutant (kept for ``_judge``)."""
        if self.judge is None or not self.of(mutant.id):
            return []
        results = [self.judge.judge(owner, mutated).item_result()
                   for owner in self.of(mutant.id)]
        self.results[mutant.id] = results
        return results

    def killed(self, mutant_id: str) -> bool:
        return any(r.outcome == "failed" for r in self.results.get(mutant_id, []))

    def reasons(self, mutant_id: str) -> dict[str, str | None]:
        """Fixed failure reasons for ``decide``: a uniformity owner that failed killed."""
        return {r.nodeid: "kill" if r.outcome == "failed" else None
                for r in self.results.get(mutant_id, [])}

    def verdict(self, mutant: Mutant, mutated: MutatedFunction, test_owners: list[str]
                ) -> tuple[str, str, list[str], list[str]] | None:
        """Judge the mutant's ``uniformity:`` owners before any child: ``(verdict, excerpt,
        owners, killed_by)`` when that decides it (BASELINE_RED: one is red on clean code;
        KILLED: the audit killed and no test owner is left to run), else None (the tests
        run and both are judged)."""
        uniformity = self.of(mutant.id)
        if not uniformity:
            return None
        every = test_owners + uniformity
        red = self.baseline_red(mutant)
        if red is not None:
            return "BASELINE_RED", red, every, []
        results = self.judge_mutant(mutant, mutated)
        if test_owners or not self.killed(mutant.id):
            return None
        found = decide(uniformity, results, None, (), mutant.accepted_survivor,
                       judged=self.reasons(mutant.id))
        return found.verdict, found.excerpt, every, found.killed_by
