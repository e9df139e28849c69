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
    assert resolve_run(store, "latest") == ids[2], (
        f"'latest' must resolve to the newest run {ids[2]}; it gave {resolve_run(store, 'latest')}"
    )
    assert resolve_run(store, None) == ids[2], (
        f"no selector must mean the newest run {ids[2]}; it gave {resolve_run(store, None)}"
    )
    assert resolve_run(store, "latest~1") == ids[1], (
        f"'latest~1' must resolve to the run before the newest, {ids[1]}; it gave "
        f"{resolve_run(store, 'latest~1')}"
    )
    assert resolve_run(store, "latest~1", kind="sweep") == ids[0], (
        f"'latest~1' of kind sweep must skip the redfirst run and give {ids[0]}; it gave "
        f"{resolve_run(store, 'latest~1', kind='sweep')}"
    )
    assert resolve_run(store, str(ids[1])) == ids[1], (
        f"a run id {ids[1]} must resolve to itself; it gave {resolve_run(store, str(ids[1]))}"
    )
    with pytest.raises(StoreError, match="only 2 sweep runs"):
        resolve_run(store, "latest~2", kind="sweep")
    with pytest.raises(StoreError, match="bad run selector 'yesterday'") as caught:
        resolve_run(store, "yesterday")
    assert "latest~N" in caught.value.render(), (
        f"a bad run selector must show the form latest~N; it says {caught.value.render()!r}"
    )
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
    assert [c.id for c in diff.new_survivors] == ["ballot.M1"], (
        "diff must name ballot.M1 (KILLED -> SURVIVED) as the only new survivor; it named "
        f"{[c.id for c in diff.new_survivors]}"
    )
    assert [c.id for c in diff.fixed_survivors] == ["ballot.M2"], (
        "diff must name ballot.M2 (SURVIVED -> KILLED) as the only fixed survivor; it named "
        f"{[c.id for c in diff.fixed_survivors]}"
    )
    assert [(c.id, c.before, c.after) for c in diff.verdict_changes] == [
        ("ballot.M1", "KILLED", "SURVIVED"), ("ballot.M2", "SURVIVED", "KILLED"),
        ("ballot.M6", "KILLED", None), ("congruence.M1", "TIMEOUT", "KILLED"),
        ("congruence.M3", None, "BASELINE_RED")], (
        "diff must list every verdict change in id order; it listed "
        f"{[(c.id, c.before, c.after) for c in diff.verdict_changes]}"
    )
    assert diff.added == ["congruence.M3"] and diff.removed == ["ballot.M6"], (
        f"diff must call congruence.M3 added and ballot.M6 removed; it says added {diff.added}, "
        f"removed {diff.removed}"
    )
    assert [c.id for c in diff.regressions] == ["ballot.M1", "congruence.M3"], (
        "the regressions must be the new survivor ballot.M1 and the new BASELINE_RED "
        f"congruence.M3; they are {[c.id for c in diff.regressions]}"
    )
    assert diff.got_worse, "a night with a new survivor must count as got worse"
    text = render_diff_text(diff)
    assert "ballot.M1: KILLED -> SURVIVED" in text and "got worse" in text, (
        "the diff text must show 'ballot.M1: KILLED -> SURVIVED' and say 'got worse'; it is: "
        f"{text!r}"
    )


