"""How the results store opens and what a run in progress reports (docs/report.md, *The
results store*; report/store.py): a store read where it cannot be written is read through a
read-only connection with the same busy timeout, a store opened for writing never is; a store
that does not exist is refused for reading and not created; a refused file is closed at once
(no -wal/-shm left beside it) and SQLite's failure becomes a StoreError naming the file, with
the fix for reading or writing; a store written by an older deskcheck gets its schema version
back; a sweep or auto run still ``running`` is summarised from the verdicts stored so far,
any other run keeps its stored summary; a mutant taken out of a run's plan leaves the rest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deskcheck.errors import StoreError
from deskcheck.report import store as store_module
from deskcheck.report.records import RunRecord
from deskcheck.report.store import BUSY_TIMEOUT_MS, SCHEMA_VERSION, Store

from .sample_records import every_verdict_mutants


def _store_with_a_run(path: Path) -> int:
    with Store(path) as store:
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.finish_run(run_id, "completed", {"total": 0})
    return run_id


@pytest.mark.parametrize("folder", ["", ".deskcheck"])
def test_a_missing_store_is_refused_for_reading_and_not_created(tmp_path: Path,
                                                                folder: str) -> None:
    path = tmp_path / folder / "results.sqlite"
    with pytest.raises(StoreError) as caught:
        Store(path, read_only=True)
    err = caught.value
    assert (err.message, err.location, err.fix) == (
        f"no results store at {path}", str(path),
        "run `deskcheck sweep` first, or pass --db PATH"), (
        f"reading a store that does not exist (in {'a missing' if folder else 'an existing'} "
        f"folder) must say so, name the file and say how to make one; got {err.message!r} at "
        f"{err.location!r}, fix {err.fix!r}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [], (
        f"reading a missing store created {sorted(tmp_path.iterdir())}")


def test_a_store_whose_folder_cannot_be_made_names_the_file_and_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ".deskcheck" / "results.sqlite"

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(StoreError) as caught:
        Store(path)
    err = caught.value
    assert (err.message, err.location, err.fix) == (
        "the results store is read-only ([Errno 13] Permission denied)", str(path),
        f"make {path} and its folder writable, or pass --no-store"), (
        f"a store whose folder cannot be made must be refused as read-only, quoting the "
        f"operating system, naming the file and saying how to write it; got {err.message!r} "
        f"at {err.location!r}, fix {err.fix!r}")


def test_a_store_that_cannot_be_written_is_read_through_a_read_only_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "results.sqlite"
    run_id = _store_with_a_run(path)
    monkeypatch.setattr(store_module, "writable", lambda p: False)
    with Store(path, read_only=True) as store:
        assert [r.id for r in store.runs()] == [run_id], "the read-only store lost its run"
        db = store.connection
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS, (
            f"the read-only connection must wait {BUSY_TIMEOUT_MS} ms for a writer like the "
            f"writer's own: {db.execute('PRAGMA busy_timeout').fetchone()[0]} ms")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.execute("CREATE TABLE written_by_a_reader (x)")


def test_a_store_opened_for_writing_never_takes_the_read_only_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "results.sqlite"
    _store_with_a_run(path)
    monkeypatch.setattr(store_module, "writable", lambda p: False)
    with Store(path) as store:
        run_id = store.begin_run(RunRecord(kind="sweep"))
    assert run_id == 2, (
        f"a store opened for writing must write through SQLite itself (the operating system "
        f"says when it cannot), never through the read-only connection; run id {run_id}")


def test_a_foreign_file_is_refused_and_closed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE runs (name TEXT)")
    db.close()
    with pytest.raises(StoreError) as caught:
        Store(path)
    err = caught.value
    assert err.location == str(path) and "foreign layout" in err.message and \
        "runs.kind" in err.message, (
        f"a SQLite file with other tables must be refused as a foreign layout naming a missing "
        f"column (runs.kind) and the file; got {err.message!r} at {err.location!r}")
    left = sorted(p.name for p in tmp_path.iterdir() if p.name != path.name)
    assert left == [], f"the refused store was left open: {left} beside it"


@pytest.mark.parametrize(("read_only", "fix"), [
    (False, "make {path} and its folder writable, or pass --no-store"),
    (True, "make {path} and its folder readable, or copy the store and pass --db COPY"),
])
def test_sqlites_failure_to_open_names_the_file_and_the_fix_for_reading_or_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only: bool, fix: str) -> None:
    path = tmp_path / "results.sqlite"
    _store_with_a_run(path)

    def refuse(*args, **kwargs):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(store_module.sqlite3, "connect", refuse)
    with pytest.raises(StoreError) as caught:
        Store(path, read_only=read_only)
    err = caught.value
    assert (err.message, err.location, err.fix) == (
        "the results store is read-only (attempt to write a readonly database)", str(path),
        fix.format(path=path)), (
        f"SQLite's refusal must become a StoreError quoting it, naming the file and saying "
        f"what to do when {'reading' if read_only else 'writing'}; got {err.message!r} at "
        f"{err.location!r}, fix {err.fix!r}")


def test_a_store_of_an_older_schema_version_gets_todays_version(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    _store_with_a_run(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 0")
    db.close()
    Store(path).close()
    db = sqlite3.connect(path)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    assert version == SCHEMA_VERSION, (
        f"opening a store of schema 0 for writing must set up today's schema ({SCHEMA_VERSION}); "
        f"it is still {version}")


@pytest.mark.parametrize("kind", ["sweep", "auto"])
def test_a_running_sweep_is_summarised_from_the_verdicts_stored_so_far(tmp_path: Path,
                                                                       kind: str) -> None:
    with Store(tmp_path / "results.sqlite") as store:
        run_id = store.begin_run(RunRecord(kind=kind))
        for mutant in every_verdict_mutants()[:3]:
            store.record_mutant(run_id, mutant)
        so_far = store.summary_of(run_id)
        got = store.run(run_id).summary
        assert got == so_far and got["total"] == 3, (
            f"a {kind} run still running must be summarised from its 3 stored verdicts "
            f"({so_far}); got {got}")
        store.finish_run(run_id, "completed", {"total": 99})
        assert store.run(run_id).summary["total"] == 99, (
            f"a finished run must keep the summary stored at its end (total 99), not be "
            f"summarised again from its verdicts: {store.run(run_id).summary}")


def test_a_running_gate_run_keeps_its_stored_summary(tmp_path: Path) -> None:
    with Store(tmp_path / "results.sqlite") as store:
        run_id = store.begin_run(RunRecord(kind="redfirst", summary={"tests": 2}))
        assert store.run(run_id).summary == {"tests": 2}, (
            f"only sweep and auto runs are summarised from mutant verdicts; a running redfirst "
            f"run became {store.run(run_id).summary}")


def test_a_mutant_taken_out_of_a_plan_leaves_the_rest(tmp_path: Path) -> None:
    with Store(tmp_path / "results.sqlite") as store:
        first = store.begin_run(RunRecord(kind="sweep"))
        other = store.begin_run(RunRecord(kind="sweep"))
        store.plan(first, ["a", "b", "c"])
        store.plan(other, ["a"])
        store.unplan(first, "b")
        assert (sorted(store.planned(first)), store.planned(other)) == (["a", "c"], ["a"]), (
            f"unplanning b from the first run must leave its a and c and the other run's plan; "
            f"got {store.planned(first)} and {store.planned(other)}")
