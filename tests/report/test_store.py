"""The store: round trip, reuse, resume, snapshots and its errors."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from deskcheck.errors import ConfigError, StoreError
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store

from .sample_records import BALLOT_FILE, BALLOT_SOURCE


def test_round_trip_keeps_every_field(store: Store, recorded_run: int, mutants):
    assert store.mutants(recorded_run) == mutants, (
        "the store must give back the recorded mutants in order with every field; they differ"
    )  # same order, every field (reused included)
    run = store.run(recorded_run)
    assert (run.kind, run.commit, run.branch, run.status) == (
        "sweep", "3f2a9c1d0e4b", "tp-ballot", "falls_short"), (
        "the run must round-trip kind, commit, branch, status; it gave "
        f"{(run.kind, run.commit, run.branch, run.status)}"
    )
    assert run.machine and run.deskcheck_version and run.started_at and run.finished_at, (
        f"a run must record machine, deskcheck_version, started_at, finished_at; it has {run}"
    )
    assert run.summary["total"] == len(mutants), (
        f"the summary must count all {len(mutants)} mutants; it says total {run.summary['total']}"
    )
    assert run.summary["counts"]["SURVIVED"] == 1 and run.summary["holds"] is False, (
        f"a run with a survivor must count 1 SURVIVED and not hold; summary {run.summary}"
    )


def test_store_lives_under_dot_deskcheck_in_wal_mode(project: Path, store: Store):
    assert store.path == project / ".deskcheck" / "results.sqlite", (
        f"the project store must be .deskcheck/results.sqlite; it is {store.path}"
    )
    mode = sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal", f"the store must be in WAL journal mode; it is {mode!r}"


def test_recording_a_mutant_again_replaces_it(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    first = mutants[1]
    store.record_mutant(run_id, first)
    store.record_mutant(run_id, MutantRecord(**{**first.to_json(), "verdict": "KILLED"}))
    assert [m.verdict for m in store.mutants(run_id)] == ["KILLED"], (
        "recording a mutant again must replace it; the run holds verdicts "
        f"{[m.verdict for m in store.mutants(run_id)]}"
    )


def test_reusable_returns_newest_holding_verdict(store: Store, mutants):
    killed = mutants[0]
    older = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(older, MutantRecord(**{**killed.to_json(), "duration_s": 1.0}))
    newer = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(newer, MutantRecord(**{**killed.to_json(), "duration_s": 2.0}))
    reused = store.reusable(killed.fingerprint)
    assert reused is not None and reused.reused and reused.duration_s == 2.0, (
        f"reusable must return the newest holding verdict (2.0 s), marked reused; it gave {reused}"
    )
    assert reused.detail["reused_from_run"] == newer, (
        f"the reused verdict must name the newer run {newer}; it names "
        f"{reused.detail.get('reused_from_run')}"
    )
    assert store.reusable("no-such-fingerprint") is None, (
        "reusable must give None for an unknown fingerprint"
    )
    assert store.reusable("") is None, "reusable must give None for an empty fingerprint"


def test_reusable_never_returns_a_falling_short_verdict(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    for mutant in mutants:
        store.record_mutant(run_id, mutant)
    for mutant in mutants:
        reused = store.reusable(mutant.fingerprint)
        if mutant.verdict in ("KILLED", "ACCEPTED_SURVIVOR"):
            assert reused is not None and reused.verdict == mutant.verdict, (
                f"a {mutant.verdict} verdict must be reusable as it was; reusable gave {reused}"
            )
        else:
            assert reused is None, mutant.verdict
    assert store.reusable(mutants[1].fingerprint, frozenset({"SURVIVED"})) is not None, (
        "a SURVIVED verdict must be reusable when the caller accepts SURVIVED"
    )


def test_an_older_kill_is_not_revived_after_a_newer_non_kill(store: Store, mutants):
    killed = mutants[0]
    first = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(first, killed)
    second = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(second, _with(killed, "TIMEOUT"))
    revived = store.reusable(killed.fingerprint)
    assert revived is None, (
        f"the store revived the {revived.verdict} verdict of run "
        f"{revived.detail.get('reused_from_run')} although the newer run {second} recorded "
        f"TIMEOUT for the same fingerprint")
    third = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(third, killed)
    assert store.reusable(killed.fingerprint).detail["reused_from_run"] == third, (
        f"a kill recorded again in run {third} must be reused from it; reused from "
        f"{store.reusable(killed.fingerprint).detail.get('reused_from_run')}"
    )


def _with(mutant: MutantRecord, verdict: str) -> MutantRecord:
    return MutantRecord(**{**mutant.to_json(), "verdict": verdict})


def test_finished_ids_and_resume_of_a_run_whose_process_is_gone(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    for mutant in mutants[:3]:
        store.record_mutant(run_id, mutant)
    # Our own process still owns it: another process would not resume it, we may.
    assert store.finished_ids(run_id) == {m.id for m in mutants[:3]}, (
        f"finished_ids must be the 3 recorded mutants; it is {store.finished_ids(run_id)}"
    )
    # Pretend the owner died (pid 0 is never alive).
    store._db.execute("UPDATE runs SET owner_pid = 999999999 WHERE id = ?", (run_id,))
    assert store.resumable_run("sweep", "abc", "other-config") is None, (
        "a run of another config fingerprint must not be resumable"
    )
    assert store.resumable_run("sweep", "other-commit", "cfg") is None, (
        "a run of another commit must not be resumable"
    )
    assert store.resumable_run("redfirst", "abc", "cfg") is None, (
        "a run of another kind (sweep, not redfirst) must not be resumable"
    )
    assert store.resumable_run("sweep", "abc", "cfg", shard="2/4") is None, (
        "a run of no shard must not be resumed by shard 2/4"
    )
    assert store.resumable_run("sweep", "abc", "cfg") == run_id, (
        f"the run {run_id} whose owner process is gone must be resumable; resumable_run gave "
        f"{store.resumable_run('sweep', 'abc', 'cfg')}"
    )
    store.finish_run(run_id, "holds")
    assert store.resumable_run("sweep", "abc", "cfg") is None, (
        "a finished run must never be resumable"
    )


def test_a_run_owned_by_a_live_process_is_not_resumable(store: Store):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    parent = os.getppid()  # alive, and not us
    store._db.execute("UPDATE runs SET owner_pid = ?, owner_token = '' WHERE id = ?",
                      (parent, run_id))
    assert store.resumable_run("sweep", "abc", "cfg") is None, (
        "a run owned by a live process must not be resumable; resumable_run gave "
        f"{store.resumable_run('sweep', 'abc', 'cfg')}"
    )


def test_an_interrupted_run_is_resumable(store: Store):
    run_id = store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg"))
    store.finish_run(run_id, "interrupted")
    assert store.resumable_run("sweep", "abc", "cfg") == run_id, (
        f"an interrupted run {run_id} must be resumable; resumable_run gave "
        f"{store.resumable_run('sweep', 'abc', 'cfg')}"
    )
    assert store.run(run_id).status == "running", (
        f"a resumed run must be running again; it is {store.run(run_id).status!r}"
    )


def test_source_of_a_mutated_file_is_snapshotted_once(project: Path, store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, mutants[0])
    (project / BALLOT_FILE).write_text("# changed after the run\n")
    store.record_mutant(run_id, mutants[1])
    assert store.sources(run_id)[BALLOT_FILE] == BALLOT_SOURCE, (
        "the source of a mutated file must be snapshotted once, at its first mutant; it was taken "
        "again after the file changed"
    )


def test_bad_inputs_are_refused(store: Store, mutants):
    with pytest.raises(ConfigError, match="unknown run kind 'nightly'"):
        store.begin_run(RunRecord(kind="nightly"))
    with pytest.raises(ConfigError, match="unknown evidence tier 'GPU'"):
        store.begin_run(RunRecord(kind="sweep", tier="GPU"))
    run_id = store.begin_run(RunRecord(kind="sweep"))
    with pytest.raises(ValueError, match="unknown verdict 'DEAD'"):
        store.record_mutant(run_id, MutantRecord(**{**mutants[0].to_json(), "verdict": "DEAD"}))
    with pytest.raises(ValueError, match="final status"):
        store.finish_run(run_id, "running")
    with pytest.raises(StoreError, match="no run 4242"):
        store.finish_run(4242, "holds")
    with pytest.raises(StoreError, match="no run 4242"):
        store.run(4242)


def test_a_file_that_is_not_a_store_is_named_with_the_fix(tmp_path: Path):
    bogus = tmp_path / "results.sqlite"
    bogus.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError) as caught:
        Store(bogus)
    assert str(bogus) in caught.value.render() and "fix:" in caught.value.render(), (
        "a file that is not a store must be named with a fix:; the error says "
        f"{caught.value.render()!r}"
    )


def test_a_store_from_a_newer_deskcheck_is_refused(tmp_path: Path):
    path = tmp_path / "results.sqlite"
    Store(path).close()
    sqlite3.connect(path).execute("PRAGMA user_version = 99").connection.commit()
    with pytest.raises(StoreError, match="schema 99 is newer"):
        Store(path)


def test_fields_added_to_mutant_record_later_survive_in_extra(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    record = mutants[0]
    values = {"extra": "{\"future_field\": 1}"}
    store.record_mutant(run_id, record)
    store._db.execute("UPDATE mutants SET extra = ? WHERE run_id = ?", (values["extra"], run_id))
    assert store.mutants(run_id) == [record], (
        "a record with unknown keys in extra must read back as recorded: unknown keys are "
        "ignored, not fatal"
    )  # unknown keys are ignored, not fatal


def test_a_shard_resumes_only_its_own_run(store: Store):
    runs = {spec: store.begin_run(RunRecord(kind="sweep", commit="abc", config_fingerprint="cfg",
                                            shard=spec)) for spec in ("1/2", "2/2")}
    for run_id in runs.values():
        store.finish_run(run_id, "interrupted")
    assert store.resumable_run("sweep", "abc", "cfg", shard="2/2") == runs["2/2"], (
        "shard 2/2 must resume its own interrupted run"
    )
    assert store.resumable_run("sweep", "abc", "cfg", shard="1/2") == runs["1/2"], (
        "shard 1/2 must resume its own interrupted run"
    )
    assert store.resumable_run("sweep", "abc", "cfg") is None, (
        "a run without a shard must not resume a shard's run"
    )


def test_a_summary_of_its_own_is_kept_beside_the_standard_keys(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, mutants[0])
    store.finish_run(run_id, "holds", {"KILLED": 1, "workers": 2})  # a sweep's flat counts
    summary = store.run(run_id).summary
    assert summary["workers"] == 2 and summary["KILLED"] == 1, (
        f"a summary of its own (workers, KILLED) must be kept; it is {summary}"
    )
    assert summary["total"] == 1 and summary["counts"]["KILLED"] == 1 and summary["holds"], (
        f"the standard keys total, counts, holds must be kept beside it; summary {summary}"
    )
    gate = store.begin_run(RunRecord(kind="redfirst"))
    store.finish_run(gate, "holds", {"red_to_green": 10, "pins": 4})
    assert store.run(gate).summary["total"] == 0 and store.run(gate).summary["pins"] == 4, (
        f"a gate run's summary must keep pins=4 and total 0; it is {store.run(gate).summary}"
    )


def test_a_diff_written_relative_to_a_parent_folder_still_finds_the_source(tmp_path: Path,
                                                                          mutants):
    """`deskcheck sweep` at a repo root writes diffs relative to it while the store may live
    in a sub-project (examples/<name>/.deskcheck)."""
    sub = tmp_path / "examples" / "sched"
    (sub / "pkg").mkdir(parents=True)
    (sub / BALLOT_FILE).write_text(BALLOT_SOURCE)
    record = mutants[1]
    record.diff = record.diff.replace(f"a/{BALLOT_FILE}", f"a/examples/sched/{BALLOT_FILE}")
    record.source_file = str(sub / "mutants.toml")
    with Store.for_project(sub) as store:
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.record_mutant(run_id, record)
        assert store.sources(run_id) == {f"examples/sched/{BALLOT_FILE}": BALLOT_SOURCE}, (
            "a diff written relative to a parent folder must still find the source; sources "
            f"{sorted(store.sources(run_id))}"
        )