def test_an_unchanged_night_did_not_get_worse(store: Store, recorded_run: int, mutants):
    again = store.begin_run(RunRecord(kind="sweep"))
    for mutant in mutants:
        store.record_mutant(again, mutant)
    diff = diff_stored_runs(store, recorded_run, again)
    assert not diff.got_worse and not diff.verdict_changes and not diff.new_survivors, (
        f"a night with no changes must not get worse; got_worse={diff.got_worse}, changes "
        f"{diff.verdict_changes}, new survivors {diff.new_survivors}"
    )


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
        assert sorted(m.id for m in merged) == sorted(m.id for m in mutants), (
            "the merged run must hold every mutant of the 3 shards; it holds "
            f"{sorted(m.id for m in merged)}"
        )
        assert {m.id: m for m in merged} == {m.id: m for m in mutants}, (
            "a merged mutant record differs from the one its shard recorded"
        )
        assert run.status == "falls_short" and run.shard == "" and run.commit == "c0ffee", (
            "the merged run must fall short (it has survivors), have no shard, and keep the "
            f"commit c0ffee; it is {run.status!r}, shard {run.shard!r}, commit {run.commit!r}"
        )
        assert run.summary["missing_shards"] == [] and len(run.summary["merged_from"]) == 3, (
            f"a merge of all 3 shards must miss none and name 3 sources; summary {run.summary}"
        )
        assert into.sources(run_id)[BALLOT_FILE] == BALLOT_SOURCE, (
            "the merged run lost the recorded source of the ballot file"
        )


def test_merge_with_a_missing_shard_is_partial(project: Path, mutants, tmp_path: Path):
    shards = [_shard_store(tmp_path, f"{i}/3", mutants) for i in (1, 3)]
    with Store.for_project(project) as into:
        run = into.run(merge_stores(shards, into))
    assert run.status == "partial" and run.summary["missing_shards"] == ["2/3"], (
        f"a merge without shard 2/3 must be partial and name it missing; it is {run.status!r}, "
        f"missing {run.summary.get('missing_shards')}"
    )


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
        assert into.runs() == [], (
            f"a refused merge must record no run; the store has {into.runs()}"
        )  # nothing half-merged


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


def test_merge_refuses_stores_of_another_configuration(project, mutants, tmp_path):
    first = _shard_store(tmp_path / "a", "1/2", mutants, config="cfg-one")
    second = _shard_store(tmp_path / "b", "2/2", mutants, config="cfg-two")
    said = "(merged without an error)"
    with Store.for_project(project) as into:
        try:
            merge_stores([first, second], into)
        except StoreError as refused:
            said = refused.render()
    assert "config_fingerprint 'cfg-two'" in said and "same commit and configuration" in said, (
        "docs/report.md: merge checks the stores are shards of one sweep (same commit and "
        f"config); shards of two configurations must be refused naming it, it said {said!r}")
    with Store.for_project(project) as into:
        assert into.runs() == [], f"a refused merge recorded {into.runs()}"


def test_merge_accepts_the_shards_of_one_configuration(project, mutants, tmp_path):
    first = _shard_store(tmp_path / "a", "1/2", mutants, config="cfg-one")
    second = _shard_store(tmp_path / "b", "2/2", mutants, config="cfg-one")
    with Store.for_project(project) as into:
        run_id = merge_stores([first, second], into)
        run = into.run(run_id)
    assert run.config_fingerprint == "cfg-one", (
        f"the merged run of two shards of config cfg-one has config {run.config_fingerprint!r}")


@pytest.mark.parametrize(("before", "after", "worse"), [
    ("KILLED", "TIMEOUT", True), ("ACCEPTED_SURVIVOR", "BROKEN", True), (None, "STALE", True),
    ("TIMEOUT", "BROKEN", False), ("KILLED", None, False), ("TIMEOUT", "KILLED", False)])
def test_a_night_got_worse_when_a_held_or_new_mutant_no_longer_holds(mutants, before, after,
                                                                     worse):
    mutant = next(m for m in mutants if m.id == "ballot.M1")
    last_night = [_with(mutant, before)] if before else []
    tonight = [_with(mutant, after)] if after else []
    diff = diff_runs(1, last_night, 2, tonight)
    assert diff.got_worse is worse, (
        f"docs/report.md: diff exits 1 when B got worse than A (a mutant held in A, or new in "
        f"B, that does not hold in B); {before} -> {after} gave got_worse={diff.got_worse}, "
        f"expected {worse}")
