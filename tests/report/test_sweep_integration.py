"""The store under the real sweep (`deskcheck sweep`, issue 4) in a throwaway git project:
incremental reuse, a kill -9 mid-sweep then resume, and two sweeps at once."""

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

from .sample_project import COUNT, write_sweep_project

pytestmark = pytest.mark.xdist_group("report-sweep")


def _sweep(root: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": extended(root), "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.Popen([sys.executable, "-m", "deskcheck.cli", "sweep", "--workers", "1",
                             *args], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def _finish(process: subprocess.Popen, timeout: float = 120) -> str:
    try:
        out, _ = process.communicate(timeout=timeout)
    finally:
        _reap(process)
    return out


def _reap(process: subprocess.Popen) -> None:
    try:  # whatever the sweep left in its session (it should leave nothing)
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=30)


def _rows(root: Path, query: str) -> list[tuple]:
    with sqlite3.connect(root / ".deskcheck" / "results.sqlite") as db:
        return db.execute(query).fetchall()


def _recorded_so_far(root: Path) -> list[tuple]:
    """Verdicts recorded so far by a running sweep. The store file exists from the moment the
    sweep connects, a moment before its schema transaction commits: not initialised yet means
    nothing recorded yet (polling it then raised ``no such table: mutants``, a flaky red)."""
    if not (root / ".deskcheck" / "results.sqlite").exists():
        return []
    try:
        return _rows(root, "SELECT mutant_id, seq FROM mutants")
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        return []


def test_polling_a_store_whose_schema_is_not_committed_yet_sees_nothing(tmp_path: Path):
    (tmp_path / ".deskcheck").mkdir()
    sqlite3.connect(tmp_path / ".deskcheck" / "results.sqlite").close()  # file, no tables yet
    assert _recorded_so_far(tmp_path) == [], (
        "a store whose schema is not committed yet must read as nothing recorded; it gave "
        f"{_recorded_so_far(tmp_path)}"
    )


def _ran(report: Path) -> list[str]:
    """Mutants the sweep really ran (not reused) according to its --json report."""
    return sorted(m["id"] for m in json.loads(report.read_text())["mutants"] if not m["reused"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_sweep_project(tmp_path, pause=0.0)
    return tmp_path


def test_unchanged_sweep_reuses_every_verdict_and_a_changed_target_reruns_its_mutants(
        project: Path):
    out = _finish(_sweep(project, "--json", "first.json"))
    assert _ran(project / "first.json") == [f"k.M{i}" for i in range(COUNT)], out
    out = _finish(_sweep(project, "--json", "second.json"))
    assert _ran(project / "second.json") == [], out
    module = project / "kpkg" / "mod.py"
    module.write_text(module.read_text().replace("return x + 3", "return 3 + x"))
    out = _finish(_sweep(project, "--json", "third.json"))
    assert _ran(project / "third.json") == ["k.M3"], out


def test_kill_9_mid_sweep_then_resume_loses_nothing_and_redoes_nothing(tmp_path: Path):
    write_sweep_project(tmp_path, pause=0.3)
    victim = _sweep(tmp_path, "--no-incremental")
    try:
        recorded: list[tuple] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(recorded) < 3:
            time.sleep(0.2)
            recorded = _recorded_so_far(tmp_path)
        assert len(recorded) >= 3, "the sweep recorded nothing in 90 s"
        os.kill(victim.pid, signal.SIGKILL)
    finally:
        _reap(victim)
    before = dict(_rows(tmp_path, "SELECT mutant_id, seq FROM mutants"))
    assert set(dict(recorded)) <= set(before) and len(before) < COUNT, (
        "every verdict seen before kill -9 must survive it, and the sweep must be killed mid-run ("
        f"{len(before)} of {COUNT} recorded); lost {sorted(set(dict(recorded)) - set(before))}"
    )
    assert _rows(tmp_path, "SELECT status FROM runs") == [("running",)], (
        "a sweep killed with SIGKILL must leave its one run running (for the resume); runs "
        f"{_rows(tmp_path, 'SELECT status FROM runs')}"
    )

    out = _finish(_sweep(tmp_path, "--no-incremental"))
    assert _rows(tmp_path, "SELECT id, status FROM runs") == [(1, "holds")], out
    after = dict(_rows(tmp_path, "SELECT mutant_id, seq FROM mutants"))
    assert sorted(after) == sorted(f"k.M{i}" for i in range(COUNT)), (
        f"the resumed sweep must record all {COUNT} mutants; it has {sorted(after)}"
    )
    assert {k: after[k] for k in before} == before, (
        "the resume redid finished mutants (a new seq): "
        f"{sorted(k for k in before if after.get(k) != before[k])}"
    )  # recorded once: nothing redone
    assert _rows(tmp_path, "PRAGMA integrity_check") == [("ok",)], (
        "the store must pass PRAGMA integrity_check after the resume; it says "
        f"{_rows(tmp_path, 'PRAGMA integrity_check')}"
    )


def test_two_sweeps_at_once_both_record_every_verdict(tmp_path: Path):
    write_sweep_project(tmp_path, pause=0.1)
    first, second = _sweep(tmp_path, "--no-incremental"), _sweep(tmp_path, "--no-incremental")
    outputs = [_finish(first), _finish(second)]
    assert first.returncode == second.returncode == 0, outputs
    runs = _rows(tmp_path, "SELECT id, status FROM runs ORDER BY id")
    assert runs == [(1, "holds"), (2, "holds")], outputs
    for run_id, _ in runs:
        assert _rows(tmp_path, f"SELECT COUNT(*) FROM mutants WHERE run_id = {run_id}") == [
            (COUNT,)], (
            f"each of two sweeps at once must record all {COUNT} verdicts in run {run_id}; it has "
            f"{_rows(tmp_path, f'SELECT COUNT(*) FROM mutants WHERE run_id = {run_id}')}"
        )
