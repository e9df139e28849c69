"""``deskcheck history`` shows 'judged of planned' in the mutants column for a run that
never judged part of its plan (interrupted or killed), and the judged count alone otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


def _store(path: Path) -> None:
    store = Store(path)
    try:
        whole = store.begin_run(RunRecord(kind="sweep", commit="a" * 40))
        store.plan(whole, ["k.a"])
        store.record_mutant(whole, MutantRecord("k.a", "a", "t", "op", "KILLED"))
        store.finish_run(whole, "holds")
        cut = store.begin_run(RunRecord(kind="sweep", commit="b" * 40))
        store.plan(cut, ["k.a", "k.b", "k.c"])
        store.record_mutant(cut, MutantRecord("k.a", "a", "t", "op", "KILLED"))
        store.finish_run(cut, "interrupted")
    finally:
        store.close()


def test_history_says_judged_of_planned_for_an_interrupted_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "results.sqlite"
    _store(db)
    assert main(["history", "--db", str(db)]) == 0, (
        "`deskcheck history --db F` must exit 0 for a store with an interrupted run; it said:\n"
        f"{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    lines = out.splitlines()
    interrupted = [line for line in lines if "interrupted" in line]
    held = [line for line in lines if "holds" in line]
    assert interrupted and "1 of 3" in interrupted[0], (
        "the interrupted run judged 1 of its 3 planned mutants: its mutants cell must say "
        f"'1 of 3', got:\n{out}")
    assert held and " of " not in held[0], (
        f"a run that judged its whole plan shows the count alone:\n{out}")
    assert all(len(line) <= 80 for line in lines), f"history fits 80 columns:\n{out}"
