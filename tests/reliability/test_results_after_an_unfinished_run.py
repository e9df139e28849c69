"""``deskcheck results`` on a run that did not complete: exit 1 even when every mutant it
judged held, naming how it ended and how many of the plan were never judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


def _run(path: Path, finish: str | None) -> None:
    store = Store(path)
    try:
        run = store.begin_run(RunRecord(kind="sweep", commit="c" * 40))
        store.plan(run, ["k.a", "k.b"])
        store.record_mutant(run, MutantRecord("k.a", "a", "t", "op", "KILLED"))
        if finish:
            store.finish_run(run, finish)
    finally:
        store.close()


def test_an_interrupted_run_whose_judged_mutants_held_still_exits_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "results.sqlite"
    _run(db, "interrupted")
    code = main(["results", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1, (
        f"an interrupted run that never judged k.b exited {code}: it does not hold even "
        f"though the one mutant it judged was killed\n{err}")
    assert "interrupted: 1 of 2 mutants never judged (k.b)" in err, (
        f"results names how the run ended and what it never judged:\n{err}")


def test_a_run_still_recorded_as_running_is_said_to_be_still_running(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "results.sqlite"
    _run(db, None)  # begun by this (live) process and never finished
    code = main(["results", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1, f"a run still in progress does not hold, exited {code}\n{err}"
    assert "still running: 1 of 2 mutants never judged" in err and "resume" not in err, (
        f"a run in progress is said to be 'still running' (not resumable yet):\n{err}")
