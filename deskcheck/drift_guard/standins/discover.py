"""``deskcheck standins`` as a function: find, resolve and judge every stand-in under the
given test paths, collecting every problem in one pass."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.config import ProjectConfig
from deskcheck.drift_guard.standins.finder import Finder, qualify_in, test_files
from deskcheck.drift_guard.standins.judge import CATEGORIES, Executed, Judge, StandInReport
from deskcheck.drift_guard.standins.records import Construction, Drive, FileFindings, Problem
from deskcheck.drift_guard.standins.resolve import Resolved, Resolver, source_roots


@dataclass
class Discovery:
    """Every stand-in found and judged, and every problem, with the time it took."""

    rootdir: Path
    roots: list[Path]
    files: list[str]
    tests: int
    reports: list[StandInReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    strict: bool = False
    mode: str = "static"
    elapsed_s: float = 0.0
    run: dict[str, Any] | None = None
    model_files: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return not self.problems and all(r.holds for r in self.reports)

    @property
    def driving_tests(self) -> list[str]:
        return sorted({t for r in self.reports for d in r.driven for t in d.tests})

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.holds, "mode": self.mode, "strict": self.strict,
            "elapsed_s": round(self.elapsed_s, 4),
            "roots": [str(r) for r in self.roots], "files": self.files,
            "counts": {"files": len(self.files), "tests": self.tests,
                       "standins": len(self.reports),
                       "drifted": sum(not r.holds for r in self.reports),
                       "problems": len(self.problems)},
            "standins": [_report_json(r) for r in self.reports],
            "problems": [p.to_json() for p in self.problems],
            "run": self.run,
        }


def _report_json(report: StandInReport) -> dict[str, Any]:
    cons = report.construction
    return {
        "built_at": report.built_at, "kind": cons.kind, "form": cons.form,
        "through": list(cons.through), "model": report.model, "status": report.status,
        "holds": report.holds,
        "sets": {n: {"line": s.line, "value": repr(s.value) if s.constant else None,
                     "text": s.text} for n, s in report.sets.items()},
        "dynamic_sets": list(cons.dynamic),
        "driven": [{"method": d.method, "how": d.how, "tests": d.tests, "sites": d.sites}
                   for d in report.driven],
        "needed": report.needed, "decided": report.decided, "undecided": report.undecided,
        "signature": [item.to_json() for item in report.signature],
        **{c: [r.to_json() for r in report.records(c)] for c in CATEGORIES},
        "verdicts": [{"tests": j.tests, "methods": j.methods, **j.verdict.to_json()}
                     for j in report.judgments],
        "elapsed_s": round(report.elapsed_s, 4),
    }


def find(paths: Sequence[Path], rootdir: Path) -> tuple[Finder, list[FileFindings]]:
    """Static discovery only (no model resolution)."""
    started = time.perf_counter()
    finder = Finder(rootdir)
    findings = [finder.find(p) for p in test_files(paths)]
    finder.elapsed_s = time.perf_counter() - started
    return finder, findings


def discover(paths: Sequence[Path], config: ProjectConfig, *, roots: Sequence[str | Path] = (),
             strict: bool = False, executed: Executed | None = None,
             finder_result: tuple[Finder, list[FileFindings]] | None = None,
             verdicts: bool = True, failed: frozenset[str] = frozenset()) -> Discovery:
    """Find, resolve and judge (``verdicts=False``: find and resolve only, e.g. to learn
    which tests to run for ``--run``)."""
    started = time.perf_counter()
    rootdir = config.root.resolve()
    finder, findings = finder_result or find(paths, rootdir)
    resolver = Resolver(source_roots(config, roots))
    judge = Judge(resolver, lambda file, expr: qualify_in(finder, file, expr), str(rootdir),
                  strict=strict, executed=executed, verdicts=verdicts, failed=failed)
    result = Discovery(rootdir, resolver.roots, [f.file for f in findings],
                       sum(len(f.tests) for f in findings), strict=strict,
                       mode="executed" if executed is not None else "static")
    merged: dict[tuple[str, int], Construction] = {}
    drives: dict[tuple[str, int], list[Drive]] = {}
    for item in findings:
        for cons in item.constructions:
            key = (cons.file, cons.line)
            first = merged.setdefault(key, cons)
            if first is not cons:
                for name, value in cons.sets.items():
                    first.sets.setdefault(name, value)
                first.through.extend(t for t in cons.through if t not in first.through)
                first.dynamic.extend(d for d in cons.dynamic if d not in first.dynamic)
        for drive in item.drives:
            drives.setdefault((drive.construction.file, drive.construction.line), []).append(drive)
    for key in sorted(merged):
        report = judge.judge(merged[key], drives.get(key, []))
        if report is not None:
            result.reports.append(report)
    result.model_files = sorted({f for found in resolver._cache.values()
                                 if isinstance(found, Resolved) for f in found.files})
    for item in findings:
        for miss in item.unfollowed:
            if judge.model_of(miss.file, miss.model_expr, miss.line, report=False) is not None:
                judge.problems.append(Problem(
                    "too-dynamic", miss.file, miss.line,
                    f"`{miss.var}` is passed as self to {miss.model_expr}.{miss.method} but comes "
                    f"from {miss.source}, which deskcheck cannot follow statically",
                    "build it in the test or in a helper function of the test files, or "
                    "guard it where it stands with deskcheck.drift_guard.assert_faithful"))
    unique: dict[tuple[str, int, str], Problem] = {}
    for problem in finder.problems + judge.problems:
        unique.setdefault((problem.file, problem.line, problem.message), problem)
    result.problems = sorted(unique.values(), key=lambda p: (p.file, p.line))
    result.elapsed_s = time.perf_counter() - started + finder.elapsed_s
    return result
