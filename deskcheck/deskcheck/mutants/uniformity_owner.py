"""The ``uniformity:`` owner kind: the rank-uniformity audit as the owner of a mutant.

``owners = ["uniformity:Scheduler._update_uniform_pool_budget", "tests/t.py::test_arm"]``
names a function whose gating decisions the audit (:mod:`deskcheck.uniformity`) must judge.
The audit runs statically on the mutated source, handed to it as an in-memory overlay of the
target's file (nothing is written, nothing imported), and the owner

* KILLS when a gating decision of that function is RANK-LOCAL (or, with ``strict = true``,
  UNKNOWN) under the mutant, where every one of its decisions held on today's source: the
  mutant made a gating input rank-local and the audit saw it; or when a declaration that
  sanctions one of its inputs (``agreed``, ``replica``) fails under the mutant where it held:
  the agreed value was replaced by its local source, and the claim no longer holds;
* is red on clean code (the mutant is BASELINE_RED) when one of its decisions already fails
  on today's source: a flip cannot be told from what was there;
* is a catalog error (exit 2, at the owner's line) when the function has no gating decision
  at all: such an owner could never kill anything.

The catalog says what the audit walks in a ``[uniformity]`` table::

    [uniformity]
    target = "tp_scheduler.scheduler:Scheduler"   # the class (its root methods) to audit
    root = "."                                    # the source root, relative to the catalog
    pyproject = "pyproject.toml"                  # [tool.deskcheck.uniformity]; default: the
                                                  # nearest one at or above the root
    strict = false                                # UNKNOWN fails too

A uniformity owner's judgement is an ``ItemResult`` like a test's (node id: the owner as
written), so the verdict words, ``killed_by`` and the renderers stay the same. It is judged in
the sweep's parent, before the owner tests run: being static, it never stands in for them.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import CatalogError
from deskcheck.mutants.mutated import MutatedFunction
from deskcheck.mutants.verdicts import ItemResult

PREFIX = "uniformity:"
SETTINGS_KEYS = ("target", "root", "pyproject", "strict")
FAILURE = "RankLocalDecision"  # the exception-like name a kill's failure line starts with
UNPROVEN = "UnprovenSource"  # a kill through a declaration that no longer holds
_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def is_uniformity_owner(owner: str) -> bool:
    return owner.startswith(PREFIX)


def owner_function(owner: str) -> str:
    """``uniformity:Scheduler.step`` -> ``Scheduler.step``."""
    return owner[len(PREFIX):].strip()


def node_owners(owners: Iterable[str]) -> list[str]:
    """The owners pytest selects (node ids, ``-k``/``-m``): every kind but ``uniformity:``."""
    return [o for o in owners if not is_uniformity_owner(o)]


@dataclass(frozen=True)
class AuditSettings:
    """The catalog's ``[uniformity]`` table (paths as written, relative to the catalog)."""

    target: str = ""
    root: str = "."
    pyproject: str = ""
    strict: bool = False
    line: int = 0  # of the table (0: the catalog has none)

    def root_path(self, catalog_root: Path) -> Path:
        return (catalog_root / self.root).resolve()

    def pyproject_path(self, catalog_root: Path) -> Path | None:
        if self.pyproject:
            return (catalog_root / self.pyproject).resolve()
        root = self.root_path(catalog_root)
        return next((folder / "pyproject.toml" for folder in (root, *root.parents)
                     if (folder / "pyproject.toml").is_file()), None)

    def source_files(self, catalog_root: Path) -> list[Path]:
        """What a verdict of the audit depends on: the .py files under the root and the
        pyproject holding the declarations (for incremental reuse)."""
        root = self.root_path(catalog_root)
        files = [p for p in root.rglob("*.py") if not any(
            part == "__pycache__" or part.startswith(".") for part in p.relative_to(root).parts)]
        pyproject = self.pyproject_path(catalog_root)
        return sorted(files + ([pyproject] if pyproject and pyproject.is_file() else []))


def parse_settings(raw: Any, key_line: Callable[[str], int], err) -> AuditSettings:
    """The ``[uniformity]`` table, every problem reported through ``err(line, msg, fix)``."""
    if not isinstance(raw, dict):
        err(key_line(""), "[uniformity] must be a table", "write it as a [uniformity] section")
        return AuditSettings()
    for key in raw:
        if key not in SETTINGS_KEYS:
            close = difflib.get_close_matches(key, SETTINGS_KEYS, n=1, cutoff=0.6)
            err(key_line(key), f"unknown [uniformity] key {key!r}"
                + (f"; did you mean {close[0]!r}?" if close else ""),
                f"allowed keys: {', '.join(SETTINGS_KEYS)}")
    values: dict[str, Any] = {"line": key_line("target") if "target" in raw else key_line("")}
    target = raw.get("target", "")
    if not isinstance(target, str) or not _TARGET.match(target):
        err(key_line("target"), f"[uniformity] target {target!r} is not "
            "'package.module:Class'", 'e.g. target = "tp_scheduler.scheduler:Scheduler"')
    else:
        values["target"] = target
    for key in ("root", "pyproject"):
        if key in raw:
            if not isinstance(raw[key], str) or not raw[key].strip():
                err(key_line(key), f"[uniformity] {key} must be a path (relative to the "
                    "catalog)", f'e.g. {key} = "{"." if key == "root" else "pyproject.toml"}"')
            else:
                values[key] = raw[key]
    if "strict" in raw:
        if not isinstance(raw["strict"], bool):
            err(key_line("strict"), "[uniformity] strict must be true or false",
                "strict = true makes an UNKNOWN decision fail like a RANK-LOCAL one")
        else:
            values["strict"] = raw["strict"]
    return AuditSettings(**values)


