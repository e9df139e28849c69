"""Issue 16 item 13: `deskcheck results` (what does not hold, a line each, exit 1 if any) and
`mutants show ID` with the last recorded verdict and its reason, read from the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store
from tests.ux.records import DRAIN, records, write_owner_tests

MODULE = "def local_admit_limit(free, reserved):\n    return max(0, free - reserved)\n"
CATALOG = f'''[[mutant]]
id = "limits.M2.headroom_max_not_min"
title = "reserved ignored"
target = "pkg.limits:local_admit_limit"
operator = "replace"
old = "free - reserved"
new = "free"
owners = ["{DRAIN}"]
'''


def _deskcheck(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deskcheck", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def _store(path: Path, mutants: list[MutantRecord]) -> None:
    with Store(path) as store:
        run_id = store.begin_run(RunRecord(kind="sweep", commit="3f2a9c1d0e4b"))
        for mutant in mutants:
            store.record_mutant(run_id, mutant)
        store.finish_run(run_id, "falls_short")


def test_results_lists_what_does_not_hold_one_line_each_and_exits_1(tmp_path: Path):
    db = tmp_path / "results.sqlite"
    _store(db, records())
    done = _deskcheck(tmp_path, "results", "--db", str(db))
    lines = done.stdout.splitlines()
    assert done.returncode == 1, f"results exited {done.returncode}, not 1: {done.stderr}"
    assert [line.split()[:2] for line in lines] == [
        ["SURVIVED", "limits.M2.headroom_max_not_min"],
        ["OWNER_MISSED", "limits.M3.total_reset_across_recovery"],
        ["WRONG_FAILURE", "limits.M4.digest_covers_one_rid"]], (
        f"results did not list exactly the three that do not hold, survivors first:\n"
        f"{done.stdout}")
    assert "3 of 4 mutants do not hold" in done.stderr, done.stderr


def test_results_exits_0_when_everything_holds(tmp_path: Path):
    db = tmp_path / "results.sqlite"
    _store(db, records()[:1])  # the KILLED one
    done = _deskcheck(tmp_path, "results", "--db", str(db))
    assert done.returncode == 0 and done.stdout == "", (
        f"a run where everything holds: exit {done.returncode}, output {done.stdout!r}")


def test_mutants_show_prints_the_diff_and_the_last_verdict_with_its_reason(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "limits.py").write_text(MODULE)
    (tmp_path / "mutants.toml").write_text(CATALOG)
    write_owner_tests(tmp_path)
    db = tmp_path / "results.sqlite"
    _store(db, records())
    done = _deskcheck(tmp_path, "mutants", "show", "limits.M2.headroom_max_not_min",
                      "--catalog", "mutants.toml", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "-    return max(0, free - reserved)" in done.stdout, (
        f"show printed no diff:\n{done.stdout}")
    verdict = next((line for line in done.stdout.splitlines()
                    if line.startswith("# last verdict:")), "")
    assert "SURVIVED" in verdict and "run 1" in verdict and "owners missed it" in verdict, (
        f"show did not give the last recorded verdict and its reason:\n{done.stdout}")


def test_report_honours_columns_when_piped(tmp_path: Path):
    db = tmp_path / "results.sqlite"
    _store(db, records())
    done = subprocess.run([sys.executable, "-m", "deskcheck", "report", "--db", str(db)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "80"})
    table = [line for line in done.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(map(len, table)) <= 80, (
        f"`COLUMNS=80 deskcheck report | ...` drew a table wider than 80 columns:\n"
        f"{done.stdout}")

