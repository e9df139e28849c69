"""The results store as docs/report.md and report/store.py's docstrings describe it: where it
lives (``[tool.deskcheck] store`` moves it; a folder without its own pyproject gets its own
``.deskcheck/``), what comes back (a bool ``reused``, UTC times, fields without a column kept),
how a run's owner is told apart from a later process with the same pid, that ``close`` (or
dropping the Store) closes its connection, and the words of every refusal. Gaps mutmut found
in report/store.py (issue 17)."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from deskcheck.errors import ConfigError, StoreError
from deskcheck.liveness import process_token
from deskcheck.report.records import RUN_KINDS, MutantRecord, RunRecord
from deskcheck.report.store import Store

from .sample_records import BALLOT_FILE, BALLOT_SOURCE, every_verdict_mutants

CONFIGURED = "build/ci/results.sqlite"


def _project(root: Path, store: str | None = None) -> Path:
    """A project at ``root`` holding the ballot module, its store moved when ``store`` is set."""
    (root / "pkg").mkdir(parents=True)
    (root / BALLOT_FILE).write_text(BALLOT_SOURCE, encoding="utf-8")
    section = f'\n[tool.deskcheck]\nstore = "{store}"\n' if store else ""
    (root / "pyproject.toml").write_text(f'[project]\nname = "pkg"\n{section}',
                                         encoding="utf-8")
    return root


@pytest.fixture
def mutants() -> list[MutantRecord]:
    return every_verdict_mutants()


@pytest.fixture
def store(tmp_path: Path):
    with Store.for_project(_project(tmp_path / "project")) as opened:
        yield opened


def _ballot_mutant() -> MutantRecord:
    return next(m for m in every_verdict_mutants() if BALLOT_FILE in m.diff)


# -- where the store lives ------------------------------------------------------------------

def test_a_configured_store_path_is_honoured_and_sources_are_read_from_the_project(tmp_path):
    project = _project(tmp_path / "proj", store=CONFIGURED)
    with Store.for_project(project) as store:
        assert store.path.resolve() == (project / CONFIGURED).resolve(), (
            f"[tool.deskcheck] store = {CONFIGURED!r} must move the store there "
            f"(docs/report.md); it was opened at {store.path}")
        assert Path(store.root).resolve() == project.resolve(), (
            f"the store's project root must be the project ({project}), not a folder derived "
            f"from where the store file lives; got {store.root}")
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.record_mutant(run_id, _ballot_mutant())
        sources = store.sources(run_id)
    assert sources.get(BALLOT_FILE) == BALLOT_SOURCE, (
        f"a store moved to {CONFIGURED} must still snapshot the mutated file from the project "
        f"root ({BALLOT_FILE}); the run's sources hold {sorted(sources)}")


def test_a_folder_without_its_own_pyproject_gets_its_own_default_store(tmp_path):
    project = _project(tmp_path / "proj", store=CONFIGURED)
    sub = project / "examples" / "sched"
    sub.mkdir(parents=True)
    with Store.for_project(sub) as store:
        expected = sub / ".deskcheck" / "results.sqlite"
        assert store.path.resolve() == expected.resolve(), (
            f"a folder whose pyproject.toml is a parent's must get its own "
            f"`.deskcheck/results.sqlite` ({expected}), not the parent's configured store; "
            f"got {store.path}")
        assert Path(store.root).resolve() == sub.resolve(), (
            f"that store's root must be the folder it was opened for ({sub}); got {store.root}")


def test_an_explicit_root_is_where_sources_are_read_even_for_a_store_elsewhere(tmp_path):
    project = _project(tmp_path / "proj")
    elsewhere = tmp_path / "artifacts" / "shard-1" / "results.sqlite"
    with Store(elsewhere, root=project) as store:
        assert Path(store.root) == project, (
            f"Store(path, root=...) must use the root it is given ({project}), not the store "
            f"file's grandparent; got {store.root}")
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.record_mutant(run_id, _ballot_mutant())
        assert store.sources(run_id).get(BALLOT_FILE) == BALLOT_SOURCE, (
            "a store kept outside the project must read the mutated file from the root it "
            f"was given; the run's sources hold {sorted(store.sources(run_id))}")


# -- what comes back ------------------------------------------------------------------------

def test_reused_comes_back_as_a_bool_not_a_number(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, dataclasses.replace(mutants[0], reused=True))
    store.record_mutant(run_id, dataclasses.replace(mutants[1], reused=False))
    flags = [m.reused for m in store.mutants(run_id)]
    assert flags[0] is True and flags[1] is False, (
        f"`reused` must come back as True/False (the JSON report prints true/false, not 1/0); "
        f"got {flags!r}")


@dataclasses.dataclass
class _NewerRecord(MutantRecord):
    """A MutantRecord from a deskcheck that added a field this schema has no column for."""

    confidence: float = 0.0


def test_a_field_with_no_column_of_its_own_is_kept_in_the_store(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    newer = _NewerRecord(**mutants[0].to_json(), confidence=0.75)
    store.record_mutant(run_id, newer)
    (extra,) = store.connection.execute("SELECT extra FROM mutants WHERE run_id = ?",
                                        (run_id,)).fetchone()
    kept = json.loads(extra)
    assert kept.get("confidence") == 0.75, (
        "a MutantRecord field added after this schema must travel in the mutant's `extra` "
        f"(store.py: 'Fields added to MutantRecord after this schema travel in extra'), not be "
        f"dropped; extra holds {kept}")
    assert store.mutants(run_id) == [mutants[0]], (
        "reading the record back must give every field that has a column, the extra one ignored")


def _record_or_fail(store: Store, run_id: int, mutant: MutantRecord) -> None:
    try:
        store.record_mutant(run_id, mutant)
    except TypeError as exc:
        pytest.fail("a value JSON has no form for (a Path) must be stored as its text; "
                    f"record_mutant refused the verdict instead: {exc}")


def test_a_detail_value_json_cannot_hold_is_stored_as_its_text(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    where = Path("pkg") / "ballot.py"
    _record_or_fail(store, run_id, dataclasses.replace(mutants[0], detail={"where": where}))
    (detail,) = [m.detail for m in store.mutants(run_id)]
    assert detail == {"where": str(where)}, (
        "a detail value JSON has no form for (a Path here) must be recorded as its text, not "
        f"refuse the whole verdict; the detail read back is {detail!r}")


@dataclasses.dataclass
class _NewerPathRecord(MutantRecord):
    """A MutantRecord from a deskcheck that added a field JSON cannot hold as it is."""

    origin: Path = Path()


def test_a_field_with_no_column_json_cannot_hold_is_kept_as_its_text(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    origin = Path("pkg") / "ballot.py"
    _record_or_fail(store, run_id, _NewerPathRecord(**mutants[0].to_json(), origin=origin))
    (extra,) = store.connection.execute("SELECT extra FROM mutants WHERE run_id = ?",
                                        (run_id,)).fetchone()
    assert json.loads(extra) == {"origin": str(origin)}, (
        "a MutantRecord field added after this schema whose value JSON has no form for (a "
        "Path here) must travel in `extra` as its text, not refuse the whole verdict; extra "
        f"holds {extra!r}")


def test_run_times_are_utc_with_their_offset(store: Store):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.finish_run(run_id, "holds")
    run = store.run(run_id)
    for name in ("started_at", "finished_at"):
        stamp = datetime.fromisoformat(getattr(run, name))
        assert stamp.utcoffset() == timedelta(0), (
            f"a run's {name} must be written in UTC with its offset, so runs from machines in "
            f"other time zones sort together; got {getattr(run, name)!r}")


def test_a_new_run_is_running_whatever_status_the_record_carries(store: Store):
    run_id = store.begin_run(RunRecord(kind="sweep", status="holds"))
    assert store.run(run_id).status == "running", (
        "begin_run records a new run owned by this process: it is `running` until "
        f"finish_run, even when the record passed in says otherwise; got "
        f"{store.run(run_id).status!r}")


# -- a run's owner: pid and process start time ----------------------------------------------

@pytest.fixture
def other_pid():
    """A live process started after this one (a sleeping child, killed after the test): the
    pid a dead owner had, now another process's. Not our parent: under `nice`/`timeout` the
    parent can start in the same clock tick as this process."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


