"""Sweeps at the size of a real scheduler repository: deskcheck (and mutmut 3.8.1) on
synthetic universes of 500 / 5,000 / 20,000 tests; writes bench/results/scale.md.

Each universe (generated under bench/_work/scale/, ignored by git) is a package ``synth``
with one module of ``K`` small functions and ``N`` test functions of ~7 ms each (10 per file,
each calling one function). The catalog names ``K`` mutants (50 or 500), one owner each (a
node id). ``deskcheck sweep`` runs with 2 workers and the phases it reports: collection,
the "mutation" phase (targets, owner resolution, fingerprints), baseline, mutant runs.

mutmut 3.8.1 runs on the same project (its own mutants of ``synth/core.py``, its stats pass
over the same tests) where ``--mutmut`` is given; per mutant, whole command.

Usage: ``python bench/scale.py [--cases 500x50,5000x50,5000x500,20000x50] [--mutmut]``.
The ratios the issue asks for are computed within one run (the machine may be loaded).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / "_work" / "scale"
RESULTS = ROOT / "bench" / "results" / "scale.md"
PYTHON = sys.executable
DESKCHECK = [PYTHON, "-m", "deskcheck.cli"]
MUTMUT = str(Path(sys.executable).with_name("mutmut"))
PER_FILE = 10
TEST_S = 0.007
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1",
       "COLUMNS": "200"}


def generate(tests: int, mutants: int) -> Path:
    """The synthetic project (rewritten only when absent); returns its folder."""
    root = WORK / f"u{tests}x{mutants}"
    marker = root / ".complete"
    if marker.is_file():
        return root
    shutil.rmtree(root, ignore_errors=True)
    (root / "synth").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "synth"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-p no:cacheprovider"\n'
        '\n[tool.mutmut]\nsource_paths = ["synth"]\n'
        'pytest_add_cli_args_test_selection = ["tests"]\n', encoding="utf-8")
    (root / "synth" / "__init__.py").write_text("", encoding="utf-8")
    (root / "synth" / "core.py").write_text("".join(
        f"def f{k}(x):\n    return x + {k + 1}\n\n\n" for k in range(mutants)), encoding="utf-8")
    for start in range(0, tests, PER_FILE):
        body = ["import time\n\nfrom synth import core\n\n"]
        for n in range(start, min(start + PER_FILE, tests)):
            k = n % mutants
            body.append(f"\ndef test_{n}():\n    time.sleep({TEST_S})\n"
                        f"    assert core.f{k}({n}) == {n + k + 1}\n\n")
        (root / "tests" / f"test_{start // PER_FILE:05d}.py").write_text("".join(body),
                                                                          encoding="utf-8")
    catalog = ['[sweep]\ntests = ["tests"]\ntimeout_s = 20.0\n']
    for k in range(mutants):
        owner = f"tests/test_{k // PER_FILE:05d}.py::test_{k}"
        catalog.append(f'\n[[mutant]]\nid = "m{k}"\ntitle = "f{k} subtracts"\n'
                       f'target = "synth.core:f{k}"\noperator = "replace"\n'
                       f'old = "return x + {k + 1}"\nnew = "return x - {k + 1}"\n'
                       f'owners = ["{owner}"]\n')
    (root / "mutants.toml").write_text("".join(catalog), encoding="utf-8")
    marker.write_text("", encoding="utf-8")
    return root


def sweep(root: Path, workers: int = 2) -> dict:
    out = root / "sweep.json"
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run([*DESKCHECK, "sweep", "--catalog", "mutants.toml", "--no-store",
                           "--workers", str(workers), "--json", str(out)], cwd=root, env=ENV,
                          capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - started
    if not out.is_file():
        raise SystemExit(f"sweep in {root} wrote no report:\n{done.stdout[-2000:]}"
                         f"{done.stderr[-2000:]}")
    return summarize(json.loads(out.read_text()), wall, done.returncode)


def summarize(report: dict, wall: float, rc: int) -> dict:
    """The row of one sweep's ``--json`` report. ``overhead_ms``: the median per mutant of
    its child's time minus its tests' own time (fork, inject, report, reap)."""
    timing = report["timing"]
    mutants = report["mutants"]
    overhead = sorted(m["duration_s"] - m["detail"].get("tests_s", 0.0) for m in mutants
                      if m["verdict"] == "KILLED")
    return {"wall_s": wall, "rc": rc, "n": len(mutants),
            "overhead_ms": 1000 * overhead[len(overhead) // 2] if overhead else 0.0,
            "collection_s": timing.get("startup_and_collection_s", 0.0),
            "mutation_s": timing.get("mutation_s", 0.0),
            "baseline_s": timing.get("baseline_s", 0.0),
            "mutants_s": timing.get("mutants_s", 0.0),
            "killed": sum(m["verdict"] == "KILLED" for m in mutants)}


def mutmut(root: Path) -> dict:
    """``mutmut run`` on a copy of the project (mutmut writes mutants/ beside it)."""
    copy = root.parent / (root.name + "-mutmut")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("sweep.json", ".complete"))
    env = {**ENV, "PYTHONPATH": str(copy)}
    started = time.perf_counter()
    done = subprocess.run([MUTMUT, "run", "--max-children", "2"], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=7200)
    wall = time.perf_counter() - started
    listing = subprocess.run([MUTMUT, "results", "--all", "true"], cwd=copy, env=env,
                             capture_output=True, text=True)
    statuses = re.findall(r"^\s+(\S+): (.+)$", listing.stdout, flags=re.M)
    shutil.rmtree(copy, ignore_errors=True)
    return {"wall_s": wall, "rc": done.returncode, "n": len(statuses),
            "killed": sum(s == "killed" for _, s in statuses)}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={**ENV, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                        "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"})


def auto_case(tests: int, count: int) -> dict:
    """``sweep --auto`` on a 3-line change: with a warm coverage map, without one, and the
    covering tests' own pytest run."""
    source = generate(tests, count)
    root = WORK / f"auto{tests}x{count}"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("*.json", ".complete"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    started = time.perf_counter()
    build = subprocess.run([*DESKCHECK, "auto", "--build-coverage-map", "--tests", "tests"],
                           cwd=root, env=ENV, capture_output=True, text=True, timeout=3600)
    build_s = time.perf_counter() - started
    if build.returncode != 0:
        raise SystemExit(f"building the coverage map failed:\n{build.stdout}{build.stderr}")
    _git(root, "checkout", "-q", "-b", "feature")
    core = root / "synth" / "core.py"
    text = core.read_text(encoding="utf-8")
    for k in (1, 2, 3):  # three changed lines, same behaviour
        text = text.replace(f"    return x + {k + 1}\n", f"    return x + {k} + 1\n", 1)
    core.write_text(text, encoding="utf-8")
    _git(root, "commit", "-q", "-am", "three lines")
    runs = {}
    for name, extra in (("warm map", []), ("no map", ["--no-coverage-map"])):
        started = time.perf_counter()
        done = subprocess.run([*DESKCHECK, "sweep", "--auto", "--changed-since", "main",
                               "--workers", "2", "--tests", "tests", "--json", "auto.json",
                               *extra], cwd=root, env=ENV, capture_output=True, text=True,
                              timeout=3600)
        wall = time.perf_counter() - started
        report = json.loads((root / "auto.json").read_text())
        runs[name] = {"wall_s": wall, "rc": done.returncode, "report": report,
                      "tail": (done.stdout + done.stderr)[-1500:]}
    covering = sorted({t for m in runs["warm map"]["report"]["mutants"]
                       for t in m.get("detail", {}).get("auto", {}).get("covering_tests", [])})
    started = time.perf_counter()
    own = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:randomly", *covering],
                         cwd=root, env=ENV, capture_output=True, text=True, timeout=3600)
    own_s = time.perf_counter() - started
    return {"tests": tests, "build_s": build_s, "runs": runs, "covering": len(covering),
            "own_s": own_s, "own_rc": own.returncode,
            "mutants": len(runs["warm map"]["report"]["mutants"])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="500x50,5000x50,5000x500,20000x50")
    parser.add_argument("--mutmut", default="500x50,5000x50",
                        help="cases mutmut also runs ('' for none)")
    parser.add_argument("--output", type=Path, default=RESULTS,
                        help="where the Markdown goes (default bench/results/scale.md)")
    parser.add_argument("--auto", default="5000x50",
                        help="universe of the sweep --auto case ('' for none)")
    args = parser.parse_args()
    cases = [tuple(int(v) for v in c.split("x")) for c in args.cases.split(",") if c]
    with_mutmut = {tuple(int(v) for v in c.split("x")) for c in args.mutmut.split(",") if c}
    load_before = os.getloadavg()
    rows: dict[tuple[int, int], dict] = {}
    for tests, count in cases:
        root = generate(tests, count)
        rows[(tests, count)] = sweep(root)
        if (tests, count) in with_mutmut:
            rows[(tests, count)]["mutmut"] = mutmut(root)
        print(tests, count, rows[(tests, count)], flush=True)
    auto = None
    if args.auto:
        tests, count = (int(v) for v in args.auto.split("x"))
        auto = auto_case(tests, count)
        print({k: v for k, v in auto.items() if k != "runs"}, flush=True)
    lines = report(rows, load_before, os.getloadavg(), auto)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


