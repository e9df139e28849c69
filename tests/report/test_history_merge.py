"""History selectors, run diffs and merging shard stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import StoreError
from deskcheck.report.history import diff_runs, diff_stored_runs, render_diff_text, resolve_run
from deskcheck.report.merge import merge_stores
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.shard import select_shard
from deskcheck.report.store import Store

from .sample_records import BALLOT_FILE, BALLOT_SOURCE


def _with(mutant: MutantRecord, verdict: str) -> MutantRecord:
    return MutantRecord(**{**mutant.to_json(), "verdict": verdict})


def test_resolve_run_selectors(store: Store):
    ids = [store.begin_run(RunRecord(kind=k)) for k in ("sweep", "redfirst", "sweep")]
    assert resolve_run(store, "latest") == ids[2]
    assert resolve_run(store, None) == ids[2]
    assert resolve_run(store, "latest~1") == ids[1]
    assert resolve_run(store, "latest~1", kind="sweep") == ids[0]
    assert resolve_run(store, str(ids[1])) == ids[1]
    with pytest.raises(StoreError, match="only 2 sweep runs"):
        resolve_run(store, "latest~2", kind="sweep")
    with pytest.raises(StoreError, match="bad run selector 'yesterday'") as caught:
        resolve_run(store, "yesterday")
    assert "latest~N" in caught.value.render()
    with pytest.raises(StoreError, match="no run 99"):
        resolve_run(store, "99")


def test_diff_names_new_and_fixed_survivors_and_every_change(mutants):
    by_id = {m.id: m for m in mutants}
    last_night = [by_id["ballot.M1"], by_id["ballot.M2"], by_id["ballot.M3"],
                  by_id["ballot.M6"], by_id["congruence.M1"]]
    tonight = [_with(by_id["ballot.M1"], "SURVIVED"),      # a kill became a survivor
               _with(by_id["ballot.M2"], "KILLED"),        # a survivor was fixed
               by_id["ballot.M3"],                         # still OWNER_MISSED: no change
               _with(by_id["congruence.M1"], "KILLED"),    # timeout fixed
               by_id["congruence.M3"]]                     # new, BASELINE_RED
    diff = diff_runs(1, last_night, 2, tonight)
    assert [c.id for c in diff.new_survivors] == ["ballot.M1"]
    assert [c.id for c in diff.fixed_survivors] == ["ballot.M2"]
    assert [(c.id, c.before, c.after) for c in diff.verdict_changes] == [
        ("ballot.M1", "KILLED", "SURVIVED"), ("ballot.M2", "SURVIVED", "KILLED"),
        ("ballot.M6", "KILLED", None), ("congruence.M1", "TIMEOUT", "KILLED"),
        ("congruence.M3", None, "BASELINE_RED")]
    assert diff.added == ["congruence.M3"] and diff.removed == ["ballot.M6"]
    assert [c.id for c in diff.regressions] == ["ballot.M1", "congruence.M3"]
    assert diff.got_worse
    text = render_diff_text(diff)
    assert "ballot.M1: KILLED -> SURVIVED" in text and "got worse" in text


def test_an_unchanged_night_did_not_get_worse(store: Store, recorded_run: int, mutants):
    again = store.begin_run(RunRecord(kind="sweep"))
    for mutant in mutants:
        store.record_mutant(again, mutant)
    diff = diff_stored_runs(store, recorded_run, again)
    assert not diff.got_worse and not diff.verdict_changes and not diff.new_survivors


# -- merge ----------------------------------------------------------------------------------


def _shard_store(root: Path, spec: str, mutants, *, commit="c0ffee", config="cfg") -> Path:
    path = root / f"shard-{spec.replace('/', '-')}" / "results.sqlite"
    with Store(path) as store:
        run_id = store.begin_run(RunRecord(kind="sweep", commit=commit, config_fingerprint=config,
                                           shard=spec, tier="DESK"))
        chosen = set(select_shard([m.id for m in mutants], spec)) if spec else None
        for mutant in mutants:
            if chosen is None or mutant.id in chosen:
                store.snapshot_source(run_id, BALLOT_FILE, BALLOT_SOURCE)
                store.record_mutant(run_id, mutant)
        store.finish_run(run_id, "falls_short")
    return path


def test_merge_combines_every_shard_into_one_run(project: Path, mutants, tmp_path: Path):
    shards = [_shard_store(tmp_path, f"{i}/3", mutants) for i in (1, 2, 3)]
    with Store.for_project(project) as into:
        run_id = merge_stores(shards, into)
        merged = into.mutants(run_id)
        run = into.run(run_id)
        assert sorted(m.id for m in merged) == sorted(m.id for m in mutants)
        assert {m.id: m for m in merged} == {m.id: m for m in mutants}
        assert run.status == "falls_short" and run.shard == "" and run.commit == "c0ffee"
        assert run.summary["missing_shards"] == [] and len(run.summary["merged_from"]) == 3
        assert into.sources(run_id)[BALLOT_FILE] == BALLOT_SOURCE


def test_merge_with_a_missing_shard_is_partial(project: Path, mutants, tmp_path: Path):
    shards = [_shard_store(tmp_path, f"{i}/3", mutants) for i in (1, 3)]
    with Store.for_project(project) as into:
        run = into.run(merge_stores(shards, into))
    assert run.status == "partial" and run.summary["missing_shards"] == ["2/3"]


@pytest.mark.parametrize(("specs", "kwargs", "message"), [
    (["1/2", "1/2"], {}, "shard 1/2 appears twice"),
    (["1/2", "2/3"], {}, "shards of different sizes"),
    (["1/2", ""], {}, "some stores are shards and some are not"),
])
def test_merge_refuses_shards_that_do_not_belong_together(project, mutants, tmp_path, specs,
                                                          kwargs, message):
    paths = []
    for n, spec in enumerate(specs):
        folder = tmp_path / f"p{n}"
        paths.append(_shard_store(folder, spec, mutants, **kwargs))
    with Store.for_project(project) as into, pytest.raises(StoreError, match=message):
        merge_stores(paths, into)
    with Store.for_project(project) as into:
        assert into.runs() == []  # nothing half-merged


def test_merge_refuses_stores_of_another_commit(project, mutants, tmp_path):
    first = _shard_store(tmp_path / "a", "1/2", mutants, commit="aaaa")
    second = _shard_store(tmp_path / "b", "2/2", mutants, commit="bbbb")
    with Store.for_project(project) as into, pytest.raises(StoreError, match="commit 'bbbb'"):
        merge_stores([first, second], into)


def test_merge_refuses_conflicting_verdicts_and_missing_files(project, mutants, tmp_path):
    first = _shard_store(tmp_path / "a", "", mutants[:2])
    second = _shard_store(tmp_path / "b", "", [_with(mutants[0], "SURVIVED")])
    with Store.for_project(project) as into:
        with pytest.raises(StoreError, match="ballot.M1 is KILLED in .* but SURVIVED"):
            merge_stores([first, second], into)
        with pytest.raises(StoreError, match="no store at"):
            merge_stores([tmp_path / "nowhere.sqlite"], into)