def _give_to(store: Store, run_id: int, pid: int, token: str | None = None) -> None:
    """Point the run's owner pid at ``pid`` (alive, not us), keeping the stored start time
    unless ``token`` is given: the pid a dead owner had now belongs to another process."""
    assert process_token(pid) != process_token(os.getpid()), (
        "precondition: the other process must have started at another time than this one")
    if token is None:
        store.connection.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", (pid, run_id))
    else:
        store.connection.execute("UPDATE runs SET owner_pid = ?, owner_token = ? WHERE id = ?",
                                 (pid, token, run_id))


def test_a_run_whose_pid_now_belongs_to_another_process_is_interrupted(store: Store, other_pid: int):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    _give_to(store, run_id, other_pid)
    assert store.run(run_id).status == "interrupted", (
        "a running run whose owner pid is now a process with another start time (the owner "
        "died, the pid was reused) must read as interrupted: begin_run must record the "
        f"owner's start time, not only its pid; got {store.run(run_id).status!r}")
    assert store.resumable_run("sweep", "abc", "cfg") == run_id, (
        "and the next sweep of the same inputs must claim it")


def test_a_live_pid_with_another_start_time_does_not_hold_a_run(store: Store, other_pid: int):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    _give_to(store, run_id, other_pid, token="1")  # started one tick after boot: not it
    assert store.resumable_run("sweep", "abc", "cfg") == run_id, (
        "a run whose pid is alive but started at another time than the recorded owner must be "
        "claimed (docs/report.md: pid and process start time are checked), not skipped as "
        "if its owner still ran")


