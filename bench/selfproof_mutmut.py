"""mutmut 3.8.1 over deskcheck's own pure modules; writes bench/results/selfproof.md.

"Pure" = modules whose tests start no processes (no gloo ranks, no subprocess pythons, no git):
the drift guard, the harness and stubs (in-process thread ranks), the catalog and verdict
rules of the sweep engine, and the report's shards and fingerprints. mutmut runs in a scratch
copy (``bench/_work/selfproof_mutmut``) with its own ``[tool.mutmut]``; the repository's
pyproject.toml is never touched. Survivors are listed with the reason each is equivalent
(``EQUIVALENT`` below, reviewed by hand) or flagged as a gap to close.

    .venv/bin/python bench/selfproof_mutmut.py [--max-children N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / "_work" / "selfproof_mutmut"
RESULTS = ROOT / "bench" / "results" / "selfproof.md"
MUTMUT = str(Path(sys.executable).with_name("mutmut"))

PURE_MODULES = [
    "deskcheck/drift_guard/_collect.py",
    "deskcheck/drift_guard/_plant.py",
    "deskcheck/drift_guard/_surface.py",
    "deskcheck/drift_guard/verdicts.py",
    "deskcheck/mutants/verdicts.py",
    "deskcheck/report/shard.py",
    "deskcheck/report/fingerprint.py",
]
# their process-free tests (the CLI and pytester tests of these parts start pythons: left out)
PURE_TESTS = [
    "tests/drift_guard/test_guard.py",
    "tests/drift_guard/test_surface.py",
    "tests/drift_guard/test_stubs.py",
    "tests/drift_guard/test_harness.py",
    "tests/mutants/test_mutants_verdicts.py",
    "tests/report/test_fingerprint_and_shard.py",
    "tests/selfproof/test_drift_surface.py",
    "tests/selfproof/test_shards.py",
    "tests/selfproof/test_mutmut_gaps.py",
]
# files the tests need besides the test modules themselves
SUPPORT = [
    "tests/__init__.py",
    "tests/drift_guard/__init__.py", "tests/drift_guard/conftest.py", "tests/drift_guard/fixtures",
    "tests/mutants/__init__.py", "tests/mutants/conftest.py", "tests/mutants/fixtures",
    "tests/report/__init__.py", "tests/report/conftest.py",
    "tests/report/sample_records.py", "tests/report/sample_project.py",
    "tests/selfproof/__init__.py",
]

# Survivors reviewed by hand: mutmut's mutant name -> why no test can (or should) kill it.
EQUIVALENT: dict[str, str] = {}


def _copy(relative: str) -> None:
    source, target = ROOT / relative, WORK / relative
    if not source.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(source, target)


def prepare() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    shutil.copytree(ROOT / "deskcheck", WORK / "deskcheck",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for relative in SUPPORT + PURE_TESTS:
        _copy(relative)
    (WORK / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        'source_paths = ["deskcheck"]\n'
        f"only_mutate = {json.dumps(PURE_MODULES)}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(PURE_TESTS)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist"]\n'
        "[tool.pytest.ini_options]\n"
        'addopts = "-p no:cacheprovider"\n', encoding="utf-8")


def run_mutmut(max_children: int) -> tuple[float, subprocess.CompletedProcess, dict[str, str]]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1",
           "COLUMNS": "200", "PYTHONPATH": str(WORK)}
    started = time.perf_counter()
    done = subprocess.run([MUTMUT, "run", "--max-children", str(max_children)], cwd=WORK,
                          env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - started
    listing = subprocess.run([MUTMUT, "results", "--all", "true"], cwd=WORK, env=env,
                             capture_output=True, text=True, timeout=600)
    statuses = dict(re.findall(r"^\s+(\S+): (.+)$", listing.stdout, flags=re.M))
    return wall, done, statuses


def show(name: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(WORK)}
    done = subprocess.run([MUTMUT, "show", name], cwd=WORK, env=env, capture_output=True,
                          text=True, timeout=120)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(("+", "-"))
             and not ln.startswith(("+++", "---"))]
    return " / ".join(ln.strip() for ln in lines)[:240]


def report(wall: float, done: subprocess.CompletedProcess, statuses: dict[str, str],
           max_children: int) -> str:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    judged = sum(v for k, v in counts.items() if k not in ("skipped", "not checked"))
    survivors = sorted(n for n, s in statuses.items() if s == "survived")
    untested = sorted(n for n, s in statuses.items() if s == "no tests")
    justified = [n for n in survivors if n in EQUIVALENT]
    score = 100.0 * killed / judged if judged else 0.0
    lines = [
        "## selfproof: mutmut 3.8.1 over deskcheck's pure modules",
        "",
        f"`{Path(sys.executable).name} bench/selfproof_mutmut.py --max-children {max_children}` "
        f"(scratch copy `bench/_work/selfproof_mutmut`, the repository's pyproject untouched); "
        f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.",
        "",
        f"- modules: {', '.join(f'`{m}`' for m in PURE_MODULES)}",
        f"- tests: {', '.join(f'`{t}`' for t in PURE_TESTS)}",
        f"- mutants: {len(statuses)}; {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}",
        f"- **score: {score:.1f}%** (killed + timeout over every judged mutant, "
        f"survivors and 'no tests' included); wall {wall:.0f} s, exit {done.returncode}",
        f"- survivors: {len(survivors)}, of which {len(justified)} justified as equivalent "
        "below",
        "",
    ]
    if survivors:
        lines += ["| survivor | mutation | reason |", "|---|---|---|"]
        for name in survivors:
            reason = EQUIVALENT.get(name, "**not justified: a test gap**")
            lines.append(f"| `{name}` | `{show(name)}` | {reason} |")
        lines.append("")
    if untested:
        lines += [f"'no tests' ({len(untested)}): " + ", ".join(f"`{n}`" for n in untested), ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--report-only", action="store_true",
                        help="re-read the last run's results (no new mutmut run)")
    args = parser.parse_args()
    if not args.report_only:
        prepare()
    wall, done, statuses = run_mutmut(args.max_children) if not args.report_only else (
        0.0, subprocess.CompletedProcess([], 0), {})
    if args.report_only:
        env = {**os.environ, "PYTHONPATH": str(WORK)}
        listing = subprocess.run([MUTMUT, "results", "--all", "true"], cwd=WORK, env=env,
                                 capture_output=True, text=True, timeout=600)
        statuses = dict(re.findall(r"^\s+(\S+): (.+)$", listing.stdout, flags=re.M))
    if not statuses:
        print((done.stdout + done.stderr)[-3000:], file=sys.stderr)
        return 1
    text = report(wall, done, statuses, args.max_children)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