def _per_mutant(row: dict) -> float:
    """Seconds per mutant of the "mutation" phase + mutant runs (what grows with size)."""
    return (row["mutation_s"] + row["mutants_s"]) / max(1, row["n"])


def report(rows: dict[tuple[int, int], dict], before, after, auto: dict | None = None
           ) -> list[str]:
    lines = [
        "## scale: sweeps of 500 to 20,000 tests",
        "",
        f"`python bench/scale.py` — one run on {platform.node()} ({os.cpu_count()} cores"
        f"; load average {before[0]:.1f} / {before[1]:.1f} / "
        f"{before[2]:.1f} before, {after[0]:.1f} / {after[1]:.1f} / {after[2]:.1f} after). "
        f"Synthetic project: N test functions of ~{TEST_S * 1000:.0f} ms ({PER_FILE} per "
        "file), K named mutants with one owner each, `deskcheck sweep --workers 2`.",
        "",
        "| tests | mutants | wall | collection | \"mutation\" phase | baseline | mutant runs "
        "| (mutation + runs) / mutant | overhead / mutant (median) | killed "
        "| mutmut 3.8.1: mutants, wall, per mutant |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (tests, count), row in rows.items():
        mm = row.get("mutmut")
        mm_text = (f"{mm['n']}, {mm['wall_s']:.1f} s, {mm['wall_s'] / max(1, mm['n']):.2f} s"
                   if mm else "not run")
        lines.append(
            f"| {tests:,} | {count} | {row['wall_s']:.1f} s | {row['collection_s']:.1f} s "
            f"| {row['mutation_s']:.2f} s | {row['baseline_s']:.2f} s "
            f"| {row['mutants_s']:.1f} s | {_per_mutant(row) * 1000:.0f} ms "
            f"| {row.get('overhead_ms', 0):.0f} ms | {row['killed']}/{row['n']} | {mm_text} |")
    lines.append("")
    small, mid = rows.get((500, 50)), rows.get((5000, 50))
    if small and mid:
        ratio = ((mid["mutation_s"] + mid["mutants_s"])
                 / max(1e-9, small["mutation_s"] + small["mutants_s"]))
        lines.append(f"- 5,000 x 50 vs 500 x 50, \"mutation\" phase + mutant runs: "
                     f"{ratio:.2f}x (goal <= 2x: {'met' if ratio <= 2 else 'not met'}).")
    big = rows.get((5000, 500))
    if big:
        lines.append(f"- 5,000 x 500 whole sweep: {big['wall_s']:.1f} s (goal <= 30 s on 2 "
                     f"cores: {'met' if big['wall_s'] <= 30 else 'not met'}).")
    huge = rows.get((20000, 50))
    if small and huge:
        ratio = huge["overhead_ms"] / max(1e-9, small["overhead_ms"])
        whole = _per_mutant(huge) / max(1e-9, _per_mutant(small))
        lines.append(f"- 20,000 x 50 vs 500 x 50, median per-mutant overhead (the child's "
                     f"time minus its tests' own): {ratio:.2f}x (goal <= 1.5x: "
                     f"{'met' if ratio <= 1.5 else 'not met'}); (\"mutation\" phase + mutant "
                     f"runs) per mutant: {whole:.2f}x.")
    lines.append("")
    if auto:
        warm, cold = auto["runs"]["warm map"], auto["runs"]["no map"]
        ratio = warm["wall_s"] / max(1e-9, auto["own_s"])
        counts = warm["report"].get("counts", {})
        lines += [
            f"### `sweep --auto` on a 3-line change ({auto['tests']:,} tests)",
            "",
            f"`deskcheck auto --build-coverage-map` (the nightly, once): "
            f"{auto['build_s']:.1f} s. Then a branch changes 3 lines of `synth/core.py`: "
            f"{auto['mutants']} mutants, {auto['covering']} covering tests.",
            "",
            "| run | wall |",
            "|---|---|",
            f"| `sweep --auto`, warm coverage map | {warm['wall_s']:.1f} s |",
            f"| `sweep --auto --no-coverage-map` (the whole suite under coverage) "
            f"| {cold['wall_s']:.1f} s |",
            f"| the covering tests' own run (`pytest` on their {auto['covering']} node ids) "
            f"| {auto['own_s']:.1f} s |",
            "",
            f"- Warm map vs the covering tests' own run: {ratio:.2f}x (goal <= 3x: "
            f"{'met' if ratio <= 3 else 'not met'}); verdicts {counts}.",
            *(f"- {line.strip().removeprefix('- ')}"
              for line in warm["report"].get("coverage_map", [])),
            "",
        ]
    return lines


if __name__ == "__main__":
    sys.exit(main())
