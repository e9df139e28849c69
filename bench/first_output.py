"""How soon a sweep says something: seconds from starting ``deskcheck sweep`` (as ``make
demo`` does, on the reference target's catalog) to its first stderr line, to the
"collecting" line, to the first collected-tests count and to the end. Issue 16's goal: progress
within 2 s of starting the sweep. Writes ``bench/results/first_output.md``.

    .venv/bin/python bench/first_output.py [--reps N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [str(ROOT / ".venv" / "bin" / "deskcheck"), "sweep", "--no-store", "-n", "2",
           "--only", "ballot.M2.recovery_edge_disabled", "head.count_max_instead_of_min"]
MARKS = {"first line": lambda line: True, "collecting": lambda line: "collecting" in line,
         "first count": lambda line: "collected" in line}


def one_run() -> dict[str, float]:
    """Seconds to each mark, and to the end (stderr is a pipe: the CI-log form)."""
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    start = time.monotonic()
    proc = subprocess.Popen(COMMAND, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen: dict[str, float] = {}
    for line in proc.stderr:
        for name, hit in MARKS.items():
            if name not in seen and hit(line):
                seen[name] = time.monotonic() - start
    proc.wait()
    seen["end"] = time.monotonic() - start
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    reps = parser.parse_args().reps
    runs = [one_run() for _ in range(reps)]
    load = os.getloadavg()[0]
    rows = [f"| {name} | {statistics.median(r[name] for r in runs):.2f} s | "
            f"{max(r[name] for r in runs):.2f} s |" for name in (*MARKS, "end")]
    text = "\n".join([
        "# First output of a sweep", "",
        f"Measured {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {reps} runs, "
        f"load average {load:.1f} on {os.cpu_count()} cores, with `bench/first_output.py`: "
        f"`{' '.join(['deskcheck', *COMMAND[1:]])}` from the repository root, stderr a pipe "
        "(the CI-log form). Goal (issue 16): progress within 2 s of starting the sweep.", "",
        "| from start to | median | slowest |", "| --- | ---: | ---: |", *rows, ""])
    out = ROOT / "bench" / "results" / "first_output.md"
    out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
