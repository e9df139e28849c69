"""What the decision recorder costs a congruence arm (issue 28's goal: <= 1.5x).

The reference target's COUNT arm (a real ``Scheduler`` pass on each of 3 gloo ranks, one packed
MIN reduce) through a warm pool, interleaved so load drifts hit every mode alike (the order
turns each repetition: no mode always runs just after the recorded one); medians of the
per-check wall time. Modes: the default (nothing is recorded while an arm holds; a diverged arm
re-runs its decision once under the recorder), ``DESKCHECK_RECORD=off``, and
``DESKCHECK_RECORD=all`` (every run recorded: the price of one recorded run, which is what a
failing arm pays once more). A plain pool task is timed in the default mode and off: outside
arms nothing is recorded unless ``all``. Writes ``bench/results/recorder.md``.

    .venv/bin/python bench/recorder_overhead.py [--reps N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

os.environ["CUDA_VISIBLE_DEVICES"] = ""
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "tp_scheduler"))

from tests.test_congruence_suites import COUNT, diverged  # noqa: E402

from deskcheck.suites import RankPool, check_arm  # noqa: E402
from deskcheck.suites.commands import probe_all_reduce  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "recorder.md"


def _timed(fn) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    arm_modes = (("arm, default (records on failure)", ""), ("arm, DESKCHECK_RECORD=off", "off"),
                 ("arm, DESKCHECK_RECORD=all (every run recorded)", "all"))
    task_modes = (("plain task, default", ""), ("plain task, DESKCHECK_RECORD=off", "off"))
    times: dict[str, list[float]] = {label: [] for label, _m in (*arm_modes, *task_modes)}
    with RankPool(3, "gloo") as pool:
        check_arm(COUNT, diverged(3), pool)  # warm: imports, first pass
        for rep in range(args.reps):  # the order turns each repetition: no mode always
            turn = rep % len(arm_modes)  # follows the recorded one (its garbage, its files)
            for label, mode in arm_modes[turn:] + arm_modes[:turn]:
                os.environ["DESKCHECK_RECORD"] = mode
                times[label].append(_timed(lambda: check_arm(COUNT, diverged(3), pool)))
            for label, mode in task_modes[rep % 2:] + task_modes[:rep % 2]:
                os.environ["DESKCHECK_RECORD"] = mode
                times[label].append(_timed(lambda: pool.run(probe_all_reduce, per_rank=[1, 2, 3])))
    os.environ.pop("DESKCHECK_RECORD", None)
    med = {k: statistics.median(v) for k, v in times.items()}
    off = med["arm, DESKCHECK_RECORD=off"]
    arm_ratio = med["arm, default (records on failure)"] / off
    all_ratio = med["arm, DESKCHECK_RECORD=all (every run recorded)"] / off
    plain_ratio = med["plain task, default"] / med["plain task, DESKCHECK_RECORD=off"]
    load = os.getloadavg()[0]
    lines = [
        "# Decision recorder overhead (bench/recorder_overhead.py)", "",
        f"{datetime.date.today()}, {os.cpu_count()} cores, load average {load:.1f} "
        f"(shared machine), {args.reps} interleaved repetitions, medians.", "",
        "| what | median s |", "|---|---|",
        *[f"| {k} | {v:.4f} |" for k, v in med.items()], "",
        f"- a holding congruence arm (COUNT, world 3, premise included), default / off: "
        f"**{arm_ratio:.2f}x** (goal: nothing measurable; nothing is recorded while it holds)",
        f"- the arm recorded (DESKCHECK_RECORD=all: both its runs recorded; a diverged arm's "
        f"one re-run costs the same per run) / off: **{all_ratio:.2f}x** (goal <= 1.5x; "
        f"instrumented copies of the recorded functions swapped in; 79x with sys.settrace on "
        f"Python 3.11)",
        f"- plain pool task, default / off: **{plain_ratio:.2f}x** (one environment read; the "
        f"medians are a millisecond apart on a loaded machine)", ""]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
