"""`deskcheck standins` on SGLang's own unit tests, with SGLang 0.5.23's source as production.

Static discovery (nothing imported) over public test files of github.com/sgl-project/sglang that
build stand-ins the ad-hoc ways (``Scheduler.__new__`` + hand-set fields, ``PrefillAdder.__new__``
in a factory, ``SimpleNamespace`` passed as ``self``). Records per stand-in: names set, names
needed, driven-path drift, unexercised, unknown, and the time; then the speed goals:

- static discovery over the reference tests plus 10 SGLang-size test files <= 2 s (2 cores);
- ``--run`` costs <= 1.3x the driving tests' own run (reference target, real pytest runs).

The test files are never committed. They are expected under bench/_work/sglang-tests/ (ignored
by git) at the paths and commits of ``MANIFEST``; the script says how to get them when absent.
SGLang's source comes from ``pip download --no-deps sglang==0.5.23`` (see drift_sglang.py).
Writes bench/results/standins_sglang.md.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from drift_sglang import ensure_source

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work"
TESTS = WORK / "sglang-tests"
SPEED = WORK / "standins-speed"
REFERENCE = ROOT / "examples" / "tp_scheduler" / "tests"
RUNS = 5
LAST_CPU = [0.0]  # CPU seconds (user + system) of the last deskcheck child

# (repository path, commit) of each public test file, as read from github.com/sgl-project/sglang
MANIFEST = [
    ("test/registered/unit/managers/test_abort_request_matching.py",
     "240389db0e6f858c8cbaed19b0954b0db740aef2"),
    ("test/registered/unit/managers/test_abort_rid_targeting.py",
     "2494e57d545007e3733a3d2e66556a558700b060"),
    ("test/registered/unit/managers/test_cancelled_request_cleanup.py",
     "8e60f712c8cfb819359d3b083c9d86e3bf5b87ee"),
    ("test/registered/unit/managers/test_contains_last_prefill_chunk.py",
     "4ded98ab5f399bfbe2f2ea9d0406e99c27d65908"),
    ("test/registered/unit/managers/test_dllm_staging_token_budget.py",
     "312a582113d546f0840537b0cde945a7786abc16"),
]


def ensure_tests() -> list[Path]:
    missing = [path for path, _commit in MANIFEST if not (TESTS / path).is_file()]
    if missing:
        lines = "\n".join(f"  git -C sglang show {commit}:{path} > {TESTS / path}"
                          for path, commit in MANIFEST)
        sys.exit(f"missing SGLang test files under {TESTS}: {missing}\n"
                 "get them from a clone of https://github.com/sgl-project/sglang "
                 "(mkdir -p the folders first):\n" + lines)
    return [TESTS / path for path, _commit in MANIFEST]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _standins(*args: str, cwd: Path) -> tuple[dict, float]:
    started, cpu = time.perf_counter(), _cpu()
    out = subprocess.run([sys.executable, "-m", "deskcheck.cli", "standins", "--json", *args],
                         cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    wall = time.perf_counter() - started
    LAST_CPU[0] = _cpu() - cpu
    if out.returncode not in (0, 1):
        sys.exit(f"deskcheck standins failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout), wall


def _names(records: list[dict]) -> str:
    return ", ".join(sorted({r["name"] for r in records})) or "-"


def per_standin(source: Path) -> tuple[str, dict]:
    data, wall = _standins("--root", str(source), "test", cwd=TESTS)
    rows = ["| built at | model | driven (tests) | set | needed | driven-path drift | "
            "silent skips | unexercised | unknown | context | time |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in data["standins"]:
        driven = "<br>".join(f"`{d['method']}` ({len(d['tests'])})" for d in s["driven"]) or "-"
        rows.append(
            f"| {Path(s['built_at']).name} ({s['kind']}) | {s['model'].rpartition(':')[2]} | "
            f"{driven} | {len(s['sets'])} | {s['needed']} | {_names(s['drift'])} | "
            f"{_names(s['silent_skips'])} | {len(s['unexercised'])} | {len(s['unknown'])} | "
            f"{len(s['context'])} | {s['elapsed_s'] * 1000:.0f} ms |")
    problems = "\n".join(f"- `{Path(p['file']).name}:{p['line']}` [{p['kind']}] {p['message']}"
                         for p in data["problems"]) or "- none"
    text = "\n".join(rows) + f"\n\nProblems named (file:line, why):\n\n{problems}\n"
    return text, {"data": data, "wall": wall}


def speed(source: Path, files: list[Path]) -> dict:
    """The reference tests plus 10 SGLang-size files (the 5 real ones and a copy of each)."""
    shutil.rmtree(SPEED, ignore_errors=True)
    SPEED.mkdir(parents=True)
    for file in files:
        shutil.copy(file, SPEED / file.name)
        shutil.copy(file, SPEED / f"{file.stem}_copy.py")
    sizes = sum(f.stat().st_size for f in SPEED.glob("*.py"))
    args = ["--root", str(ROOT / "examples" / "tp_scheduler"), "--root", str(source),
            str(REFERENCE), str(SPEED)]
    walls, inner, cpus = [], [], []
    for _ in range(RUNS):
        data, wall = _standins(*args, cwd=ROOT)
        walls.append(wall)
        cpus.append(LAST_CPU[0])
        inner.append(data["elapsed_s"])
    return {"walls": walls, "inner": inner, "cpu": cpus, "files": data["counts"]["files"],
            "standins": data["counts"]["standins"], "bytes": sizes}


def run_cost() -> dict:
    """``standins --run`` against the driving tests' own pytest run (reference target)."""
    static, _ = _standins(str(REFERENCE), cwd=ROOT)
    tests = sorted({t for s in static["standins"] for d in s["driven"] for t in d["tests"]})
    plain, run_walls, pass_walls, plain_cpu, run_cpu = [], [], [], [], []
    for _ in range(3):
        started, cpu = time.perf_counter(), _cpu()
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0",
                        *tests], cwd=ROOT, capture_output=True, check=True)
        plain.append(time.perf_counter() - started)
        plain_cpu.append(_cpu() - cpu)
        data, wall = _standins("--run", str(REFERENCE), cwd=ROOT)
        run_walls.append(wall)
        run_cpu.append(LAST_CPU[0])
        pass_walls.append(data["run"]["wall_s"])
    return {"tests": len(tests), "plain": plain, "run": run_walls, "pass": pass_walls,
            "plain_cpu": plain_cpu, "run_cpu": run_cpu}


