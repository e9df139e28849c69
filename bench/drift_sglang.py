"""Static surface of SGLang 0.5.23 ``Scheduler.get_next_batch_to_run`` (six mixins, several
modules): cold and warm time, methods and names reached. Writes bench/results/drift.md.

Downloads the wheel into bench/_work/ (gitignored) when it is missing:
``pip download --no-deps sglang==0.5.23``. Nothing of SGLang is imported or installed.
Each run is a fresh interpreter: cold = first call (no parse cache), warm = second call.
A naive baseline (``ast.parse`` + ``ast.walk`` of the same files) runs in its own interpreter.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
SOURCE = WORK / "sglang-0.5.23"
TARGET = "sglang.srt.managers.scheduler:Scheduler.get_next_batch_to_run"
RUNS = 5

_MEASURE = """
import json, sys, time
t0 = time.perf_counter()
from deskcheck.drift_guard import surface
imported = time.perf_counter() - t0
cold = surface(sys.argv[1], roots=[sys.argv[2]])
warm = surface(sys.argv[1], roots=[sys.argv[2]])
data = cold.to_json()
print(json.dumps({"cold": cold.elapsed_s, "warm": warm.elapsed_s, "import": imported,
                  "counts": data["counts"], "mro": data["mro"], "notes": data["notes"],
                  "files": sorted({k.file for k in cold.model.sources})}))
"""

_NAIVE = """
import ast, json, sys, time
t = time.perf_counter()
nodes = sum(1 for f in sys.argv[1:] for _ in ast.walk(ast.parse(open(f, "rb").read())))
print(json.dumps({"naive": time.perf_counter() - t, "nodes": nodes}))
"""


def ensure_source() -> Path:
    if (SOURCE / "sglang" / "srt" / "managers" / "scheduler.py").is_file():
        return SOURCE
    WORK.mkdir(parents=True, exist_ok=True)
    wheels = sorted(WORK.glob("sglang-0.5.23-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "sglang==0.5.23",
                        "-d", str(WORK)], check=True)
        wheels = sorted(WORK.glob("sglang-0.5.23-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(SOURCE, [n for n in wheel.namelist() if n.startswith("sglang/")])
    return SOURCE


def _run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                         text=True, env={"CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


def main() -> int:
    root = ensure_source()
    runs = [_run(_MEASURE, TARGET, str(root)) for _ in range(RUNS)]
    naive = [_run(_NAIVE, *runs[0]["files"]) for _ in range(RUNS)]
    first = runs[0]
    cold = [r["cold"] for r in runs]
    warm = [r["warm"] for r in runs]
    base = [n["naive"] for n in naive]
    lines_of_code = sum(Path(f).read_text(encoding="utf-8").count("\n") for f in first["files"])
    mixins = [k for k in first["mro"][1:] if not k.startswith("builtins.")]
    report = f"""# drift_guard: static surface of SGLang 0.5.23

`deskcheck surface {TARGET} --root bench/_work/sglang-0.5.23 --static`
(`python bench/drift_sglang.py`; {RUNS} fresh interpreters; nothing of SGLang imported).

| measure | median | min | goal |
|---|---|---|---|
| cold (first call, no parse cache) | {statistics.median(cold):.3f} s | {min(cold):.3f} s | <= 0.5 s |
| warm (second call, same process) | {statistics.median(warm):.4f} s | {min(warm):.4f} s | <= 0.1 s |
| naive baseline: `ast.parse` + `ast.walk` of the same files | {statistics.median(base):.3f} s | {min(base):.3f} s | - |
| `import deskcheck.drift_guard` | {statistics.median(r["import"] for r in runs):.3f} s | | - |

- MRO ({len(first["mro"])} entries, {len(mixins)} mixins resolved from source): {", ".join(m.split(":")[-1] for m in mixins)}
- files parsed for the MRO: {len(first["files"])} ({lines_of_code} lines)
- reached: {first["counts"]["methods"]} methods, {first["counts"]["names"]} names
  ({first["counts"]["reads"]} read, {first["counts"]["writes"]} written)
- machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores shared
  with other jobs (load average {os.getloadavg()[0]:.1f} at the end of the run); the naive
  baseline ran on the same machine in the same minute, so compare the two columns
- cold parses *hollow* (method bodies only when the trace enters them); the naive baseline
  parses every line, which is why cold can come in under it
"""
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "drift.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
