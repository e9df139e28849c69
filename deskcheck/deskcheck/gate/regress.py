"""``regress``: failed/error node ids on the branch minus those on the base.

The bounded suite runs twice: on a scratch worktree of ``merge-base(REF, HEAD)`` (its own tests
and code) and on the working tree. Failing ids (failed, error, collection error) are compared:
only-on-branch are candidate regressions, only-on-base are repairs, both are pre-existing.
Candidates are re-run once on the branch; those that pass are reported as flaky, apart from
the regressions, and do not fail the gate unless ``--strict``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.gate.context import GateContext, prepare
from deskcheck.gate.runner import SideResult, SideSpec, run_side, run_sides
from deskcheck.gate.workers import WorkerChoice, choose, record_suite_s, recorded_suite_s
from deskcheck.gate.worktree import gate_scratch, scratch_worktree

SMALL_RERUN = 8  # fewer candidates than this re-run without xdist (worker start-up dominates)


@dataclass(frozen=True)
class FailingId:
    """A failing node id (test, or a module/class that did not collect) and what it was."""

    id: str
    base: str
    branch: str
    new_test: bool = False
    base_subtests_failed: tuple[str, ...] = ()
    branch_subtests_failed: tuple[str, ...] = ()


@dataclass
class RegressReport:
    """What ``regress`` found; ``to_json`` is the stable ``--json`` shape."""

    context: dict[str, Any]
    sides: dict[str, dict[str, Any]]
    regressions: list[FailingId]
    flaky: list[FailingId]
    repairs: list[FailingId]
    pre_existing: list[FailingId]
    strict: bool
    notes: list[str] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions or (self.strict and self.flaky) else 0

    def to_json(self) -> dict[str, Any]:
        def ids(items: list[FailingId]) -> list[dict[str, Any]]:
            return [asdict(i) for i in items]

        return {"command": "regress", "schema": 1, "holds": self.exit_code == 0,
                "exit_code": self.exit_code, "strict": self.strict, "context": self.context,
                "sides": self.sides,
                "counts": {"regressions": len(self.regressions), "flaky": len(self.flaky),
                           "repairs": len(self.repairs),
                           "pre_existing": len(self.pre_existing)},
                "regressions": ids(self.regressions), "flaky": ids(self.flaky),
                "repairs": ids(self.repairs), "pre_existing": ids(self.pre_existing),
                "notes": self.notes, "timings_s": self.timings_s}


def _outcome(result: SideResult, nodeid: str) -> str:
    if nodeid in result.tests:
        return result.tests[nodeid]["outcome"]
    if any(e["nodeid"] == nodeid for e in result.collection_errors):
        return "collection_error"
    return "absent"


def compare(base: SideResult, branch: SideResult,
            rerun: SideResult | None) -> tuple[list[FailingId], ...]:
    """``(regressions, flaky, repairs, pre_existing)`` from the two sides and the re-run."""
    base_failing, branch_failing = base.failing_ids(), branch.failing_ids()

    def entry(nodeid: str) -> FailingId:
        b = _outcome(base, nodeid)
        return FailingId(nodeid, b, _outcome(branch, nodeid), new_test=b == "absent",
                         base_subtests_failed=base.subtests_failed(nodeid),
                         branch_subtests_failed=branch.subtests_failed(nodeid))

    regressions, flaky = [], []
    for nodeid in sorted(branch_failing - base_failing):
        again = _outcome(rerun, nodeid) if rerun is not None else "failed"
        (flaky if again in ("passed", "xfailed", "skipped") else regressions).append(entry(nodeid))
    repairs = [entry(n) for n in sorted(base_failing - branch_failing)]
    pre_existing = [entry(n) for n in sorted(base_failing & branch_failing)]
    return regressions, flaky, repairs, pre_existing


def run_regress(ref: str, paths: list[str] | None = None, *, workers: int | None = 0,
                cwd: Path | None = None, strict: bool = False, require_clean: bool = False,
                rerun: bool = True, parallel: bool = False,
                progress: Any = None) -> RegressReport:
    """Run the regression gate of the working tree against ``merge-base(ref, HEAD)``.
    ``workers=None``: chosen from the measured suite time (:mod:`deskcheck.gate.workers`)."""
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    timings: dict[str, float] = {}
    ctx = prepare(ref, cwd=cwd, require_clean=require_clean)
    choice: WorkerChoice | None = None
    if workers is None:
        recorded = recorded_suite_s(ctx.project_root)
        if recorded is not None:
            choice = choose(recorded, "in-process on the last regress here")
        elif parallel:
            choice = WorkerChoice(0, "-n 0 chosen: no suite time measured here yet, and the "
                                     "two sides run at once (-n N to choose)")
        if choice is not None:
            workers = choice.workers
            say(choice.reason)
    rel_paths = [_rootdir_relative(ctx, p, cwd) for p in (paths or [])]
    branch_own, notes = ctx.layout.production_modules(ctx.repo.working_files())
    base_own, _ = ctx.layout.production_modules(list(ctx.repo.tree_blobs(ctx.base)))
    branch_modules = ctx.side_modules(ctx.repo.root, branch_own, base_own)
    branch_spec = SideSpec(side="branch", label="branch", code_root=ctx.repo.root,
                           tests_root=ctx.project_root, modules=branch_modules, paths=rel_paths,
                           workers=workers or 0)
    with gate_scratch(ctx.repo, notes) as scratch:
        t0 = time.perf_counter()
        say(f"base {ctx.base[:12]}: checking it out in a scratch worktree")
        with scratch_worktree(ctx.repo, ctx.base, scratch) as worktree:
            timings["worktree"] = time.perf_counter() - t0
            base_root = ctx.project_root_in(worktree)
            base_paths = [p for p in rel_paths if (base_root / p).exists()]
            absent = sorted(set(rel_paths) - set(base_paths))
            if absent:
                notes.append(f"absent on base (branch side only): {', '.join(absent)}")
            say(f"base {ctx.base[:12]} and branch: running the bounded suite"
                + (" (at the same time)" if parallel else ""))
            base_spec = SideSpec(
                side="base", label="base", code_root=worktree, tests_root=base_root,
                modules=ctx.side_modules(worktree, base_own, branch_own), paths=base_paths,
                workers=workers or 0)
            if rel_paths and not base_paths:
                base = SideResult("base", None, {}, [], None)
                branch = run_side(branch_spec, scratch)
            elif workers is None:  # measure the base in-process, then choose for the branch
                base = run_side(base_spec, scratch)
                choice = choose(base.duration_s, "in-process on base")
                workers = choice.workers
                say(choice.reason)
                branch = run_side(dataclasses.replace(branch_spec, workers=workers), scratch)
            else:
                base, branch = run_sides([base_spec, branch_spec], scratch, parallel=parallel)
        timings["base_run"] = base.duration_s
        timings["branch_run"] = branch.duration_s
        candidates = sorted(branch.failing_ids() - base.failing_ids())
        again = None
        if candidates and rerun:
            say(f"re-running {len(candidates)} candidate regressions once on the branch")
            again = run_side(SideSpec(
                side="branch", label="branch-rerun", code_root=ctx.repo.root,
                tests_root=ctx.project_root, modules=branch_modules,
                paths=sorted({c.partition("::")[0] for c in candidates}), select=candidates,
                workers=0 if len(candidates) < SMALL_RERUN else workers or 0), scratch)
            timings["rerun"] = again.duration_s
    if choice is not None:
        notes.append(choice.reason)
        record_suite_s(ctx.project_root, branch.duration_s, workers or 0)
    regressions, flaky, repairs, pre_existing = compare(base, branch, again)
    timings["total"] = time.perf_counter() - started
    sides = {r.side: {"counts": r.counts(), "exitstatus": r.exitstatus,
                      "duration_s": round(r.duration_s, 3), "isolation": r.isolation(),
                      "failing": sorted(r.failing_ids())} for r in (base, branch)}
    context = {**ctx.describe(), "pytest_rootdir": str(ctx.project_root), "paths": rel_paths,
               "workers": workers, "rerun": rerun}
    return RegressReport(context=context, sides=sides, regressions=regressions, flaky=flaky,
                         repairs=repairs, pre_existing=pre_existing, strict=strict, notes=notes,
                         timings_s=timings)


def _rootdir_relative(ctx: GateContext, path: str, cwd: Path | None) -> str:
    absolute = ((cwd or Path.cwd()) / path).resolve()
    try:
        return absolute.relative_to(ctx.project_root.resolve()).as_posix()
    except ValueError:
        return path
