"""`make demo` twice at the repository root: a full sweep (`--no-incremental`), then the same
sweep with nothing changed (every verdict reused before any pytest session).

Writes bench/results/report_incremental.md. Usage: `python bench/report_incremental.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "report_incremental.md"
HEADING = "## report: incremental sweep, reuse before collection"


def timed_sweep(*args: str, command: str = "sweep") -> tuple[float, str]:
    """Wall seconds of one `deskcheck sweep` at the root, and its last stderr line."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "deskcheck.cli", command, *args], cwd=ROOT,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": ""}, capture_output=True,
                          text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"deskcheck {command} {' '.join(args)} failed:\n{done.stdout[-3000:]}"
                         f"\n{done.stderr[-3000:]}")
    notes = [line for line in done.stderr.splitlines() if line.startswith("deskcheck:")]
    return wall, (notes[-1] if notes else "")


def section(repeat: int) -> list[str]:
    full, again, note = [], [], ""
    for _ in range(repeat):
        full.append(timed_sweep("--no-incremental")[0])
        wall, note = timed_sweep()
        again.append(wall)
    first, second = statistics.median(full), statistics.median(again)
    floor = statistics.median(timed_sweep(command="--version")[0] for _ in range(repeat))
    return [HEADING, "",
            f"`python bench/report_incremental.py --repeat {repeat}` (median of {repeat}), "
            "reference catalog, `deskcheck sweep` at the root, this machine (2 cores, shared).",
            "", "| sweep | wall s |", "| --- | ---: |",
            f"| full (`--no-incremental`) | {first:.2f} |",
            f"| again, nothing changed | {second:.2f} |",
            f"| ratio | {second / first:.0%} (goal: under 15%) |",
            f"| `deskcheck --version` (CLI start, paid by every command) | {floor:.2f} |", "",
            f"The second sweep says: `{note}`", ""]


def write(lines: list[str]) -> None:
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    if HEADING in text:  # replace this section, up to the next heading of its level
        head, _, tail = text.partition(HEADING)
        rest = tail.split("\n## ", 1)
        text = head + ("## " + rest[1] if len(rest) > 1 else "")
    RESULTS.write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    lines = section(parser.parse_args().repeat)
    write(lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