def _verdict(wall_ok: bool, cpu_ok: bool) -> str:
    if wall_ok and cpu_ok:
        return "met"
    return (f"{'met' if wall_ok else 'NOT met'} in wall time, "
            f"{'met' if cpu_ok else 'NOT met'} in CPU time")


def main() -> int:
    source = ensure_source()
    files = ensure_tests()
    table, found = per_standin(source)
    fast = speed(source, files)
    cost = run_cost()
    data = found["data"]
    median = statistics.median
    ratio_total = median(cost["run"]) / median(cost["plain"])
    ratio_pass = median(cost["pass"]) / median(cost["plain"])
    ratio_cpu = median(cost["run_cpu"]) / median(cost["plain_cpu"])
    manifest = "\n".join(f"| `{path}` | `{commit[:12]}` |" for path, commit in MANIFEST)
    report = f"""# drift_guard: `deskcheck standins` on SGLang's own unit tests

`deskcheck standins --root bench/_work/sglang-0.5.23 test` over {len(files)} public test files of
sgl-project/sglang (static: nothing imported; `python bench/standins_sglang.py`). The test files
are newer than 0.5.23, so some of their stand-ins have drifted behind the 0.5.23 source they are
judged against here: that is what the drift column shows.

| file | commit |
|---|---|
{manifest}

{data['counts']['standins']} stand-ins, {len({t for s in data['standins'] for d in s['driven']
for t in d['tests']})} driving tests, whole command {found['wall']:.2f} s (fresh interpreter).
Columns: names the stand-in sets; names the driven methods need that it does not set
(`needed`: drift + silent skips + unexercised + unknown); driven-path drift (needed on a line
the constants do not rule out); unexercised (only behind branches its constant state rules out,
e.g. `disaggregation_mode == DisaggregationMode.NULL`); unknown (behind conditions static
pruning cannot decide: `--run` decides them); context (module-level state read on the path).

{table}
## Speed

| goal | measured (median of {RUNS}) | min | result |
|---|---|---|---|
| static discovery, reference tests + 10 SGLang-size files, <= 2 s on 2 cores | {median(fast['walls']):.2f} s wall, whole command ({median(fast['inner']):.2f} s in discovery; {median(fast['cpu']):.2f} s CPU) | {min(fast['walls']):.2f} s | {_verdict(median(fast['walls']) <= 2, median(fast['cpu']) <= 2)} |
| `--run` <= 1.3x the driving tests' own run ({cost['tests']} tests, reference target) | {ratio_total:.2f}x wall, whole command; {ratio_pass:.2f}x the coverage pass alone ({median(cost['run']):.2f} s / {median(cost['pass']):.2f} s vs {median(cost['plain']):.2f} s plain pytest); {ratio_cpu:.2f}x CPU | | {_verdict(ratio_total <= 1.3, ratio_cpu <= 1.3)} |

- speed input: {fast['files']} test files ({fast['bytes'] // 1024} KiB of SGLang tests: the 5 real files and a copy of
  each), {fast['standins']} stand-ins judged; production parsed from SGLang 0.5.23 source
- `--run` medians of 3; plain = `pytest -n 0` on exactly the driving node ids. The `--run`
  pass is the owners pass of `sweep --auto` (`coverage run -m pytest`, rank processes and
  subprocess pythons measured): on Python 3.11 coverage.py's tracer also runs through pytest's
  own start-up and collection, which dominates a 5-test selection (measured alone: about 1.5x
  the CPU of the plain run, 0.45 s of it for measuring child processes); the CLI adds its start
  and one static pass
- machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores shared
  with other jobs (load average {os.getloadavg()[0]:.1f} at the end of the run)
"""
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "standins_sglang.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
