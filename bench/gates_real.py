"""`redfirst` and `regress` on two real public repositories, by hand vs deskcheck.

Goal (issue 14): ``redfirst`` <= 1.3x the same two runs by hand on real repositories. Each
repository is cloned from its mirror (``fetch github:pytest-dev/pluggy`` and
``github:more-itertools/more-itertools`` put bare git dirs under /work/.mirror; override with
``GATES_REAL_MIRRORS=/path``) into the ignored ``bench/_work/gates_real/``, with the commit
of a real fix + test checked out as the branch and its parent as the base.

By hand is what a maintainer types: a scratch worktree of the base, the branch's changed test
files copied in, ``pytest`` on the changed tests (the same ids ``redfirst`` selects) there
(base code) and on the branch, worktree removed (redfirst); the whole suite on both, failed
ids compared (regress). Every redfirst timing is the median of ``REPEATS`` wall-clock runs of
a child process; regress (whole suites) runs ``REGRESS_REPEATS`` times. Writes
bench/results/gates_real.md.

Two more public repositories of other test shapes (``hukkin/tomli``: unittest ``subTest``;
``python-semver``: ``.pytest.ini`` with ``--cov``, rst doctests, decorator-built comparisons)
are judged for correctness against the truth by hand by ``bench/gates_shapes.py`` (manifest
``bench/gates_shapes_manifest.json``, results bench/results/gates_shapes.md): every changed
test id, subtests and doctests included, and ``sweep --auto``'s survivors re-run on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "_work" / "gates_real"
RESULTS = ROOT / "bench" / "results" / "gates_real.md"
MIRRORS = Path(os.environ.get("GATES_REAL_MIRRORS", "/work/.mirror"))
REPEATS = int(os.environ.get("GATES_REAL_REPEATS", "3"))
REGRESS_REPEATS = int(os.environ.get("GATES_REAL_REGRESS_REPEATS", "1"))
GOAL = 1.3
ENV = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")},
       "CUDA_VISIBLE_DEVICES": "", "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "PYTHONDONTWRITEBYTECODE": "1"}
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


@dataclass(frozen=True)
class Case:
    name: str
    mirror: str  # folder under MIRRORS
    commit: str  # the branch: a real fix with its test; the base is its parent
    source: str  # the import root of the production package ("src" or ".")
    tests: str  # the test folder (regress's bounded suite)
    what: str


CASES = (
    Case("pluggy", "pytest-dev+pluggy/repo", "0b7790e", "src", "testing",
         "Fix varnames to strip self for bound methods without dotted qualname"),
    Case("more-itertools", "more-itertools+more-itertools/repo", "d992be0", ".", "tests",
         "Fix stability in running_min and running_max"),
)


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env or ENV, capture_output=True, text=True,
                          check=check)


def _clone(case: Case) -> Path:
    repo = WORK / case.name
    if repo.exists():
        shutil.rmtree(repo)
    repo.parent.mkdir(parents=True, exist_ok=True)
    _run(["git", "clone", "-q", "--no-checkout", str(MIRRORS / case.mirror), str(repo)], ROOT)
    _run(["git", "checkout", "-q", "-b", "bench", case.commit], repo)
    return repo


def _changed_tests(repo: Path, tests: str) -> list[str]:
    out = _run(["git", "diff", "--name-only", "HEAD~1", "HEAD", "--", tests], repo).stdout
    return [p for p in out.split() if Path(p).name.startswith("test")]


def _env_for(code_root: Path, case: Case) -> dict[str, str]:
    return {**ENV, "PYTHONPATH": str((code_root / case.source).resolve())}


def _by_hand_redfirst(repo: Path, case: Case, files: list[str],
                      ids: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    base = WORK / f"{case.name}-base"
    _run(["git", "worktree", "add", "-q", "--detach", str(base), "HEAD~1"], repo)
    try:
        for path in files:
            shutil.copy2(repo / path, base / path)
        on_base = _run([*PYTEST, *ids], base, _env_for(base, case), check=False)
        on_branch = _run([*PYTEST, *ids], repo, _env_for(repo, case), check=False)
    finally:
        _run(["git", "worktree", "remove", "--force", str(base)], repo)
    took = time.perf_counter() - started
    return took, (f"base exit {on_base.returncode}, branch exit {on_branch.returncode}")


def _failed_ids(output: str) -> set[str]:
    return {line.split()[1] for line in output.splitlines() if line.startswith("FAILED ")}


def _by_hand_regress(repo: Path, case: Case) -> tuple[float, str]:
    started = time.perf_counter()
    base = WORK / f"{case.name}-base"
    _run(["git", "worktree", "add", "-q", "--detach", str(base), "HEAD~1"], repo)
    try:
        on_base = _run([*PYTEST, "-rf", case.tests], base, _env_for(base, case), check=False)
        on_branch = _run([*PYTEST, "-rf", case.tests], repo, _env_for(repo, case), check=False)
    finally:
        _run(["git", "worktree", "remove", "--force", str(base)], repo)
    new = _failed_ids(on_branch.stdout) - _failed_ids(on_base.stdout)
    return time.perf_counter() - started, f"{len(new)} regression(s)"


def _deskcheck(repo: Path, *args: str) -> tuple[float, dict]:
    out = WORK / "gate.json"
    started = time.perf_counter()
    done = _run([sys.executable, "-m", "deskcheck.cli", *args, "--json", str(out)], repo,
                check=False)
    took = time.perf_counter() - started
    if not out.is_file():
        raise SystemExit(f"deskcheck {' '.join(args)} wrote no JSON:\n{done.stdout}\n"
                         f"{done.stderr}")
    return took, json.loads(out.read_text(encoding="utf-8"))


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def measure(case: Case) -> dict:
    repo = _clone(case)
    files = _changed_tests(repo, case.tests)
    hand_red, hand_reg, desk_red, desk_reg = [], [], [], []
    red_report = reg_report = {}
    red_note = reg_note = ""
    for _ in range(REPEATS):
        took, red_report = _deskcheck(repo, "redfirst", "--base", "HEAD~1")
        desk_red.append(took)
        ids = sorted({t["function"] for t in red_report["tests"]})
        took, red_note = _by_hand_redfirst(repo, case, files, ids)
        hand_red.append(took)
    for _ in range(REGRESS_REPEATS):
        took, reg_note = _by_hand_regress(repo, case)
        hand_reg.append(took)
        took, reg_report = _deskcheck(repo, "regress", "--base", "HEAD~1", case.tests)
        desk_reg.append(took)
    return {"case": case, "files": files, "hand_red": _median(hand_red),
            "desk_red": _median(desk_red), "hand_reg": _median(hand_reg),
            "desk_reg": _median(desk_reg), "red_report": red_report, "reg_report": reg_report,
            "red_note": red_note, "reg_note": reg_note}


def _verdicts(report: dict) -> str:
    counts = {k: v for k, v in report.get("counts", {}).items() if v}
    return ", ".join(f"{v} {k}" for k, v in counts.items()) or "nothing to judge"


def render(rows: list[dict]) -> str:
    lines = ["# Gates on real repositories (issue 14)", "",
             f"`bench/gates_real.py`: `redfirst` and `regress` on two public pure-Python "
             f"repositories whose suites install from PyPI, by hand vs deskcheck in one run; "
             f"redfirst: median of {REPEATS} runs each (by hand: the same test ids); regress "
             f"(whole suites): {REGRESS_REPEATS} run(s). Goal: `redfirst` <= {GOAL}x by hand.",
             "",
             "| repository | commit (branch; base = parent) | redfirst by hand | redfirst | "
             "ratio | regress by hand | regress | ratio |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        case = row["case"]
        lines.append(
            f"| {case.name} | `{case.commit}` {case.what} | {row['hand_red']:.2f} s | "
            f"{row['desk_red']:.2f} s | {row['desk_red'] / row['hand_red']:.2f}x | "
            f"{row['hand_reg']:.2f} s | {row['desk_reg']:.2f} s | "
            f"{row['desk_reg'] / row['hand_reg']:.2f}x |")
    lines += ["", "Verdicts (deskcheck) and what the by-hand runs said:", ""]
    for row in rows:
        case = row["case"]
        lines.append(f"- **{case.name}**: redfirst on {', '.join(row['files'])}: "
                     f"{_verdicts(row['red_report'])} (exit {row['red_report'].get('exit_code')}; "
                     f"by hand: {row['red_note']}); regress on `{case.tests}`: "
                     f"{len(row['reg_report'].get('regressions', []))} regression(s) (exit "
                     f"{row['reg_report'].get('exit_code')}; by hand: {row['reg_note']}).")
    worst = max(row["desk_red"] / row["hand_red"] for row in rows)
    lines += ["", f"Worst redfirst ratio: {worst:.2f}x "
              f"({'meets' if worst <= GOAL else 'misses'} the {GOAL}x goal)."]
    return "\n".join(lines) + "\n"


def main() -> int:
    missing = [c.mirror for c in CASES if not (MIRRORS / c.mirror).exists()]
    if missing:
        print(f"missing mirrors under {MIRRORS}: {missing} (fetch github:pytest-dev/pluggy "
              "and github:more-itertools/more-itertools)", file=sys.stderr)
        return 2
    rows = [measure(case) for case in CASES]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(render(rows), encoding="utf-8")
    print(RESULTS.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