def test_a_claimed_run_is_owned_by_this_process_by_pid_and_start_time(store: Store, other_pid: int):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    store.finish_run(run_id, "interrupted")
    assert store.resumable_run("sweep", "abc", "cfg") == run_id, "the interrupted run was not claimed"
    assert store.run(run_id).status == "running", "a claimed run must be running again"
    _give_to(store, run_id, other_pid)
    assert store.run(run_id).status == "interrupted", (
        "claiming must record this process's start time with its pid: once that pid is "
        "another process the claimed run must read as interrupted; got "
        f"{store.run(run_id).status!r}")


# -- the connection ---------------------------------------------------------------------------

def test_close_closes_the_connection(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    connection = store.connection
    store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        connection.execute("SELECT 1")
        pytest.fail("Store.close() left its connection open (the WAL is only folded back "
                    "into results.sqlite by the last close)")


def test_a_store_dropped_without_close_closes_its_connection(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    connection = store.connection
    del store
    gc.collect()
    with pytest.raises(sqlite3.ProgrammingError):
        connection.execute("SELECT 1")
        pytest.fail("a Store dropped without close() left its connection open: it must be "
                    "closed even when the caller never closes it (so the WAL is folded back)")


# -- the words of each refusal ----------------------------------------------------------------

def test_a_store_from_a_newer_deskcheck_names_the_file_and_the_fix(tmp_path):
    path = tmp_path / "results.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(StoreError) as caught:
        Store(path)
    error = caught.value
    assert error.location == str(path) and error.fix == "upgrade deskcheck or use another --db", (
        f"a store of a newer schema must be refused at the store file ({path}) with the fix "
        f"'upgrade deskcheck or use another --db'; got location {error.location!r}, "
        f"fix {error.fix!r}")
    assert error.message == "store schema 99 is newer than this deskcheck (1)", (
        f"the refusal must say which schema the file has and which this deskcheck reads: "
        f"{error.message!r}")


def test_a_file_that_is_not_a_store_says_so_with_the_fix(tmp_path):
    bogus = tmp_path / "results.sqlite"
    bogus.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError) as caught:
        Store(bogus)
    error = caught.value
    assert (error.message or "").startswith("the file is not a SQLite database, so not a "
                                            "deskcheck store ("), (
        f"a file that is not SQLite must be refused saying what it is, and why; got "
        f"{error.message!r}")
    assert error.fix == (f"pass --db PATH of a deskcheck results store, or move it aside (`mv "
                         f"{bogus} {bogus}.bad`); the next sweep starts a fresh store"), (
        f"the fix must say to pass the right store or move the file aside; got {error.fix!r}")


def test_refusals_of_runs_say_what_to_do_word_for_word(store: Store):
    with pytest.raises(ConfigError) as caught:
        store.begin_run(RunRecord(kind="nightly"))
    assert caught.value.fix == f"use one of {', '.join(RUN_KINDS)}", (
        f"an unknown run kind must list the known kinds, comma-separated: {caught.value.fix!r}")
    with pytest.raises(ConfigError) as caught:
        store.begin_run(RunRecord(kind="sweep", tier="CLOUD"))
    assert caught.value.fix == "use DESK (CPU, gloo) or METAL (GPU, NCCL)", (
        f"an unknown tier must name both tiers and what they mean: {caught.value.fix!r}")
    for ask in (lambda: store.run(424242), lambda: store.finish_run(424242, "holds")):
        with pytest.raises(StoreError) as caught:
            ask()
        assert caught.value.fix == "pass an id listed by `deskcheck history`", (
            f"an unknown run id must point at `deskcheck history`: {caught.value.fix!r}")
    run_id = store.begin_run(RunRecord(kind="sweep"))
    for status in ("", "running"):
        with pytest.raises(ValueError) as caught:
            store.finish_run(run_id, status)
        assert str(caught.value) == ("finish_run needs a final status, e.g. 'holds' or "
                                     "'falls_short'"), (
            f"finish_run({status!r}) must say it needs a final status, with examples: "
            f"{caught.value}")


def test_a_run_of_an_unknown_machine_is_judged_on_this_one(store: Store):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.connection.execute("UPDATE runs SET machine = '', owner_pid = ? WHERE id = ?",
                             (2 ** 22 + 1, run_id))  # above Linux's pid_max: no such process
    assert store.run(run_id).status == "interrupted", (
        "a running run that names no machine is judged on this one: its owner pid is gone, "
        f"so it must read as interrupted; got {store.run(run_id).status!r}")


def test_an_owner_of_unknown_start_time_holds_its_run_while_its_pid_lives(store: Store, other_pid: int):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    _give_to(store, run_id, other_pid, token="")
    assert store.run(run_id).status == "running", (
        "a run whose owner's start time was not recorded (an older store) must count as "
        "running while its pid lives (liveness: the token is checked only if one is given); "
        f"got {store.run(run_id).status!r}")


def test_a_file_unreadable_for_one_mutant_is_snapshotted_by_a_later_one(tmp_path, mutants):
    project = _project(tmp_path / "proj")
    (project / BALLOT_FILE).unlink()
    ballot = [m for m in mutants if BALLOT_FILE in m.diff]
    assert len(ballot) >= 2, "the sample records must hold two mutants of the ballot module"
    with Store.for_project(project) as store:
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.record_mutant(run_id, ballot[0])
        (project / BALLOT_FILE).write_text(BALLOT_SOURCE, encoding="utf-8")
        store.record_mutant(run_id, ballot[1])
        sources = store.sources(run_id)
    assert sources.get(BALLOT_FILE) == BALLOT_SOURCE, (
        "a mutated file the store could not read for the first mutant must be snapshotted "
        "once a later mutant of the run finds it (the Stryker/HTML reports need the source); "
        f"the run's sources hold {sorted(sources)}")


def _timed(mutant_id: str, seconds: float, reused: bool = False) -> MutantRecord:
    return MutantRecord(id=mutant_id, title="", target="a:b", operator="", verdict="KILLED",
                        duration_s=seconds, reused=reused)


def test_durations_are_the_newest_measured_seconds_of_sweeps(store: Store):
    first = store.begin_run(RunRecord(kind="sweep"))
    for record in (_timed("a", 2.0), _timed("b", 4.0), _timed("c", 1.5)):
        store.record_mutant(first, record)
    second = store.begin_run(RunRecord(kind="sweep"))
    for record in (_timed("a", 3.0), _timed("b", 0.0), _timed("c", 0.2, reused=True)):
        store.record_mutant(second, record)
    auto = store.begin_run(RunRecord(kind="auto"))
    store.record_mutant(auto, _timed("a", 9.0))
    store.record_mutant(auto, _timed("d", 7.0))
    found = store.mutant_durations()
    assert found == {"a": 3.0, "b": 4.0, "c": 1.5}, (
        "mutant_durations() must give each mutant's seconds in the newest sweep that measured "
        "it (docs/report.md, Shards): a zero duration or a reused verdict measures nothing, "
        f"and an auto run is another kind; got {found}")
    assert store.mutant_durations("auto") == {"a": 9.0, "d": 7.0}, (
        f"mutant_durations('auto') must read auto runs only: {store.mutant_durations('auto')}")
