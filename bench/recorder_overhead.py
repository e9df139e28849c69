"""What the decision recorder costs a congruence arm (issue 28's goal: <= 1.5x).

The reference target's COUNT arm (a real ``Scheduler`` pass on each of 3 gloo ranks, one packed
MIN reduce) through a warm pool, interleaved so load drifts hit every mode alike (the order
turns each repetition: no mode always runs just after the recorded one); medians of the
per-check wall time. Modes: the default (nothing is recorded while an arm holds; a diverged arm
re-runs its decision once under the recorder), ``DESKCHECK_RECORD=off``, and
``DESKCHECK_RECORD=all`` (every run recorded: the price of one recorded run, which is what a
failing arm pays once more). A plain pool task is timed in the default mode and off: outside
arms nothing is recorded unless ``all``. Writes ``bench/results/recorder.md``.

    .venv/bin/python bench/recorder_overhead.py [--reps N] [--runs N]
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


def _ratios(times: dict[str, list[float]]) -> tuple[dict[str, float], float, float, float]:
    med = {k: statistics.median(v) for k, v in times.items()}
    off = med["arm, DESKCHECK_RECORD=off"]
    return (med, med["arm, default (records on failure)"] / off,
            med["arm, DESKCHECK_RECORD=all (every run recorded)"] / off,
            med["plain task, default"] / med["plain task, DESKCHECK_RECORD=off"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3, help="measurements, each of --reps")
    args = parser.parse_args()
    arm_modes = (("arm, default (records on failure)", ""), ("arm, DESKCHECK_RECORD=off", "off"),
                 ("arm, DESKCHECK_RECORD=all (every run recorded)", "all"))
    task_modes = (("plain task, default", ""), ("plain task, DESKCHECK_RECORD=off", "off"))
    labels = [label for label, _m in (*arm_modes, *task_modes)]
    times: dict[str, list[float]] = {label: [] for label in labels}
    runs: list[tuple[float, float]] = []  # (load average, recorded / off) of each run
    with RankPool(3, "gloo") as pool:
        check_arm(COUNT, diverged(3), pool)  # warm: imports, first pass
        for _run in range(args.runs):
            run: dict[str, list[float]] = {label: [] for label in labels}
            for rep in range(args.reps):  # the order turns each repetition: no mode always
                turn = rep % len(arm_modes)  # follows the recorded one (its garbage, its files)
                for label, mode in arm_modes[turn:] + arm_modes[:turn]:
                    os.environ["DESKCHECK_RECORD"] = mode
                    run[label].append(_timed(lambda: check_arm(COUNT, diverged(3), pool)))
                for label, mode in task_modes[rep % 2:] + task_modes[:rep % 2]:
                    os.environ["DESKCHECK_RECORD"] = mode
                    run[label].append(_timed(
                        lambda: pool.run(probe_all_reduce, per_rank=[1, 2, 3])))
            runs.append((os.getloadavg()[0], _ratios(run)[2]))
            for label in labels:
                times[label] += run[label]
    os.environ.pop("DESKCHECK_RECORD", None)
    med, arm_ratio, all_ratio, plain_ratio = _ratios(times)
    each = ", ".join(f"{ratio:.2f}x (load {load:.1f})" for load, ratio in runs)
    lines = [
        "# Decision recorder overhead (bench/recorder_overhead.py)", "",
        f"{datetime.date.today()}, {os.cpu_count()} cores shared with other jobs, "
        f"{args.runs} runs of {args.reps} interleaved repetitions, medians over all.", "",
        "| what | median s |", "|---|---|",
        *[f"| {k} | {v:.4f} |" for k, v in med.items()], "",
        f"- a holding congruence arm (COUNT, world 3, premise included), default / off: "
        f"**{arm_ratio:.2f}x** (goal: nothing measurable; nothing is recorded while it holds)",
        f"- the arm recorded (DESKCHECK_RECORD=all: both its runs recorded; a diverged arm's "
        f"one re-run costs the same per run) / off: **{all_ratio:.2f}x** (goal <= 1.5x); "
        f"run by run: {each}",
        "- how: instrumented copies of the recorded functions swapped in (79x with "
        "sys.settrace on Python 3.11); a hook appends one tuple of the raw scalars it read "
        "(the reader shows them), a flush packs the batch with marshal; before (e27c2c4), "
        "paired runs on the same box: 2.37x-2.68x",
        "- where it goes (one rank's CPU a pass, time.thread_time, medians): 0.7 ms unrecorded, "
        "1.7-2.0 ms recorded; about 900 hook calls a pass (300 reads, 180 scope opens, 165 "
        "branches, 110 calls and 110 returns, 10 loops, 8 stores), 1.1 us each on average where "
        "a micro-pass of raw-number hooks costs 0.25 us a hook; under cProfile (which inflates "
        "calls) the hooks and what they call go from 0.2 to 6.8 ms a pass, the instrumented "
        "project code's own time from 2.7 to 3.2 ms: fewer hook calls a decision is the lever "
        "(165 values a pass are no number and are shown at once: strings, token lists, dicts). "
        "Tried (issue 28): the return hook inline and "
        "a plain str shown without show()'s checks (kept: 2290 -> 2200 ns a micro-pass of 9 "
        "hooks); one flat read list with a mark "
        "instead of the scope-opening hook (dropped: 2460 ns, the slice and dict() cost more "
        "than the call saved); neither moves the arm ratio beyond the noise of a shared box",
        f"- plain pool task, default / off: **{plain_ratio:.2f}x** (one environment read; the "
        f"medians are a millisecond apart on a loaded machine)", ""]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
