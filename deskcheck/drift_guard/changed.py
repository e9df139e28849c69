"""``deskcheck drift --changed-since REF``: the pull-request view of drift.

For every stand-in (registered ``Harness``/stub, and those ``deskcheck standins`` discovers
in the test files), the names the branch's production code newly needs on that stand-in's
driven methods, compared with ``REF``, that the stand-in does not provide. Both surfaces are
static: the branch side is read from the files as they are, the ``REF`` side from git objects
(``git archive REF -- <source roots>`` unpacked into a temporary folder: no worktree, the
index and the working tree are never touched). Exit 1 names every stand-in a change reaches;
a new name only behind branches the stand-in's own literal state rules out is listed as
unexercised and does not fail.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import ConfigError, DeskcheckError
from deskcheck.scratch import scratch_folder
from deskcheck.static import surface


@dataclass(frozen=True)
class Subject:
    """One stand-in: where it is built, what it stands in for, what it drives, provides."""

    label: str
    built_at: str
    model: str  # "pkg.mod:Class"
    methods: tuple[str, ...]
    root: str  # source root, relative to the repository
    provided: frozenset[str] = frozenset()
    stop_at: frozenset[str] = frozenset()  # stand-ins: not followed
    has_class: bool = False  # Cls.__new__ instances: the class's members are provided
    constants: tuple[tuple[str, Any], ...] = ()  # its literal state, for branch pruning


@dataclass
class NewNeed:
    name: str
    site: str
    subjects: list[Subject] = field(default_factory=list)
    unexercised: list[tuple[Subject, str]] = field(default_factory=list)  # (subject, branch)


@dataclass
class ChangedReport:
    ref: str
    needs: list[NewNeed]
    subjects: list[Subject]
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(n.subjects for n in self.needs)

    def render(self) -> str:
        if self.ok:
            return (f"no stand-in needs a new name since {self.ref} "
                    f"({len(self.subjects)} stand-in(s) checked)")
        lines = []
        for need in self.needs:
            n = len(need.subjects)
            if n:
                lines.append(f"this change makes {n} stand-in{'s' if n != 1 else ''} need "
                             f"`{need.name}` (read at {need.site}):")
                lines += [f"  {s.built_at} {s.label} (drives {', '.join(s.methods)})"
                          for s in need.subjects]
            if need.unexercised:
                lines.append(f"`{need.name}` (read at {need.site}) is new behind branches "
                             f"these stand-ins do not enter (unexercised, not a failure):")
                lines += [f"  {s.built_at} {s.label}: {branch}" for s, branch in need.unexercised]
        lines += [f"note: {p}" for p in self.problems]
        return "\n".join(lines)

    def markdown(self) -> str:
        if self.ok:
            return f"**deskcheck drift**: {self.render()}\n"
        lines = [f"### deskcheck drift since `{self.ref}`", ""]
        for need in self.needs:
            if need.subjects:
                lines.append(f"- this change makes {len(need.subjects)} stand-in(s) need "
                             f"`{need.name}` (read at `{need.site}`):")
                lines += [f"  - `{s.built_at}` {s.label}" for s in need.subjects]
            if need.unexercised:
                lines.append(f"- `{need.name}` is new behind branches these stand-ins do not "
                             f"enter (unexercised):")
                lines += [f"  - `{s.built_at}` {s.label}: {b}" for s, b in need.unexercised]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "ok": self.ok,
                "needs": [{"name": n.name, "site": n.site,
                           "standins": [{"built_at": s.built_at, "label": s.label,
                                         "model": s.model, "methods": list(s.methods)}
                                        for s in n.subjects],
                           "unexercised": [{"built_at": s.built_at, "label": s.label,
                                            "branch": b} for s, b in n.unexercised]}
                          for n in self.needs],
                "checked": len(self.subjects), "problems": self.problems,
                "message": self.render()}


_LITERALS = (bool, int, float, str, bytes, type(None), tuple, frozenset)


def _git(repo: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise ConfigError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}",
                          location=str(repo), fix="pass a commit, branch or tag that exists")
    return proc.stdout


def verify_ref(root: Path, ref: str) -> None:
    """:class:`ConfigError` naming ``ref`` and the fix unless it names a commit of the
    repository around ``root`` (checked before anything is imported)."""
    proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{ref}^{{commit}}"], cwd=root, capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise ConfigError(f"--changed-since: unknown ref {ref!r} (no such commit, branch or "
                          f"tag in {root})", location=str(root),
                          fix=f"check the spelling, or fetch it first: `git fetch origin {ref}` "
                              f"(then use origin/{ref})")


def _unpack(repo: Path, ref: str, roots: Iterable[str], into: Path) -> None:
    """The source roots as they are at ``ref``, from git objects."""
    paths = sorted({r for r in roots if r})
    data = _git(repo, "archive", "--format=tar", ref, "--", *(paths or ["."]))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def _needed(subject: Subject, root: Path) -> dict[str, str] | None:
    """Needed name -> first site; names the class itself provides are left out for
    ``has_class`` subjects."""
    try:
        surf = surface(subject.model, *subject.methods, roots=[root], mode="static",
                       stop_at=subject.stop_at)
    except DeskcheckError:
        return None
    out = {}
    for name, use in surf.needed().items():
        found = surf.model.lookup(name.split(".", 1)[0])
        if subject.has_class and found is not None and found[1].kind != "annotation":
            continue
        out[name] = use.first_need().where
    return out


def _unexercised(subject: Subject, root: Path) -> dict[str, str]:
    """Names the stand-in's own state rules out on the branch side (name -> branch)."""
    from deskcheck.drift_guard.paths import judge_paths
    from deskcheck.static import build_model

    try:
        cmodel = build_model(subject.model, roots=[root], mode="static")
        provided = set(subject.provided)
        if subject.has_class:
            provided |= {n for k in cmodel.sources for n, m in k.members.items()
                         if m.kind != "annotation"}
        verdict = judge_paths(cmodel, subject.methods, provided=provided,
                              constants=dict(subject.constants), stand_ins=subject.stop_at)
    except DeskcheckError:
        return {}
    return {r.name: r.condition for r in verdict.unexercised}


