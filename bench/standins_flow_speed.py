"""Speed of static `deskcheck standins` with the flow layer (call-site constants, tuple/nested
drives, argument stand-ins) on SGLang's own unit tests, against SGLang 0.5.23's source.

Goals (issue 26): the 10 test files of bench/standins_sglang.py's MANIFEST <= 2 s, and a whole
``test/registered/unit/managers`` folder's worth of files <= 10 s, on 2 cores. Each figure is
the median of RUNS fresh interpreters (the whole command, bytecode compiled once), with the CPU
time of the command and the load average. Test files come from the SGLang proving ground
(``/work/_sglang/tests``, bench/sglang_env.py) or bench/_work/sglang-tests; nothing of SGLang is
committed. Writes bench/results/standins_flow_speed.md.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from standins_sglang import MANIFEST

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
RUNS = 5
CANDIDATES = [Path(p) for p in (os.environ.get("SGLANG_TESTS"),) if p] + [
    WORK / "sglang-tests", Path(os.environ.get("DESKCHECK_SGLANG_DIR", "/work/_sglang")) / "tests"]
SCALED = 200  # test files in the scaled folder: the public managers folder's order of size
SOURCE_CANDIDATES = [WORK / "sglang-0.5.23", Path("/work/_sglang_src/src")]
ENV = {**os.environ, "PYTHONPYCACHEPREFIX": str(WORK / "pycache")}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(tests: Path, source: Path, paths: list[Path]) -> dict:
    cmd = [sys.executable, "-m", "deskcheck.cli", "standins", "--json", "--root", str(source),
           *map(str, paths)]
    subprocess.run(cmd, cwd=tests, capture_output=True, env=ENV)  # warm-up: bytecode
    walls, cpus, loads = [], [], []
    data: dict = {}
    for _ in range(RUNS):
        loads.append(os.getloadavg()[0])
        started, cpu = time.perf_counter(), _cpu()
        out = subprocess.run(cmd, cwd=tests, capture_output=True, text=True, env=ENV)
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - cpu)
        data = json.loads(out.stdout)
    return {"wall": statistics.median(walls), "min": min(walls), "max": max(walls),
            "cpu": statistics.median(cpus), "load": statistics.median(loads),
            "files": data["counts"]["files"], "standins": data["counts"]["standins"],
            "inner": data["elapsed_s"]}


def main() -> None:
    tests = next((t for t in CANDIDATES if (t / MANIFEST[0][0]).is_file()), None)
    source = next((s for s in SOURCE_CANDIDATES
                   if (s / "sglang" / "srt" / "managers" / "scheduler.py").is_file()), None)
    if tests is None or source is None:
        sys.exit("needs SGLang's test files (bench/sglang_env.py's /work/_sglang/tests, or "
                 "bench/_work/sglang-tests: see bench/standins_sglang.py) and SGLang 0.5.23's "
                 "source (python bench/drift_sglang.py)")
    ten = measure(tests, source, [tests / p for p, _c in MANIFEST])
    folder = tests / "test" / "registered" / "unit" / "managers"
    whole = measure(tests, source, [folder])
    scaled_folder = scaled(folder, tests / "test" / "registered" / "unit" / "managers-scaled")
    try:
        big = measure(tests, source, [scaled_folder])
    finally:
        shutil.rmtree(scaled_folder, ignore_errors=True)
    rows = []
    for label, m, goal in (("the 10 MANIFEST files", ten, 2.0),
                           (f"`test/registered/unit/managers` ({m_files(whole)} files here)",
                            whole, 10.0),
                           (f"that folder scaled to {m_files(big)} files (each copied)",
                            big, 10.0)):
        ok = (f"wall {'met' if m['wall'] <= goal else 'NOT met'}, "
              f"CPU {'met' if m['cpu'] <= goal else 'NOT met'}")
        rows.append(f"| {label} | {m['files']} | {m['standins']} | {m['wall']:.2f} s "
                    f"({m['min']:.2f}-{m['max']:.2f}) | {m['cpu']:.2f} s | {m['inner']:.2f} s "
                    f"| {m['load']:.1f} | <= {goal:.0f} s: {ok} |")
    text = f"""# Static `standins` with the flow layer: speed on SGLang's tests

`python bench/standins_flow_speed.py`: the whole `deskcheck standins --json --root
<sglang-0.5.23>` command in a fresh interpreter (bytecode compiled once), median of {RUNS}
runs; CPU is user + system of the command (on a shared machine whose load average exceeds its
2 cores, the wall time mostly measures waiting for a core: the CPU time is what the command
itself costs); "discovery" is its own `elapsed_s`. The managers
folder holds the files fetched so far (bench/sglang_tests.toml; the public folder has a few
hundred), so it is also measured scaled to {SCALED} files by copying them under new names.

| files | test files | stand-ins | wall (min-max) | CPU | discovery | load | goal |
|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}
"""
    (HERE / "results" / "standins_flow_speed.md").write_text(text)
    print(text)


def scaled(folder: Path, out: Path) -> Path:
    """``folder``'s test files copied under new names until there are SCALED of them (a
    folder's worth: the public managers folder holds a few hundred; the copies are parsed
    and judged like new files, production's parse cache is shared as it would be)."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(folder, out, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(out.rglob("test_*.py"))
    for i in range(SCALED - len(files)):
        source = files[i % len(files)]
        shutil.copy(source, source.with_name(f"test_copy{i}_{source.name[5:]}"))
    return out


def m_files(m: dict) -> int:
    return m["files"]


if __name__ == "__main__":
    main()
