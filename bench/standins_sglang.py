"""`deskcheck standins` on SGLang's own unit tests, with SGLang 0.5.23's source as production.

Static discovery (nothing imported) over public test files of github.com/sgl-project/sglang that
build stand-ins the ad-hoc ways (``Scheduler.__new__`` + hand-set fields, ``PrefillAdder.__new__``
in a factory, ``SimpleNamespace`` passed as ``self``). Records per stand-in: names set, names
needed, driven-path drift, unexercised, unknown, and the time; then the speed goals:

- static discovery over the reference tests plus 10 SGLang-size test files <= 2 s (2 cores):
  the 10 real files of ``MANIFEST``, the whole command timed (interpreter start included);
- ``--run`` costs <= 1.3x the driving tests' own run (reference target, real pytest runs).

The machine is shared: every figure is a median, with its CPU time (user + system of the
command and everything it started) and the load average while it ran. The command runs as an
installed tool does, with its bytecode compiled once (``PYTHONPYCACHEPREFIX`` under
bench/_work); the static goal is also timed without bytecode (``PYTHONDONTWRITEBYTECODE``, as
the development Makefile runs), where every deskcheck module is compiled at each start.

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
REFERENCE = ROOT / "examples" / "tp_scheduler" / "tests"
RUNS = 5
LAST_CPU = [0.0]  # CPU seconds (user + system) of the last deskcheck child
PYCACHE = WORK / "pycache"
WARM = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
    "PYTHONPYCACHEPREFIX": str(PYCACHE), "CUDA_VISIBLE_DEVICES": ""}
COLD = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"} | {
    "PYTHONDONTWRITEBYTECODE": "1", "CUDA_VISIBLE_DEVICES": ""}

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
    ("test/registered/unit/managers/test_abort_request_prefix.py",
     "0270cffc14bfddbaa85d1c844d584feb47951abf"),
    ("test/registered/unit/managers/test_deterministic_chunk_align.py",
     "3b6f2d481dd48a275e9cec39c84115a303f217ea"),
    ("test/registered/unit/managers/test_disagg_idle_step_counters.py",
     "0047d999bb3a3ad311df5a4b6356bfb5586e0d66"),
    ("test/registered/unit/managers/test_embedding_request_length_abort.py",
     "9276241c7b90eb05f0130686035449fd31aaa5cf"),
    ("test/registered/unit/managers/test_flexkv_restore_admission.py",
     "2ef249ef91c5d80b6ef750170f115f7adda719cc"),
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


def _standins(*args: str, cwd: Path, env: dict[str, str] = WARM) -> tuple[dict, float]:
    started, cpu = time.perf_counter(), _cpu()
    out = subprocess.run([sys.executable, "-m", "deskcheck.cli", "standins", "--json", *args],
                         cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    LAST_CPU[0] = _cpu() - cpu
    if out.returncode not in (0, 1):
        sys.exit(f"deskcheck standins failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout), wall


def _names(records: list[dict]) -> str:
    return ", ".join(sorted({r["name"] for r in records})) or "-"


def per_standin(source: Path, files: list[Path]) -> tuple[str, dict]:
    """The ``MANIFEST`` files only (the folder may hold more: the oracle's 27)."""
    data, wall = _standins("--root", str(source), *(str(f.relative_to(TESTS)) for f in files),
                           cwd=TESTS)
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


def _load() -> float:
    return os.getloadavg()[0]


def speed(source: Path, files: list[Path], env: dict[str, str]) -> dict:
    """The reference tests plus the 10 real SGLang test files of ``MANIFEST``."""
    args = ["--root", str(ROOT / "examples" / "tp_scheduler"), "--root", str(source),
            str(REFERENCE), *map(str, files)]
    _standins(*args, cwd=ROOT, env=env)  # warm-up: bytecode written, file cache filled
    walls, inner, cpus, loads = [], [], [], []
    for _ in range(RUNS):
        loads.append(_load())
        data, wall = _standins(*args, cwd=ROOT, env=env)
        walls.append(wall)
        cpus.append(LAST_CPU[0])
        inner.append(data["elapsed_s"])
    return {"walls": walls, "inner": inner, "cpu": cpus, "load": loads,
            "files": data["counts"]["files"], "standins": data["counts"]["standins"],
            "bytes": sum(f.stat().st_size for f in files)}


def run_cost(env: dict[str, str]) -> dict:
    """``standins --run`` against the driving tests' own pytest run (reference target):
    interleaved, so that the shared machine's load falls on all three alike."""
    static, _ = _standins(str(REFERENCE), cwd=ROOT, env=env)
    tests = sorted({t for s in static["standins"] for d in s["driven"] for t in d["tests"]})
    out: dict[str, list[float]] = {k: [] for k in (
        "plain", "plain_cpu", "static", "static_cpu", "run", "run_cpu", "pass", "load")}
    for _ in range(RUNS):
        out["load"].append(_load())
        started, cpu = time.perf_counter(), _cpu()
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0",
                        *tests], cwd=ROOT, capture_output=True, check=True, env=env)
        out["plain"].append(time.perf_counter() - started)
        out["plain_cpu"].append(_cpu() - cpu)
        _data, wall = _standins(str(REFERENCE), cwd=ROOT, env=env)
        out["static"].append(wall)
        out["static_cpu"].append(LAST_CPU[0])
        data, wall = _standins("--run", str(REFERENCE), cwd=ROOT, env=env)
        if data["run"]["failed"] or data["run"]["not_run"]:
            sys.exit(f"the --run pass did not run every driving test cleanly: {data['run']}")
        out["run"].append(wall)
        out["run_cpu"].append(LAST_CPU[0])
        out["pass"].append(data["run"]["wall_s"])
    return {"tests": len(tests), **out}


