"""Cross-check what the ranks did with the static uniformity audit (:mod:`deskcheck.uniformity`).

A decision the audit calls UNIFORM (every input agreed or replicated config) that the ranks
took different ways at run time is the audit's miss: its model of an input is wrong (a
declaration that does not hold, a source it could not see). Each miss is a note on the
failure naming both: the decision's file:line and condition, the audit's verdict and why, and
each rank's way with the values it read.

The audit's target is found from what the ranks ran: a class of the recorded call paths that
defines a root method (``[tool.deskcheck.uniformity] roots``, default ``event_loop*``), audited
under the folder of the nearest pyproject.toml.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskcheck.suites.records import Decision, relative
from deskcheck.suites.split import way_splits


@dataclass(frozen=True)
class AuditMiss:
    """A decision the audit holds uniform, taken different ways by the ranks."""

    decision: tuple[Decision, ...]
    verdict: str
    why: str
    target: str

    def render(self) -> str:
        """The words every renderer uses (terminal, JSON, Markdown, HTML)."""
        first = self.decision[0]
        condition = " ".join(first.condition.split())
        lines = [f"uniformity audit missed: {first.where} {first.kind} {condition}: the audit "
                 f"({self.target}) calls it {self.verdict}"
                 + (f" ({self.why})" if self.why else "")
                 + ", yet the ranks took it different ways at run time"]
        for rank, taken in enumerate(self.decision):
            values = ", ".join(f"{k}={v}" for k, v in taken.inputs.items())
            lines.append(f"  rank {rank}: {taken.way}" + (f" ({values})" if values else ""))
        lines.append("  fix: an input the audit classes as agreed or config differs between the "
                     "ranks: correct its declaration in [tool.deskcheck.uniformity] (or the "
                     "code that should make it agreed)")
        return "\n".join(lines)


def audit_misses(records: Sequence[Sequence[Decision]], report: Any,
                 target: str = "") -> list[AuditMiss]:
    """Each decision of ``report`` (an :class:`~deskcheck.uniformity.AuditReport`) with the
    verdict UNIFORM that the ranks' ``records`` show taken different ways."""
    uniform = {(str(Path(d.file).resolve()), d.line): d for d in report.decisions
               if str(d.verdict) == "UNIFORM"}
    misses = []
    seen = set()
    for step in way_splits(records) if records and all(records) else []:
        key = (str(Path(step[0].file).resolve()), step[0].line)
        if key in uniform and key not in seen:
            seen.add(key)
            found = uniform[key]
            misses.append(AuditMiss(step, "UNIFORM", found.why, target or report.target))
    return misses


def _project_root(file: str) -> Path | None:
    for folder in Path(file).resolve().parents:
        if (folder / "pyproject.toml").is_file():
            return folder
    return None


@functools.cache
def _classes_with_roots(file: str, patterns: tuple[str, ...]) -> frozenset[str]:
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.name for node in tree.body if isinstance(node, ast.ClassDef) and any(
        isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(fnmatch.fnmatchcase(m.name, p) for p in patterns) for m in node.body))


def audit_targets(records: Sequence[Sequence[Decision]]) -> list[tuple[str, Path]]:
    """``(MODULE:Class, root)`` for each class of the recorded call paths that defines a root
    method of the uniformity audit."""
    from deskcheck.uniformity import load_uniformity_config

    found: dict[str, Path] = {}
    for rank in records[:1]:
        for decision in rank:
            if decision.kind != "call" or "." not in decision.path[-1]:
                continue
            root = _project_root(decision.file)
            if root is None:
                continue
            try:
                patterns = tuple(load_uniformity_config(root / "pyproject.toml").roots)
                module = Path(decision.file).resolve().relative_to(root).with_suffix("")
            except Exception:  # noqa: BLE001 - a bad config or a file outside: no audit here
                continue
            klass = decision.path[-1].split(".", 1)[0]
            if klass in _classes_with_roots(decision.file, patterns):
                found.setdefault(f"{'.'.join(module.parts)}:{klass}", root)
    return sorted(found.items())


def cross_check(records: Sequence[Sequence[Decision]]) -> list[AuditMiss]:
    """Run the audit on each target the records reach and return its misses."""
    from deskcheck.uniformity import audit

    misses: list[AuditMiss] = []
    for target, root in audit_targets(records):
        try:
            report = audit(target, root=root)
        except Exception:  # noqa: BLE001 - an audit that cannot run names no miss
            continue
        misses += audit_misses(records, report, f"{target} under {relative(str(root))}")
    return misses
