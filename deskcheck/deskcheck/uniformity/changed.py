"""``--changed-since REF``: the decisions, collective sites and rank-local inputs a branch adds
or changes. The REF side is audited from git objects held in memory (the changed files'
text at REF as a source overlay: no checkout, nothing written); a branch that touches no
Python file the audit reads answers at once. With an :class:`AuditCache` each side that
still holds (the REF side is usually the audit of the branch point, kept by an earlier run)
is read from it instead of audited."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import ConfigError
from deskcheck.static import Sources
from deskcheck.uniformity.cache import AuditCache
from deskcheck.uniformity.config import UniformityConfig
from deskcheck.uniformity.model import AuditReport, CollectiveSite, Decision, Verdict


@dataclass
class Changes:
    """What the branch adds or changes against ``ref``."""

    target: str
    ref: str
    files: list[str] = field(default_factory=list)
    decisions: list[tuple[str, Decision]] = field(default_factory=list)  # (added|changed, d)
    sites: list[CollectiveSite] = field(default_factory=list)
    rank_local: list[tuple[Decision, str]] = field(default_factory=list)  # new rank-local input
    seconds: float = 0.0

    def exit_code(self, strict: bool = False) -> int:
        bad = {Verdict.RANK_LOCAL} | ({Verdict.UNKNOWN} if strict else set())
        return 1 if any(d.verdict in bad for _k, d in self.decisions) else 0

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "ref": self.ref, "files": self.files,
                "seconds": round(self.seconds, 3),
                "decisions": [{"change": k, **d.to_json()} for k, d in self.decisions],
                "sites": [s.to_json() for s in self.sites],
                "rank_local_inputs": [{"function": d.function, "line": d.line, "input": name}
                                      for d, name in self.rank_local]}

    def lines(self) -> list[str]:
        out = [f"{self.target} since {self.ref}: {len(self.files)} changed file(s), "
               f"{len(self.decisions)} decision(s) added or changed, {len(self.sites)} new "
               f"collective site(s), {len(self.rank_local)} new rank-local input(s) "
               f"({self.seconds:.2f}s)"]
        for kind, d in self.decisions:
            out.append(f"{kind} {d.verdict.value} {d.where} {d.function}: {d.kind} `{d.condition}`")
            if d.verdict in (Verdict.RANK_LOCAL, Verdict.UNKNOWN):
                out.append(f"  why: {d.why}")
        for s in self.sites:
            out.append(f"new site {s.where} {s.call} [{s.group or 'WORLD'}]")
        for d, name in self.rank_local:
            out.append(f"new rank-local input {name} of {d.function} at {d.where}")
        return out

    def to_markdown(self) -> str:
        lines = self.lines()
        return "\n".join([f"## deskcheck uniformity --changed-since {self.ref}", "", lines[0], ""]
                         + [f"- {line.strip()}" for line in lines[1:]]) + "\n"


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise ConfigError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}",
                          location=str(repo), fix="pass a ref that exists (a branch, tag or sha)")
    return proc.stdout.decode("utf-8", "replace")


def changed_files(root: Path, ref: str) -> tuple[Path, list[Path]]:
    """(repository top, changed .py files under ``root`` between ``ref`` and the work tree)."""
    top = Path(_git(root, "rev-parse", "--show-toplevel").strip())
    _git(top, "rev-parse", "--verify", f"{ref}^{{commit}}")
    names = _git(top, "diff", "--name-only", ref, "--", str(root.resolve())).split()
    names += _git(top, "ls-files", "--others", "--exclude-standard", "--",
                  str(root.resolve())).split()
    return top, sorted({(top / n).resolve() for n in names if n.endswith(".py")})


def changed_since(target: str, *, root: Path | str, ref: str,
                  roots_methods: list[str] | None = None,
                  config: UniformityConfig | None = None,
                  cache: AuditCache | None = None) -> Changes:
    """``cache``: both sides are read from it when they still hold, and kept in it when
    audited (the REF side by its files' text at REF); without one both are audited."""
    from deskcheck.uniformity.audit import audit

    started = time.perf_counter()
    root = Path(root).resolve()
    top, files = changed_files(root, ref)
    changes = Changes(target, ref, [str(f.relative_to(top)) for f in files])
    if not files:
        changes.seconds = time.perf_counter() - started
        return changes
    head = audit(target, root=root, roots_methods=roots_methods, config=config, cache=cache)
    read = {c.file for c in head.decisions} | {s.file for s in head.sites} | set(head.files_read)
    if not any(str(f) in read for f in files):
        changes.seconds = time.perf_counter() - started
        return changes
    overlay: dict[str, str] = {}
    for f in files:
        rel = f.relative_to(top).as_posix()
        try:
            overlay[str(f)] = _git(top, "show", f"{ref}:{rel}")
        except ConfigError:
            overlay[str(f)] = ""  # added on the branch: absent at REF
    base = audit(target, root=root, roots_methods=roots_methods, config=config,
                 sources=Sources(overlay), cache=cache)
    _compare(base, head, changes)
    changes.seconds = time.perf_counter() - started
    return changes


def _compare(base: AuditReport, head: AuditReport, changes: Changes) -> None:
    # decisions sharing a key (one condition text twice in a function) pair up in order
    before: dict[str, list[Decision]] = {}
    for d in base.decisions:
        before.setdefault(d.key, []).append(d)
    seen: dict[str, int] = {}
    for d in head.decisions:
        nth = seen[d.key] = seen.get(d.key, -1) + 1
        same = before.get(d.key, [])
        old = same[nth] if nth < len(same) else None
        if old is None:
            changes.decisions.append(("added", d))
        elif old.verdict is not d.verdict or _local(old) != _local(d):
            changes.decisions.append(("changed", d))
        if old is not None:
            for name in sorted(_local(d) - _local(old)):
                changes.rank_local.append((d, name))
        else:
            changes.rank_local += [(d, name) for name in sorted(_local(d))]
    old_sites = {(s.function, s.call, s.group) for s in base.sites}
    changes.sites = [s for s in head.sites if (s.function, s.call, s.group) not in old_sites]


def _local(d: Decision) -> set[str]:
    return {i.name for i in d.inputs if i.klass.value == "RANK-LOCAL"}
