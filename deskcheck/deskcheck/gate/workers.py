"""``regress -n`` when not given: chosen from the measured suite time, and said.

pytest-xdist pays a start-up per worker (a Python, pytest's import, a collection of its own):
on a suite of a few seconds that costs more than it saves (measured on small public suites:
``-n 2`` took 2.5-5x the plain run). The last measured time of each side is kept in
``.deskcheck/gate_timings.json`` (deskcheck's own folder, ignored by git); without one, the
base side runs in-process and its time chooses the branch side's workers.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from deskcheck.own_folders import ignore_own_folder

TIMINGS_FILE = ".deskcheck/gate_timings.json"
SHORT_SUITE_S = 20.0  # below this, xdist's start-up costs more than it saves
SECONDS_PER_WORKER = 10.0
MAX_WORKERS = 8


@dataclass(frozen=True)
class WorkerChoice:
    """How many xdist workers a side gets, and the sentence that says why."""

    workers: int
    reason: str


def choose(suite_s: float, measured_on: str, cpus: int | None = None) -> WorkerChoice:
    """Workers for a suite measured at ``suite_s`` seconds (in-process)."""
    cpus = cpus or os.cpu_count() or 1
    if suite_s < SHORT_SUITE_S or cpus < 2:
        why = (f"the suite ran in {suite_s:.1f} s {measured_on}; under {SHORT_SUITE_S:.0f} s "
               "xdist's start-up costs more than it saves" if cpus >= 2 else
               "one CPU: xdist cannot save time")
        return WorkerChoice(0, f"-n 0 chosen: {why} (-n N to choose)")
    workers = max(2, min(cpus, MAX_WORKERS, int(suite_s // SECONDS_PER_WORKER)))
    return WorkerChoice(workers, f"-n {workers} chosen: the suite ran in {suite_s:.1f} s "
                                 f"{measured_on}, {cpus} CPUs (-n N to choose)")


def recorded_suite_s(project_root: Path) -> float | None:
    """The in-process suite time a previous ``regress`` measured here, if any."""
    try:
        data = json.loads((project_root / TIMINGS_FILE).read_text(encoding="utf-8"))
        return float(data["regress"]["suite_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record_suite_s(project_root: Path, suite_s: float, workers: int) -> None:
    """Keep the measured time for the next run (an in-process time; xdist runs scaled back)."""
    path = project_root / TIMINGS_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore_own_folder(path.parent)
        in_process = suite_s * max(1, workers) if workers else suite_s
        path.write_text(json.dumps({"regress": {"suite_s": round(in_process, 3)}}) + "\n",
                        encoding="utf-8")
    except OSError:
        pass  # a read-only checkout: the next run measures again