def _verdict(wall_ok: bool, cpu_ok: bool) -> str:
    if wall_ok and cpu_ok:
        return "met"
    return (f"{'met' if wall_ok else 'NOT met'} in wall time, "
            f"{'met' if cpu_ok else 'NOT met'} in CPU time")


def _row(label: str, m: dict, goal: float) -> str:
    median = statistics.median
    wall, cpu = median(m["walls"]), median(m["cpu"])
    return (f"| {label} | {wall:.2f} s ({min(m['walls']):.2f}-{max(m['walls']):.2f}) | "
            f"{cpu:.2f} s | {median(m['inner']):.2f} s | {median(m['load']):.1f} | "
            f"{_verdict(wall <= goal, cpu <= goal)} |")


def _cost_rows(label: str, cost: dict) -> str:
    median = statistics.median
    plain, plain_cpu = median(cost["plain"]), median(cost["plain_cpu"])
    added = median(r - s for r, s in zip(cost["run"], cost["static"], strict=True))
    added_cpu = median(r - s for r, s in zip(cost["run_cpu"], cost["static_cpu"], strict=True))
    run, run_cpu, pass_ = median(cost["run"]), median(cost["run_cpu"]), median(cost["pass"])
    return "\n".join([
        f"| **{label}**: the tests' own run | {plain:.2f} s | {plain_cpu:.2f} s | 1.00x | "
        "1.00x | |",
        f"| the coverage pass alone (`run.wall_s`) | {pass_:.2f} s | | {pass_ / plain:.2f}x | "
        f"| {'met' if pass_ / plain <= 1.3 else 'NOT met'} |",
        f"| what `--run` adds (`standins --run` minus `standins`) | {added:.2f} s | "
        f"{added_cpu:.2f} s | {added / plain:.2f}x | {added_cpu / plain_cpu:.2f}x | "
        f"{_verdict(added / plain <= 1.3, added_cpu / plain_cpu <= 1.3)} |",
        f"| the whole `standins --run` command | {run:.2f} s | {run_cpu:.2f} s | "
        f"{run / plain:.2f}x | {run_cpu / plain_cpu:.2f}x | "
        f"{_verdict(run / plain <= 1.3, run_cpu / plain_cpu <= 1.3)} |"])


def main() -> int:
    source = ensure_source()
    files = ensure_tests()
    table, found = per_standin(source, files)
    shutil.rmtree(PYCACHE, ignore_errors=True)
    warm = speed(source, files, WARM)
    cold = speed(source, files, COLD)
    cost = run_cost(WARM)
    cost_cold = run_cost(COLD)
    shutil.rmtree(PYCACHE, ignore_errors=True)
    data = found["data"]
    median = statistics.median
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

Static discovery: the reference tests plus the {len(files)} SGLang test files above
({warm['files']} files, {warm['bytes'] // 1024} KiB of SGLang tests, {warm['standins']} stand-ins
judged against SGLang 0.5.23's source). Medians of {RUNS} runs after one warm-up; wall is the
whole command (interpreter start, imports, discovery, JSON); CPU is user + system of it;
"discovery" is the command's own `elapsed_s` (reading the test files, resolving, judging).

| static discovery, goal <= 2 s on 2 cores | wall (min-max) | CPU | discovery | load | result |
|---|---|---|---|---|---|
{_row("installed (bytecode compiled once)", warm, 2.0)}
{_row("no bytecode (every module compiled)", cold, 2.0)}

`--run` on the reference target ({cost['tests']} driving tests), against the same tests' own
run (`pytest -n 0` on exactly those node ids); medians of {RUNS} interleaved rounds, load
{median(cost['load'] + cost_cold['load']):.1f}:

| goal: `--run` <= 1.3x the tests' own run | wall | CPU | ratio wall | ratio CPU | result |
|---|---|---|---|---|---|
{_cost_rows("installed (bytecode compiled once)", cost)}
{_cost_rows("no bytecode (every module compiled)", cost_cold)}

- the pass is the owners pass of `sweep --auto`: `python -m pytest` with deskcheck's coverage
  plugin, which starts coverage.py when the first test starts (pytest's start-up, plugin
  imports and collection run untraced; before, `coverage run` traced them: on Python 3.11,
  without `sys.monitoring`, that was most of its 1.9x), and measures child processes only
  once a test runs; per-test lines are the same (tests/auto/test_owners.py)
- the whole command also starts the CLI and reads the test files statically ({median(cost['static']):.2f} s
  wall for `standins` alone, installed), before it knows which tests to run
- machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores shared
  with other jobs (load average {os.getloadavg()[0]:.1f} at the end of the run)
"""
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "standins_sglang.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