def owner_problem(owner: str, settings: AuditSettings | None) -> tuple[str, str] | None:
    """``(message, fix)`` for a ``uniformity:`` owner that is malformed or has no audit to
    run (checked when the catalog loads; whether the function has a gating decision is
    known only once the audit ran: ``UniformityJudge.owner_errors``)."""
    function = owner_function(owner)
    if not _QUALNAME.match(function):
        return (f"owner {owner!r}: {function!r} is not a qualified function name",
                'e.g. "uniformity:Scheduler._update_uniform_pool_budget"')
    if settings is None or not settings.target:
        return (f"owner {owner!r}: a uniformity owner needs the catalog's [uniformity] target "
                "(the class whose event loops the audit walks)",
                'add [uniformity] with target = "package.module:Class" to the catalog')
    return None


@dataclass
class OwnerJudgement:
    """One uniformity owner under one mutant, as an item result (``failed`` = it killed)."""

    owner: str
    killed: bool
    message: str
    text: str = ""

    def item_result(self) -> ItemResult:
        return ItemResult(nodeid=self.owner, outcome="failed" if self.killed else "passed",
                          message=self.message, text=self.text)


def run_audit(settings: AuditSettings, catalog_root: Path,
              overlay: dict[str, str] | None = None) -> Any:
    """The audit of ``settings.target`` over the source root, with ``overlay`` (path ->
    text) read in place of those files. The one place this part calls the audit."""
    from deskcheck.static import Sources
    from deskcheck.uniformity import audit, load_uniformity_config

    pyproject = settings.pyproject_path(catalog_root)
    config = load_uniformity_config(pyproject) if pyproject is not None else None
    return audit(settings.target, root=settings.root_path(catalog_root), config=config,
                 sources=Sources(overlay=overlay) if overlay else None)


def _verdict_word(verdict: Any) -> str:
    """``Verdict.RANK_LOCAL`` / ``"RANK_LOCAL"`` / ``"RANK-LOCAL"`` -> ``"RANK-LOCAL"``."""
    return str(getattr(verdict, "value", verdict)).replace("_", "-")


