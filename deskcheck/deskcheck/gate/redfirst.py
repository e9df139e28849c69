"""``redfirst``: the tests a branch adds or changes must fail on the base commit's code.

Tests come from the branch (the working tree) on both sides; on the base side production code
comes from a scratch worktree of ``merge-base(REF, HEAD)`` (redirected by the probe plugin,
never copied in, and audited via ``__file__``). Per test:

- ``RED_GREEN``: red on base, green on the branch: the evidence the gate wants.
- ``WEAK_RED``: red on base only because the test module could not be collected or imported
  there (collection error, conftest import error, ``ImportError`` in the test); reported as
  the weak evidence it is (a failure only with ``--strict``).
- ``PIN``: green on base and marked ``@pytest.mark.pin("reason")``: allowed.
- ``GREEN_ON_BASE``: green on base and not a pin: a test that cannot fail on base proves
  nothing. Fails the gate.
- ``RED_ON_BRANCH``: failed, errored or did not collect on the branch. Fails the gate.
- ``NO_EVIDENCE``: skipped/xfailed/not collected, so nothing can be judged (a failure only
  with ``--strict``).
- ``TEST_ONLY``: the production code is identical at base and branch (a test-only change:
  a refactor, a new case of tested behaviour), so there is no base to be red on; green on the
  branch holds, and the base side is not run.

A production change with no test added or changed is said ("production changed, no test
changed"); it fails the gate only with ``--require-tests``.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.gate.context import GateContext, prepare
from deskcheck.gate.production import changed_production_files
from deskcheck.gate.runner import SideResult, SideSpec, run_sides
from deskcheck.gate.selection import SelectedTest, changed_tests
from deskcheck.gate.worktree import gate_scratch, scratch_worktree
from deskcheck.progress import tests_word

RED_GREEN = "RED_GREEN"
WEAK_RED = "WEAK_RED"
PIN = "PIN"
GREEN_ON_BASE = "GREEN_ON_BASE"
RED_ON_BRANCH = "RED_ON_BRANCH"
NO_EVIDENCE = "NO_EVIDENCE"
TEST_ONLY = "TEST_ONLY"
REDFIRST_VERDICTS = (RED_GREEN, WEAK_RED, PIN, GREEN_ON_BASE, RED_ON_BRANCH, NO_EVIDENCE,
                     TEST_ONLY)
UNTESTED_CHANGE = "production changed, no test changed"
FAILING_VERDICTS = frozenset({GREEN_ON_BASE, RED_ON_BRANCH})
STRICT_FAILING_VERDICTS = FAILING_VERDICTS | {WEAK_RED, NO_EVIDENCE}

COLLECTION_ERROR = "collection_error"
NOT_COLLECTED = "not_collected"


@dataclass(frozen=True)
class TestVerdict:
    """One test's red-first verdict with both sides' outcomes."""

    __test__ = False

    id: str
    function: str
    change: str
    base: str
    branch: str
    verdict: str
    pin: str | None
    detail: str
    base_subtests_failed: tuple[str, ...] = ()
    branch_subtests_failed: tuple[str, ...] = ()


@dataclass
class RedFirstReport:
    """Everything ``redfirst`` found; ``to_json`` is the stable ``--json`` shape."""

    context: dict[str, Any]
    tests: list[TestVerdict]
    selected: list[SelectedTest]
    changed_test_files: list[str]
    strict: bool
    sides: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)
    untested_production_change: list[str] = field(default_factory=list)
    require_tests: bool = False

    def counts(self) -> dict[str, int]:
        counts = {v: 0 for v in REDFIRST_VERDICTS}
        for test in self.tests:
            counts[test.verdict] += 1
        return counts

    @property
    def failing(self) -> list[TestVerdict]:
        bad = STRICT_FAILING_VERDICTS if self.strict else FAILING_VERDICTS
        return [t for t in self.tests if t.verdict in bad]

    @property
    def exit_code(self) -> int:
        untested = self.require_tests and bool(self.untested_production_change)
        return 1 if self.failing or untested else 0

    def to_json(self) -> dict[str, Any]:
        return {"command": "redfirst", "schema": 1, "holds": self.exit_code == 0,
                "untested_production_change": self.untested_production_change,
                "require_tests": self.require_tests,
                "exit_code": self.exit_code, "strict": self.strict, "context": self.context,
                "counts": self.counts(), "tests": [asdict(t) for t in self.tests],
                "selected": [asdict(s) for s in self.selected],
                "changed_test_files": self.changed_test_files, "sides": self.sides,
                "notes": self.notes, "timings_s": self.timings_s}


def classify(base: str, branch: str, *, pin: str | None, base_import_error: bool) -> str:
    """The verdict for one test from its outcome on each side (pure; see module doc)."""
    if branch in ("failed", "error", COLLECTION_ERROR):
        return RED_ON_BRANCH
    if branch != "passed":
        return NO_EVIDENCE
    if base in (COLLECTION_ERROR, NOT_COLLECTED):
        return WEAK_RED
    if base in ("failed", "error", "xfailed"):
        return WEAK_RED if base_import_error else RED_GREEN
    if base in ("passed", "xpassed"):
        return PIN if pin else GREEN_ON_BASE
    return NO_EVIDENCE  # skipped on base


def _side_outcome(result: SideResult, nodeid: str) -> tuple[str, dict[str, Any] | None]:
    outcome = result.outcome(nodeid)
    if outcome is not None:
        return outcome, result.tests[nodeid]
    if result.collection_error_for(nodeid) is not None:
        return COLLECTION_ERROR, None
    return NOT_COLLECTED, None


def _detail(side: str, outcome: str, record: dict[str, Any] | None,
            result: SideResult, nodeid: str) -> str:
    if outcome == COLLECTION_ERROR:
        error = result.collection_error_for(nodeid) or {"message": ""}
        lines = [ln.strip() for ln in error["message"].splitlines() if ln.strip()]
        last = lines[-1] if lines else ""
        return f"{side}: collection error ({last[:160]})"
    subtests = subtest_words(result.subtests_failed(nodeid))
    if record and record.get("exc_type") and outcome in ("failed", "error", "xfailed"):
        said = failure_line(record.get("message", ""))
        return (f"{side}: {outcome} in {record['when']} with {record['exc_type']}"
                + (f": {said}" if said else "") + subtests)
    return f"{side}: {outcome}{subtests}"


def subtest_words(names: tuple[str, ...], shown: int = 5) -> str:
    """`` (failed subtests: (i=1), (i=2))``, the first ``shown`` of them; '' when none."""
    if not names:
        return ""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f" (failed subtests: {', '.join(names[:shown])}{more})"


_RANK_LINE = re.compile(r"\brank \d+\b")
FAILURE_LINE_MAX = 300


def failure_line(message: str) -> str:
    """What a reviewer wants from a failure, in one line: the lines that name ranks ("rank 1
    diverged: ...", a congruence failure) up to the rank-by-rank table, else the first line;
    then the first split the recorder named, with each rank's way (a long rank line is cut
    first, so the split stays)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    split = first_split_words(lines)
    if split:
        lines = lines[:lines.index(next(ln for ln in lines if ln.startswith(_SPLIT)))]
    head = lines[:lines.index("rank by rank (enforcer on):")] if (
        "rank by rank (enforcer on):" in lines) else lines
    ranked = [line for line in head if _RANK_LINE.search(line)]
    said = "; ".join(ranked) if ranked else (lines[0] if lines else "")
    if split:
        said = _cut(said, max(FAILURE_LINE_MAX - len(split) - 2, 60))
        said = f"{said}; {split}" if said else split
    return _cut(said, FAILURE_LINE_MAX)