def changed_since(repo: Path, ref: str, subjects: Sequence[Subject]) -> ChangedReport:
    repo = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())
    _git(repo, "rev-parse", "--verify", f"{ref}^{{commit}}")
    report = ChangedReport(ref, [], list(subjects))
    by_name: dict[str, NewNeed] = {}
    with scratch_folder("deskcheck-ref-") as tmp:
        _unpack(repo, ref, {s.root for s in subjects}, Path(tmp))
        for subject in subjects:
            now = _needed(subject, repo / subject.root)
            if now is None:
                report.problems.append(f"{subject.built_at}: {subject.model} cannot be read "
                                       f"on the branch; not compared")
                continue
            before = _needed(subject, Path(tmp) / subject.root)
            if before is None:
                before = {}  # the model (or a driven method) is new since REF: all is new
            # a chain (self.a.b) is the value's business: its top name is reported when new
            new = [n for n in sorted(set(now) - set(before)) if n not in subject.provided
                   and "." not in n]
            branches = _unexercised(subject, repo / subject.root) if new else {}
            for name in new:
                need = by_name.setdefault(name, NewNeed(name, _relative(now[name], repo)))
                if name in branches:
                    need.unexercised.append((subject, branches[name]))
                else:
                    need.subjects.append(subject)
    report.needs = [by_name[n] for n in sorted(by_name)]
    return report


def _relative(site: str, repo: Path) -> str:
    path, _, line = site.rpartition(":")
    try:
        return f"{Path(path).resolve().relative_to(repo)}:{line}"
    except ValueError:
        return site


# -- where the subjects come from --------------------------------------------------------
def registered_subjects(repo: Path) -> list[Subject]:
    """Every registered Harness/stub, as a :class:`Subject` (its model read statically)."""
    from deskcheck.drift_guard import registry
    from deskcheck.drift_guard.verdicts import provision_of
    from deskcheck.static import default_roots

    out: list[Subject] = []
    for key, subject in registry.registered().items():
        prov = provision_of(subject)
        model = prov.model
        if not isinstance(model, type):
            continue
        root = default_roots(model)[0]
        provided = set(prov.binds) | set(prov.stand_ins) | set(prov.state) | set(prov.adopted)
        if prov.binds_everything:
            provided |= {n for k in model.__mro__ for n in vars(k)}
        constants = tuple((n, v) for n, v in prov.state.items() if isinstance(v, _LITERALS))
        out.append(Subject(key.rsplit(":", 1)[-1], _relative(prov.location, repo) or key,
                           f"{model.__module__}:{model.__qualname__}", tuple(prov.roots),
                           _relative_root(root, repo), frozenset(provided),
                           frozenset(prov.stand_ins), constants=constants))
    return out


def _relative_root(root: Path, repo: Path) -> str:
    try:
        return str(root.resolve().relative_to(repo.resolve()))
    except ValueError:
        return str(root)


def discovered_subjects(repo: Path, config: Any) -> tuple[list[Subject], list[str]]:
    """Stand-ins ``deskcheck standins`` finds (the seam: empty when that part is absent)."""
    try:
        from deskcheck.drift_guard.standins.command import default_paths
        from deskcheck.drift_guard.standins.discover import discover
    except ImportError:
        return [], ["discovery (deskcheck standins) is not available: registered stand-ins only"]
    found = discover(default_paths(config), config)
    out: list[Subject] = []
    for report in found.reports:
        methods = tuple(dict.fromkeys(d.method for d in report.driven))
        if not report.model or not methods:
            continue
        root = next((r for r in found.roots
                     if (Path(r) / report.model.split(":")[0].split(".")[0]).exists()),
                    found.roots[0] if found.roots else repo)
        cons = report.construction
        provided = frozenset(report.sets) | frozenset(cons.class_names)
        constants = tuple((n, s.value) for n, s in report.sets.items()
                          if s.constant and isinstance(s.value, _LITERALS))
        out.append(Subject(cons.form, _relative(str(found.rootdir / report.built_at), repo),
                           report.model, methods, _relative_root(Path(root), repo), provided,
                           has_class=cons.kind == "new", constants=constants))
    return out, [f"{p.file}:{p.line}: {p.message}" for p in found.problems]
