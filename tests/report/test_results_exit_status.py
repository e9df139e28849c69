"""docs/report.md's command table: ``deskcheck results`` exits 1 if anything in the run does
not hold, or if the run did not complete (interrupted, killed, still running, partial), and
names how it ended; 0 only for a complete run where everything held."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


def _stored(db: Path, mutants: list[MutantRecord], status: str) -> None:
    with Store(db) as store:
        run_id = store.begin_run(RunRecord(kind="sweep", commit="3f2a9c1d0e4b"))
        for mutant in mutants:
            store.record_mutant(run_id, mutant)
        store.finish_run(run_id, status)


@pytest.mark.parametrize(("status", "words"), [
    ("interrupted", "interrupted"), ("error", "stopped by an error"),
    ("partial", "partial (shards missing)")])
def test_a_run_that_did_not_complete_exits_1_even_when_every_verdict_held(
        tmp_path: Path, mutants, capsys, status: str, words: str) -> None:
    db = tmp_path / "results.sqlite"
    _stored(db, [m for m in mutants if m.verdict == "KILLED"], status)
    code = main(["results", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1 and words in err, (
        f"docs/report.md: `deskcheck results` exits 1 when the run did not complete, naming "
        f"how it ended; a {status} run whose verdicts all held exited {code}, saying {err!r}")


def test_a_complete_run_where_everything_held_exits_0(tmp_path: Path, mutants, capsys) -> None:
    db = tmp_path / "results.sqlite"
    _stored(db, [m for m in mutants if m.verdict == "KILLED"], "holds")
    code = main(["results", "--db", str(db)])
    out = capsys.readouterr()
    assert code == 0 and out.out == "", (
        f"a complete run where every verdict held: `deskcheck results` exits 0 with nothing "
        f"listed; it exited {code} and listed {out.out!r}")


def test_a_complete_run_with_a_survivor_exits_1(tmp_path: Path, mutants, capsys) -> None:
    db = tmp_path / "results.sqlite"
    _stored(db, mutants, "falls_short")
    code = main(["results", "--db", str(db)])
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert code == 1 and listed and listed[0] == "SURVIVED" and "KILLED" not in listed, (
        f"docs/report.md: `deskcheck results` lists what does not hold, survivors first, and "
        f"exits 1; it exited {code} listing {listed}")