_SPLIT = "first split: "
_SPLIT_RANK = re.compile(r"rank \d+: ")


def first_split_words(lines: list[str]) -> str:
    """``first split: where: condition (rank 0: way (inputs); rank 1: ...)`` from the note
    the recorder adds to a failure (stripped lines), or ''."""
    start = next((i for i, line in enumerate(lines) if line.startswith(_SPLIT)), None)
    if start is None:
        return ""
    ways = []
    for line in lines[start + 1:]:
        if not _SPLIT_RANK.match(line):
            break
        ways.append(line)
    return lines[start] + (f" ({'; '.join(ways)})" if ways else "")


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _items_of(function: str, branch: SideResult) -> list[str]:
    """The branch's node ids of a selected test function (each parametrized case), or the
    function's own id when the branch ran none of them."""
    items = sorted(n for n in branch.tests if n == function or n.partition("[")[0] == function)
    return items or [function]


def judge(selected: list[SelectedTest], base: SideResult, branch: SideResult,
          id_of: dict[str, str]) -> list[TestVerdict]:
    """Per-item verdicts for the selected functions (``id_of``: git id -> rootdir id)."""
    verdicts: list[TestVerdict] = []
    for chosen in selected:
        function = id_of[chosen.id]
        for nodeid in _items_of(function, branch):
            branch_outcome, branch_record = _side_outcome(branch, nodeid)
            base_outcome, base_record = _side_outcome(base, nodeid)
            pin = (branch_record or {}).get("pin")
            verdict = classify(base_outcome, branch_outcome, pin=pin,
                               base_import_error=bool((base_record or {}).get("import_error")))
            detail = "; ".join([_detail("base", base_outcome, base_record, base, nodeid),
                                _detail("branch", branch_outcome, branch_record, branch, nodeid)])
            if pin == "":
                detail += "; pin() needs a reason: pin(\"why this holds on base\")"
            verdicts.append(TestVerdict(id=nodeid, function=function, change=chosen.change,
                                        base=base_outcome, branch=branch_outcome,
                                        verdict=verdict, pin=pin or None, detail=detail,
                                        base_subtests_failed=base.subtests_failed(nodeid),
                                        branch_subtests_failed=branch.subtests_failed(nodeid)))
    return verdicts


