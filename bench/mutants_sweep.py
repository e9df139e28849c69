"""deskcheck sweep vs the naive loop vs mutmut 3.8.1, in one run; writes bench/results/mutants.md.

* **deskcheck**: `deskcheck sweep` of the reference catalog (examples/tp_scheduler/mutants.toml)
  exactly as `make demo` runs it (workers = cores), timed as a whole command.
* **naive loop** (the seed's manual workflow): per mutant, string-replace the mutated def into
  the file, run a fresh `python -m pytest OWNERS -x`, restore the file and check its sha1 —
  on a scratch copy of the example, never the repo.
* **mutmut 3.8.1** on the pure decision modules with their single-process unit tests (mutmut
  cannot run the gloo tests), against a deskcheck sweep of the catalog's mutants of the same
  modules: per-mutant wall on single-process tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "tp_scheduler"
CATALOG = EXAMPLE / "mutants.toml"
RESULTS = ROOT / "bench" / "results" / "mutants.md"
PYTHON = sys.executable
MUTMUT = str(Path(sys.executable).with_name("mutmut"))
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1",
       "COLUMNS": "200"}
PURE_MODULES = ["tp_scheduler/prefetch_ballot.py", "tp_scheduler/uniform_floor_scope.py",
                "tp_scheduler/tp_head_congruence.py"]
PURE_TESTS = ["tests/test_prefetch_ballot.py", "tests/test_uniform_floor_scope.py",
              "tests/test_tp_head_congruence.py"]

sys.path.insert(0, str(ROOT))
from deskcheck.mutants.catalog import load_catalog  # noqa: E402
from deskcheck.mutants.mutation import build_mutation  # noqa: E402


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 1800) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env or ENV, capture_output=True, text=True,
                          timeout=timeout)
    return time.perf_counter() - started, done


def scratch_copy(work: Path, name: str) -> Path:
    target = work / name
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".deskcheck", "mutants"))
    return target


def deskcheck_sweep(work: Path, only: list[str] | None = None) -> dict:
    out = work / f"sweep-{len(only or [])}.json"
    command = [PYTHON, "-m", "deskcheck.cli", "sweep", "--catalog", str(CATALOG), "--no-store",
               "--json", str(out)]
    if only:
        command += ["--only", *only]
    wall, done = run(command, ROOT)
    report = json.loads(out.read_text())
    mutants = report["mutants"]
    overhead = [m["duration_s"] - m["detail"].get("tests_s", 0.0) for m in mutants
                if m["verdict"] == "KILLED"]
    pure = [m for m in mutants if m["verdict"] == "KILLED"
            and not any("gloo" in k for k in m["killed_by"])]
    gloo = [m for m in mutants if m["verdict"] == "KILLED"
            and any("gloo" in k for k in m["killed_by"])]
    return {"wall_s": wall, "rc": done.returncode, "n": len(mutants),
            "sweep_s": report["duration_s"], "workers": report["workers"],
            "timing": report["timing"], "mutants_s": report["timing"]["mutants_s"],
            "verdicts": report["summary"],
            "median_mutant_s": statistics.median(m["duration_s"] for m in mutants),
            "median_pure_s": statistics.median(m["duration_s"] for m in pure) if pure else 0,
            "median_gloo_s": statistics.median(m["duration_s"] for m in gloo) if gloo else 0,
            "median_overhead_ms": 1000 * statistics.median(overhead) if overhead else 0,
            "n_gloo": len(gloo)}


def naive_loop(work: Path) -> dict:
    """The seed's loop: replace, fresh pytest on the owners, restore, verify sha1."""
    copy = scratch_copy(work, "naive")
    env = {**ENV, "PYTHONPATH": str(copy)}  # the copy's package shadows the editable install
    catalog = load_catalog(CATALOG)
    times, killed = [], 0
    for mutant in catalog.mutants:
        mutated = build_mutation(mutant)
        path = copy / Path(mutated.file).relative_to(EXAMPLE)
        original = path.read_text()
        sha = hashlib.sha1(original.encode()).hexdigest()
        indent = mutated.indent

        def reindent(text: str, prefix: str = indent) -> str:
            return "".join(prefix + line if line.strip() else line
                           for line in text.splitlines(keepends=True))

        old, new = reindent(mutated.original), reindent(mutated.mutated)
        assert original.count(old) == 1, f"{mutant.id}: def not found once in {path}"
        started = time.perf_counter()
        path.write_text(original.replace(old, new))
        try:
            _, done = run([PYTHON, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           *mutant.owners], copy, env=env)
        finally:
            path.write_text(original)
        assert hashlib.sha1(path.read_text().encode()).hexdigest() == sha
        times.append(time.perf_counter() - started)
        killed += done.returncode != 0
    return {"n": len(times), "total_s": sum(times), "median_s": statistics.median(times),
            "killed": killed}