@dataclass
class UniformityJudge:
    """Judges a catalog's uniformity owners: the clean audit once, one audit per mutant."""

    settings: AuditSettings
    catalog_root: Path
    audit: Callable[..., Any] = run_audit
    _clean: Any = field(default=None, init=False)

    def failing(self, decision: Any) -> bool:
        word = _verdict_word(decision.verdict)
        return word == "RANK-LOCAL" or (self.settings.strict and word == "UNKNOWN")

    def clean(self) -> Any:
        if self._clean is None:
            self._clean = self.audit(self.settings, self.catalog_root)
        return self._clean

    def decisions(self, report: Any, owner: str) -> list[Any]:
        """The decisions of the owner's function: by qualname, or, when the owner names the
        audited class (``Scheduler.m``), its method ``m`` wherever the MRO defines it."""
        function = owner_function(owner)
        klass, _, method = function.rpartition(".")
        audited = self.settings.target.rpartition(":")[2].rpartition(".")[2]
        return [d for d in report.decisions
                if d.function == function or d.function.endswith("." + function)
                or function.endswith("." + d.function)
                or (klass == audited and d.function.rpartition(".")[2] == method)]

    def owner_errors(self, mutants: Iterable[Any], line_of: Callable[[Any, str], str]
                     ) -> list[CatalogError]:
        """A catalog error for each uniformity owner whose function has no gating decision
        on today's source, at the owner's catalog line, with the functions that have one."""
        errors = []
        report = self.clean()
        functions = sorted({d.function for d in report.decisions})
        for mutant in mutants:
            for owner in mutant.owners:
                if not is_uniformity_owner(owner) or self.decisions(report, owner):
                    continue
                close = difflib.get_close_matches(owner_function(owner), functions, n=3,
                                                  cutoff=0.5)
                hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
                errors.append(CatalogError(
                    f"mutant {mutant.id!r}: owner {owner!r} names a function with no gating "
                    f"decision in the audit of {self.settings.target}{hint}",
                    location=line_of(mutant, owner),
                    fix="name a function whose decision gates a collective (`deskcheck "
                        f"uniformity {self.settings.target}` lists them): "
                        + (", ".join(functions[:8]) or "the audit found none")))
        return errors

    def broken_sources(self, report: Any, owner: str, since: Any = None
                       ) -> list[tuple[Any, str]]:
        """``(decision, "subject: status (detail)")`` for each failing declaration that
        sanctions an input of one of the owner's decisions (in ``report``; not when it
        already fails in ``since``)."""
        before = {(f.subject, f.status) for f in getattr(since, "declarations", [])}
        found = []
        for finding in getattr(report, "declarations", []):
            if (finding.subject, finding.status) in before:
                continue
            decision = next((d for d in self.decisions(report, owner) for i in d.inputs
                             if i.name == finding.subject
                             and _verdict_word(i.klass) == "SANCTIONED"), None)
            if decision is not None:
                found.append((decision, _relative(
                    f"{finding.subject}: {finding.status} ({finding.detail})")))
        return found

    def baseline_red(self, owner: str) -> str | None:
        """Why ``owner`` is red on clean code (a decision already fails, or a declaration
        one of its inputs rests on), else None."""
        bad = [d for d in self.decisions(self.clean(), owner) if self.failing(d)]
        broken = self.broken_sources(self.clean(), owner)
        if not bad and not broken:
            return None
        return (f"owner {owner!r} is not green on clean code: the audit already judges "
                + "; ".join([self._describe(d) for d in bad]
                            + [f"a declaration its decisions rest on fails: {b}"
                               for _, b in broken])
                + "\n" + "\n".join(self._witness(d) for d in bad))

    def judge(self, owner: str, mutated: MutatedFunction) -> OwnerJudgement:
        """The audit on the mutated source: KILLED when a decision of the owner's function
        fails under the mutant (every one held on clean code: see ``baseline_red``)."""
        report = self.audit(self.settings, self.catalog_root,
                            {mutated.file: mutated.mutated_file_text()})
        clean = self.decisions(self.clean(), owner)
        before = {d.key: _verdict_word(d.verdict) for d in clean}
        # a mutated condition reads differently: the clean decision of that kind and line
        before.update({(d.kind, d.line): _verdict_word(d.verdict) for d in clean})
        flipped = [d for d in self.decisions(report, owner) if self.failing(d)]
        broken = self.broken_sources(report, owner, since=self.clean())
        if broken and not flipped:
            first, why = broken[0]
            return OwnerJudgement(owner, True, (
                f"{UNPROVEN}: {first.function} at {self._where(first)}: `{first.condition}` "
                f"{_verdict_word(first.verdict)}, through a declaration that fails under the "
                f"mutant: {why}"), "\n".join(b for _, b in broken))
        if not flipped:
            held = ", ".join(sorted({_verdict_word(d.verdict)
                                     for d in self.decisions(report, owner)})) or "none left"
            return OwnerJudgement(owner, False, f"the audit still holds under the mutant: "
                                  f"{owner_function(owner)}'s decisions are {held}")
        first = flipped[0]
        was = before.get(first.key) or before.get((first.kind, first.line), "a new decision")
        message = (f"{FAILURE}: {self._describe(first, was)}")
        return OwnerJudgement(owner, True, message,
                              "\n".join(self._witness(d) for d in flipped))

    def _where(self, decision: Any) -> str:
        return f"{_relative(decision.file)}:{decision.line}"

    def _describe(self, decision: Any, was: str | None = None) -> str:
        now = _verdict_word(decision.verdict)
        change = f"{was} -> {now}" if was else now
        return (f"{decision.function} at {self._where(decision)}: `{decision.condition}` "
                f"{change}")

    def _witness(self, decision: Any) -> str:
        lines = [f"decision {decision.function} at {self._where(decision)}: "
                 f"{decision.condition} [{_verdict_word(decision.verdict)}]"]
        for site in getattr(decision, "collectives", [])[:3]:
            lines.append(f"  gates {site.call} at {_relative(site.file)}:{site.line}")
        for item in decision.inputs:
            word = _verdict_word(item.klass)
            if word not in ("RANK-LOCAL", "UNKNOWN"):
                continue
            reason = f" ({item.reason})" if getattr(item, "reason", "") else ""
            lines.append(f"  input {item.name}: {word}{reason}")
            lines.extend(f"    {_relative(hop)}" for hop in item.witness)
        return "\n".join(lines)


def _relative(text: str) -> str:
    """Paths under the current folder written relative (a witness hop starts with one)."""
    here = str(Path.cwd())
    for folder in dict.fromkeys((here, os.path.realpath(here))):
        text = text.replace(folder.rstrip(os.sep) + os.sep, "")
    return text