def judge_test_only(selected: list[SelectedTest], branch: SideResult,
                    id_of: dict[str, str]) -> list[TestVerdict]:
    """Per-item verdicts when production is identical at base and branch: the branch alone
    says whether the changed tests hold (green: TEST_ONLY)."""
    verdicts: list[TestVerdict] = []
    for chosen in selected:
        function = id_of[chosen.id]
        for nodeid in _items_of(function, branch):
            outcome, record = _side_outcome(branch, nodeid)
            verdict = (TEST_ONLY if outcome == "passed" else
                       RED_ON_BRANCH if outcome in ("failed", "error", COLLECTION_ERROR)
                       else NO_EVIDENCE)
            verdicts.append(TestVerdict(
                id=nodeid, function=function, change=chosen.change, base="not run",
                branch=outcome, verdict=verdict, pin=(record or {}).get("pin") or None,
                detail="base: not run (production identical at base and branch); "
                + _detail("branch", outcome, record, branch, nodeid),
                branch_subtests_failed=branch.subtests_failed(nodeid)))
    return verdicts


def run_redfirst(ref: str, paths: list[str] | None = None, *, cwd: Path | None = None,
                 strict: bool = False, require_clean: bool = False, parallel: bool = False,
                 progress: Any = None, require_tests: bool = False) -> RedFirstReport:
    """Run the red-first gate of the working tree against ``merge-base(ref, HEAD)``."""
    say = progress or (lambda _msg: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    ctx = prepare(ref, cwd=cwd, require_clean=require_clean)
    limit = [_git_relative(ctx, p, cwd) for p in paths] if paths else None
    changes = changed_tests(ctx.repo, ctx.base, ctx.layout, limit_to=limit)
    notes: list[str] = []
    id_of: dict[str, str] = {}
    selected: list[SelectedTest] = []
    for chosen in changes.selected:
        rootdir_id = ctx.to_rootdir(chosen.id)
        if rootdir_id is None:
            notes.append(f"{chosen.id}: outside the pytest project {ctx.project_offset}; skipped")
            continue
        id_of[chosen.id] = rootdir_id
        selected.append(chosen)
    for path in changes.unparsable:
        notes.append(f"{path}: does not parse on the branch; judged as a whole file")
    report = RedFirstReport(context=_context(ctx), tests=[], selected=selected,
                            changed_test_files=changes.changed_test_files, strict=strict,
                            notes=notes, timings_s=timings, require_tests=require_tests)
    production = changed_production_files(ctx.repo, ctx.base, ctx.layout)
    timings["select"] = time.perf_counter() - started
    if not selected:
        if production:
            report.untested_production_change = production
            notes.append(f"{UNTESTED_CHANGE}: {', '.join(production)}"
                         + ("" if require_tests else " (--require-tests fails this)"))
        else:
            notes.append(f"no test functions added or changed since {ctx.base[:12]}")
        return report
    files = sorted({id_of[s.id].partition("::")[0] for s in selected})
    select = sorted(id_of.values())
    branch_files = ctx.repo.working_files()
    base_files = list(ctx.repo.tree_blobs(ctx.base))
    branch_own, branch_notes = ctx.layout.production_modules(branch_files)
    base_own, _ = ctx.layout.production_modules(base_files)
    notes.extend(branch_notes)
    if not production:  # a test-only change: the base side would run the same code
        notes.append("production identical at base and branch: a test-only change, "
                     "judged on the branch alone")
        with gate_scratch(ctx.repo, notes) as scratch:
            say(f"test-only change: {tests_word(len(select))} on the working tree")
            (branch,) = run_sides([SideSpec(
                side="branch", label="branch", code_root=ctx.repo.root,
                tests_root=ctx.project_root,
                modules=ctx.side_modules(ctx.repo.root, branch_own, base_own), paths=files,
                select=select)], scratch, parallel=False)
        timings["branch_run"] = branch.duration_s
        report.tests = judge_test_only(selected, branch, id_of)
        report.sides = {"branch": {"counts": branch.counts(), "exitstatus": branch.exitstatus,
                                   "duration_s": round(branch.duration_s, 3),
                                   "isolation": branch.isolation()}}
        timings["total"] = time.perf_counter() - started
        return report
    with gate_scratch(ctx.repo, notes) as scratch:
        t0 = time.perf_counter()
        say(f"base {ctx.base[:12]}: checking it out in a scratch worktree")
        with scratch_worktree(ctx.repo, ctx.base, scratch) as worktree:
            timings["worktree"] = time.perf_counter() - t0
            say(f"base {ctx.base[:12]}: {tests_word(len(select))} from the branch on the base code; "
                "branch: the same tests on the working tree"
                + (" (at the same time)" if parallel else ""))
            base, branch = run_sides([
                SideSpec(side="base", label="base", code_root=worktree,
                         tests_root=ctx.project_root,
                         modules=ctx.side_modules(worktree, base_own, branch_own), paths=files,
                         select=select),
                SideSpec(side="branch", label="branch", code_root=ctx.repo.root,
                         tests_root=ctx.project_root,
                         modules=ctx.side_modules(ctx.repo.root, branch_own, base_own),
                         paths=files, select=select),
            ], scratch, parallel=parallel)
        timings["base_run"] = base.duration_s
        timings["branch_run"] = branch.duration_s
    report.tests = judge(selected, base, branch, id_of)
    report.sides = {side.side: {"counts": side.counts(), "exitstatus": side.exitstatus,
                                "duration_s": round(side.duration_s, 3),
                                "isolation": side.isolation()} for side in (base, branch)}
    timings["total"] = time.perf_counter() - started
    return report


def _git_relative(ctx: GateContext, path: str, cwd: Path | None) -> str:
    absolute = ((cwd or Path.cwd()) / path).resolve()
    try:
        return absolute.relative_to(ctx.repo.root).as_posix()
    except ValueError:
        return path


def _context(ctx: GateContext) -> dict[str, Any]:
    return {**ctx.describe(), "pytest_rootdir": str(ctx.project_root)}
