"""An interrupted sweep says so: Ctrl-C / SIGTERM exit 130 / 143, the run is stored
``interrupted`` with the verdicts decided so far (never an ``error`` or a "could not collect"),
and a sweep killed with SIGKILL is shown ``interrupted`` by ``history``, not ``running``."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pythonpath import extended
from tests.signals import sigint_default

from .sample_project import COUNT, write_sweep_project

pytestmark = pytest.mark.xdist_group("report-sweep")

SLOW_COLLECTION = """
from pathlib import Path
import time

Path(__file__).with_name("collecting").touch()
time.sleep(120)
"""


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": extended(root), "CUDA_VISIBLE_DEVICES": "",
            "DESKCHECK_SCRATCH_DIR": str(root.parent / "scratch")}


def _start(root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "deskcheck.cli", "sweep", "--workers", "1",
                             "--no-incremental"], cwd=root, env=_env(root),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=sigint_default)


def _wait_for(predicate, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout:g} s waiting for {what}"
        time.sleep(0.1)


def _recorded(root: Path) -> list[str]:
    try:
        with sqlite3.connect(root / ".deskcheck" / "results.sqlite") as db:
            return [r[0] for r in db.execute("SELECT mutant_id FROM mutants")]
    except sqlite3.OperationalError:
        return []  # the store is being created


def _statuses(root: Path) -> list[str]:
    with sqlite3.connect(root / ".deskcheck" / "results.sqlite") as db:
        return [r[0] for r in db.execute("SELECT status FROM runs ORDER BY id")]


def _history(root: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "deskcheck.cli", "history", "--json", "-"],
                          cwd=root, env=_env(root), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _stop(process: subprocess.Popen) -> str:
    try:
        out, _ = process.communicate(timeout=120)
    finally:
        try:  # whatever the sweep left in its session (it should leave nothing)
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)
    return out


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_sweep_stores_the_run_interrupted_with_its_verdicts(tmp_path: Path,
                                                                         signum: int) -> None:
    root = tmp_path / "project"
    root.mkdir()
    write_sweep_project(root, pause=0.5)
    sweep = _start(root)
    try:
        _wait_for(lambda: len(_recorded(root)) >= 2, "two verdicts recorded")
        sweep.send_signal(signum)
    finally:
        out = _stop(sweep)
    assert sweep.returncode == 128 + signum, (
        f"a sweep stopped by {signal.Signals(signum).name} should exit {128 + signum}, "
        f"not {sweep.returncode}:\n{out}")
    assert "could not collect" not in out, f"an interruption was reported as a collection " \
                                           f"failure:\n{out}"
    assert "interrupted" in out, out
    assert _statuses(root) == ["interrupted"], f"the run should be stored interrupted:\n{out}"
    kept = _recorded(root)
    assert 2 <= len(kept) < COUNT, f"the verdicts decided before the signal were lost: {kept}"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_collection_is_an_interruption_not_a_collection_failure(
        tmp_path: Path, signum: int) -> None:
    root = tmp_path / "project"
    root.mkdir()
    write_sweep_project(root, pause=0.0)
    (root / "tests" / "test_slow_to_import.py").write_text(SLOW_COLLECTION)  # inside the session
    sweep = _start(root)
    try:
        _wait_for(lambda: (root / "tests" / "collecting").exists(), "collection to start")
        sweep.send_signal(signum)
    finally:
        out = _stop(sweep)
    assert sweep.returncode == 128 + signum, (
        f"interrupted during collection, the sweep should exit {128 + signum}, "
        f"not {sweep.returncode}:\n{out}")
    assert "could not collect" not in out and "[sweep] tests paths" not in out, (
        f"an interruption was reported as a collection failure:\n{out}")
    assert _statuses(root) == ["interrupted"], f"the run should be stored interrupted:\n{out}"


def test_history_shows_a_sweep_killed_with_sigkill_as_interrupted(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    write_sweep_project(root, pause=0.5)
    sweep = _start(root)
    try:
        _wait_for(lambda: len(_recorded(root)) >= 1, "a verdict recorded")
        sweep.kill()
    finally:
        _stop(sweep)
    assert _statuses(root) == ["running"], "SIGKILL leaves no chance to store a final status"
    runs = _history(root)
    assert [r["status"] for r in runs] == ["interrupted"], (
        f"history shows a run whose owner process is gone as {runs[0]['status']!r}, "
        "not 'interrupted'")