def mutmut_pure(work: Path) -> dict:
    copy = scratch_copy(work, "mutmut")
    config = ("\n[tool.mutmut]\n"
              'source_paths = ["tp_scheduler"]\n'
              f"only_mutate = {json.dumps(PURE_MODULES)}\n"
              f"pytest_add_cli_args_test_selection = {json.dumps(PURE_TESTS)}\n")
    with (copy / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(config)
    env = {**ENV, "PYTHONPATH": str(copy)}
    wall, done = run([MUTMUT, "run"], copy, env=env, timeout=1800)
    _, listing = run([MUTMUT, "results", "--all", "true"], copy, env=env)
    statuses = dict(re.findall(r"^\s+(\S+): (.+)$", listing.stdout, flags=re.M))
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    return {"wall_s": wall, "rc": done.returncode, "n": len(statuses), "counts": counts,
            "tail": (done.stdout + done.stderr).replace("\r", "\n")[-800:]}


def pure_ids() -> list[str]:
    modules = {p.removesuffix(".py").replace("/", ".") for p in PURE_MODULES}
    return [m.id for m in load_catalog(CATALOG).mutants if m.module in modules]


def main() -> int:
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="deskcheck-bench-mutants-"))
    try:
        sweep = deskcheck_sweep(work)
        pure = deskcheck_sweep(work, pure_ids())
        naive = naive_loop(work)
        mutmut = mutmut_pure(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    per_sweep = sweep["wall_s"] / sweep["n"]
    steady = sweep["mutants_s"] / sweep["n"]
    per_naive = naive["total_s"] / naive["n"]
    per_pure = pure["wall_s"] / pure["n"]
    steady_pure = pure["mutants_s"] / pure["n"]
    per_mutmut = mutmut["wall_s"] / max(1, mutmut["n"])
    timing = ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in sweep["timing"].items())
    lines = [
        "## mutants: sweep vs naive loop vs mutmut",
        "",
        f"`python bench/mutants_sweep.py` — one run on {platform.node()} "
        f"({os.cpu_count()} cores shared with other jobs: load average {load_before:.1f} "
        f"before, {os.getloadavg()[0]:.1f} after), reference catalog of {sweep['n']} mutants "
        f"({sweep['n_gloo']} of them killed inside world-2/3 gloo rank processes).",
        "",
        "| run | mutants | wall | per mutant | speed-up over the naive loop |",
        "|---|---|---|---|---|",
        f"| naive loop (string replace, fresh `pytest OWNERS`, restore + sha1) | {naive['n']} "
        f"| {naive['total_s']:.1f} s | {per_naive:.2f} s | 1x |",
        f"| `deskcheck sweep`, whole command ({sweep['workers']} workers) | {sweep['n']} "
        f"| {sweep['wall_s']:.1f} s | {per_sweep:.3f} s | **{per_naive / per_sweep:.0f}x "
        f"faster** |",
        f"| `deskcheck sweep`, mutant phase only (after collection + baseline) | {sweep['n']} "
        f"| {sweep['mutants_s']:.1f} s | {steady:.3f} s | **{per_naive / steady:.0f}x "
        f"faster** |",
        "",
        f"Sweep phases: {timing}. Median per mutant {sweep['median_mutant_s'] * 1000:.0f} ms "
        f"(pure-function owners {sweep['median_pure_s'] * 1000:.0f} ms, gloo owners "
        f"{sweep['median_gloo_s'] * 1000:.0f} ms); median overhead above the owners' own "
        f"pytest-timed run (fork, inject, failure report, reap): "
        f"{sweep['median_overhead_ms']:.0f} ms (goal <= 30 ms).",
        "",
        "Single-process tests only (mutmut cannot run the gloo tests): the catalog's "
        f"{pure['n']} mutants of {', '.join(PURE_MODULES)} vs `mutmut run` (all its operators "
        "on the same three modules, their unit tests):",
        "",
        "| run | mutants | wall | per mutant |",
        "|---|---|---|---|",
        f"| `deskcheck sweep --only` (whole command) | {pure['n']} | {pure['wall_s']:.1f} s "
        f"| {per_pure:.3f} s |",
        f"| `deskcheck sweep --only` (mutant phase) | {pure['n']} | {pure['mutants_s']:.1f} s "
        f"| {steady_pure:.3f} s |",
        f"| mutmut 3.8.1 (whole command) | {mutmut['n']} | {mutmut['wall_s']:.1f} s "
        f"| {per_mutmut:.3f} s |",
        "",
        f"- Verdicts: deskcheck {sweep['verdicts']}; naive loop {naive['killed']}/{naive['n']} "
        f"owners red; mutmut {mutmut['counts']}.",
        f"- Per mutant in the mutant phase deskcheck takes {steady_pure / per_mutmut:.2f}x "
        f"mutmut's per-mutant wall on the same tests; as whole commands the fixed cost "
        f"(importing torch and collecting once, the baseline) is spread over {pure['n']} named "
        f"mutants here against {mutmut['n']} generated ones for mutmut.",
        f"- Goal >= 60x over the naive loop: mutant phase {per_naive / steady:.0f}x "
        f"({'met' if per_naive / steady >= 60 else 'not met'}), whole command "
        f"{per_naive / per_sweep:.0f}x ({'met' if per_naive / per_sweep >= 60 else 'not met'}: "
        f"the fixed {sweep['wall_s'] - sweep['mutants_s']:.1f} s is paid once per sweep).",
        f"- Goal <= 30 ms overhead per mutant: median {sweep['median_overhead_ms']:.0f} ms "
        f"({'met' if sweep['median_overhead_ms'] <= 30 else 'not met'}; load average "
        f"{os.getloadavg()[0]:.1f}).",
        "",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
