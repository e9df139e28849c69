"""Resuming when several interrupted runs exist (docs/report.md, *Resume and concurrency*): a
run left ``running`` by a process that is gone, ``interrupted`` or ``error`` is claimed again
by the next sweep of the same kind, commit, config and shard; the newest such run is claimed,
a run whose process is alive never is, and a finished run never is."""

from __future__ import annotations

import os

import pytest

from deskcheck.report.records import RunRecord
from deskcheck.report.store import Store

GONE = 999999999  # a pid no process has


def interrupted_run(store: Store, status: str = "interrupted", **keys) -> int:
    fields = {"kind": "sweep", "commit": "abc", "config_fingerprint": "cfg", **keys}
    run_id = store.begin_run(RunRecord(**fields))
    if status == "running":  # its process was killed: it never closed the run
        store._db.execute("UPDATE runs SET owner_pid = ?, owner_token = '' WHERE id = ?",
                          (GONE, run_id))
    else:
        store.finish_run(run_id, status)
    return run_id


def test_the_newest_of_several_interrupted_runs_is_claimed(store: Store):
    runs = [interrupted_run(store, status) for status in ("interrupted", "error", "running")]
    claimed = store.resumable_run("sweep", "abc", "cfg")
    assert claimed == runs[-1], (
        f"three runs of the same sweep were left unfinished (ids {runs}, newest last); the "
        f"resume claimed {claimed}, not the newest {runs[-1]}")
    assert store.run(claimed).status == "running", (
        f"the claimed run {claimed} is {store.run(claimed).status!r}, not 'running' again")


@pytest.mark.parametrize("status", ["running", "interrupted", "error"])
def test_every_unfinished_status_is_resumable(store: Store, status):
    run_id = interrupted_run(store, status)
    claimed = store.resumable_run("sweep", "abc", "cfg")
    assert claimed == run_id, (
        f"a run left {status!r} (its process gone) was not claimed by the next sweep of the "
        f"same kind, commit and config: got {claimed}, not {run_id}")


@pytest.mark.parametrize("status", ["holds", "falls_short", "partial"])
def test_a_finished_run_is_never_resumed_even_when_newest(store: Store, status):
    older = interrupted_run(store, "interrupted")
    newer = interrupted_run(store, status)
    claimed = store.resumable_run("sweep", "abc", "cfg")
    assert claimed == older, (
        f"the newest run {newer} finished ({status!r}) and the older run {older} was "
        f"interrupted: the resume must claim {older}, and claimed {claimed}")


def test_a_newer_run_owned_by_a_live_process_is_skipped_for_an_older_dead_one(store: Store):
    older = interrupted_run(store, "running")
    newer = interrupted_run(store, "running")
    store._db.execute("UPDATE runs SET owner_pid = ?, owner_token = '' WHERE id = ?",
                      (os.getppid(), newer))  # alive, and not us
    claimed = store.resumable_run("sweep", "abc", "cfg")
    assert claimed == older, (
        f"run {newer} still belongs to a live process and run {older}'s process is gone: the "
        f"resume must claim {older}, and claimed {claimed}")


def test_each_claimed_run_skips_only_its_own_finished_mutants(store: Store, mutants):
    first = interrupted_run(store, "running")
    store.record_mutant(first, mutants[0])
    second = interrupted_run(store, "running")
    store.record_mutant(second, mutants[1])
    store.record_mutant(second, mutants[2])
    claimed = store.resumable_run("sweep", "abc", "cfg")
    done = store.finished_ids(claimed)
    assert done == {mutants[1].id, mutants[2].id}, (
        f"the resumed run {claimed} must skip exactly the mutants it recorded itself "
        f"({mutants[1].id}, {mutants[2].id}); finished_ids gave {sorted(done)}")


@pytest.mark.parametrize(("field", "value"), [("commit", "other"), ("config_fingerprint", "x"),
                                              ("kind", "redfirst"), ("shard", "1/2")])
def test_an_interrupted_run_with_other_inputs_is_left_alone(store: Store, field, value):
    mine = interrupted_run(store, "interrupted")
    interrupted_run(store, "interrupted", **{field: value})  # newer, but another run's
    claimed = store.resumable_run("sweep", "abc", "cfg")
    assert claimed == mine, (
        f"a newer interrupted run with {field}={value!r} was claimed ({claimed}) by a sweep "
        f"of another {field}; only run {mine} has the same inputs")
