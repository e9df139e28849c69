"""The store keeps what it is given (docs/report.md, *The store*): every field of a run comes
back from ``run``/``runs`` (``runs(kind)`` filters, oldest first); ``finished_ids`` and
``sources`` are per run; ``reusable`` gives back the newest holding verdict marked as reused,
naming the run it came from. Gaps mutmut found in report/store.py."""

from __future__ import annotations

import dataclasses

from deskcheck.report.records import RunRecord
from deskcheck.report.store import Store

FULL = RunRecord(kind="regress", commit="c0ffee", branch="tp-ballot", started_at="2026-12-03T10",
                 finished_at="", machine="vm7", tier="METAL", config_fingerprint="cfg-9",
                 deskcheck_version="9.9.9", shard="2/4", status="running",
                 summary={"note": "kept"})


def test_every_field_of_a_run_comes_back(store: Store):
    run_id = store.begin_run(dataclasses.replace(FULL))
    got = store.run(run_id)
    expected = dataclasses.replace(FULL, id=run_id)
    differ = {f.name: (getattr(got, f.name), getattr(expected, f.name))
              for f in dataclasses.fields(RunRecord)
              if getattr(got, f.name) != getattr(expected, f.name)}
    assert not differ, f"these run fields did not survive the store (got, sent): {differ}"


def test_runs_are_listed_oldest_first_and_filtered_by_kind(store: Store):
    ids = [store.begin_run(RunRecord(kind=kind)) for kind in ("sweep", "regress", "sweep")]
    every = [(r.id, r.kind) for r in store.runs()]
    assert every == [(ids[0], "sweep"), (ids[1], "regress"), (ids[2], "sweep")], (
        f"runs() must list every run oldest first with its kind; got {every}")
    sweeps = [r.id for r in store.runs("sweep")]
    assert sweeps == [ids[0], ids[2]], f"runs('sweep') must list only sweeps; got {sweeps}"
    assert [r.id for r in store.runs("suite")] == [], "runs('suite') listed runs of other kinds"


def test_finished_ids_and_sources_belong_to_their_run(store: Store, mutants):
    first = store.begin_run(RunRecord(kind="sweep"))
    second = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(first, mutants[0])
    store.record_mutant(second, mutants[1])
    store.snapshot_source(first, "pkg/a.py", "A = 1\n")
    store.snapshot_source(second, "pkg/b.py", "B = 2\n")
    assert store.finished_ids(first) == {mutants[0].id}, (
        f"finished_ids({first}) must be the mutants of that run only: "
        f"{store.finished_ids(first)}")
    for run_id, mine, other in ((first, "pkg/a.py", "pkg/b.py"),
                                (second, "pkg/b.py", "pkg/a.py")):
        got = store.sources(run_id)
        assert mine in got and other not in got and got[mine] in ("A = 1\n", "B = 2\n"), (
            f"sources({run_id}) must hold that run's snapshot {mine} and not {other}: "
            f"{sorted(got)}")


def test_a_reused_verdict_is_marked_and_names_its_run(store: Store, mutants):
    killed = next(m for m in mutants if m.verdict == "KILLED")
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, killed)
    reused = store.reusable(killed.fingerprint)
    assert reused is not None and reused.reused is True, (
        f"a KILLED verdict with the same fingerprint must come back marked reused: {reused}")
    assert reused.detail.get("reused_from_run") == run_id, (
        f"the reused verdict must name the run it came from ({run_id}): {reused.detail}")
    assert dataclasses.replace(reused, reused=False, detail=killed.detail) == killed, (
        "apart from the reuse marks, the reused record must equal the recorded one")
    again = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(again, reused)
    twice = store.reusable(killed.fingerprint)
    assert twice.detail.get("reused_from_run") == run_id, (
        f"a verdict reused twice must still name the run that judged it ({run_id}), not "
        f"the run that reused it: {twice.detail}")
    assert store.reusable("") is None, "an empty fingerprint matched a stored verdict"


def test_an_unknown_run_is_a_store_error_naming_the_store_and_the_fix(store: Store):
    import pytest

    from deskcheck.errors import StoreError

    with pytest.raises(StoreError) as caught:
        store.run(424242)
    error = caught.value
    assert "no run 424242 in the store" in str(error) and error.location == str(store.path) \
        and "deskcheck history" in (error.fix or ""), (
            f"asking for a run the store does not have must name the run, the store file and "
            f"the fix (`deskcheck history`); got {error} at {error.location}, fix {error.fix!r}")


def test_bad_runs_are_refused_naming_the_store_and_the_fix(store: Store):
    import pytest

    from deskcheck.errors import ConfigError, StoreError

    for run, words, fix in ((RunRecord(kind="nightly"), "unknown run kind 'nightly'",
                             "use one of sweep"),
                            (RunRecord(kind="sweep", tier="CLOUD"),
                             "unknown evidence tier 'CLOUD'", "DESK (CPU, gloo) or METAL")):
        with pytest.raises(ConfigError) as caught:
            store.begin_run(run)
        error = caught.value
        assert words in str(error) and error.location == str(store.path) and \
            fix in (error.fix or ""), (
                f"a run of {run.kind!r}/{run.tier!r} must be refused saying {words!r} at the "
                f"store with the fix {fix!r}; got {error} at {error.location} ({error.fix!r})")
    with pytest.raises(StoreError) as caught:
        store.finish_run(424242, "holds")
    assert caught.value.location == str(store.path) and "deskcheck history" in (
        caught.value.fix or ""), (
            f"finishing an unknown run must name the store and the fix: {caught.value}")
    with pytest.raises(ValueError, match="needs a final status"):
        store.finish_run(store.begin_run(RunRecord(kind="sweep")), "running")


def test_a_store_in_a_new_nested_folder_is_created_and_reopened(tmp_path):
    path = tmp_path / "a" / "b" / "results.sqlite"
    with Store(path) as first:
        run_id = first.begin_run(RunRecord(kind="sweep"))
        assert first.run(run_id).status == "running", "a new run must start as running"
        first.finish_run(run_id, "holds")
    with Store(path) as again:  # the same schema version opens again
        assert again.run(run_id).status == "holds", (
            "reopening a store of this deskcheck's own schema lost the finished run")


def test_the_reused_flag_round_trips(store: Store, mutants):
    reused = dataclasses.replace(mutants[0], reused=True)
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, reused)
    store.record_mutant(run_id, dataclasses.replace(mutants[1], reused=False))
    flags = [m.reused for m in store.mutants(run_id)]
    assert flags == [True, False], f"the reused flag of recorded mutants came back as {flags}"
