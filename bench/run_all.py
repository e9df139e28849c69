"""Run every benchmark in bench/ (one process each), then assemble docs/BENCHMARKS.md.

Each ``bench/<part>_*.py`` writes its own ``bench/results/<part>.md``; this script only
orchestrates and concatenates, so one slow or failing benchmark never hides the others.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


NOT_BENCHMARKS = {"run_all.py", "build_benchmarks_md.py", "sglang_env.py", "sglang_tests.py"}


def benchmark_scripts() -> list[Path]:
    return sorted(p for p in BENCH.glob("*.py") if ("_" in p.stem or p.stem == "scale")
                  and p.name not in NOT_BENCHMARKS)


def sglang_env_missing(script: Path) -> str | None:
    """Why an SGLang benchmark cannot run here (no env built), else None."""
    if not script.stem.startswith("sglang_"):
        return None
    sys.path.insert(0, str(BENCH))
    from sglang_env import BUILD_HINT, STAMP, env_dir

    return None if (env_dir() / STAMP).is_file() else f"no SGLang env: {BUILD_HINT}"


def main(argv: list[str]) -> int:
    only = set(argv)
    failures = []
    for script in benchmark_scripts():
        if only and script.stem not in only:
            continue
        started = time.perf_counter()
        print(f"== {script.name}", flush=True)
        missing = sglang_env_missing(script)
        if missing:
            print(f"   {script.name}: skipped ({missing})")
            continue
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT)
        print(f"   {script.name}: exit {proc.returncode} in {time.perf_counter() - started:.1f}s")
        if proc.returncode:
            failures.append(script.name)
    subprocess.run([sys.executable, str(BENCH / "build_benchmarks_md.py")], cwd=ROOT, check=True)
    if failures:
        print("failed:", ", ".join(failures), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
