"""Shards balanced by recorded durations (issue 13): deterministic, a partition, the slowest
shard near the mean, unknown mutants as the median, and merge refusing mixed plans."""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest

from deskcheck.errors import StoreError
from deskcheck.report.merge import merge_stores
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.shard import (
    balanced_shards,
    select_balanced,
    select_shard,
    shard_of,
    split_label,
)
from deskcheck.report.store import Store


def _skewed(count: int, seed: int = 7) -> dict[str, float]:
    """A catalog's durations: most mutants ~30 ms, a tenth of them seconds (gloo owners)."""
    rng = random.Random(seed)
    return {f"m{n:03d}": (rng.uniform(2.0, 6.0) if n % 10 == 0 else rng.uniform(0.02, 0.05))
            for n in range(count)}


def _loads(placed: dict[str, int], durations: dict[str, float], count: int) -> list[float]:
    loads = [0.0] * count
    for mutant_id, shard in placed.items():
        loads[shard - 1] += durations[mutant_id]
    return loads


@pytest.mark.parametrize("count", [2, 4, 8])
def test_the_slowest_shard_is_within_1_3x_of_the_mean(count: int) -> None:
    durations = _skewed(120)
    placed = balanced_shards(durations, count, durations)
    loads = _loads(placed, durations, count)
    mean = statistics.mean(loads)
    assert max(loads) <= 1.3 * mean, (
        f"{count} shards by duration: the slowest takes {max(loads):.2f} s against a mean of "
        f"{mean:.2f} s (over 1.3x), loads {[round(x, 2) for x in loads]}")
    by_count = _loads({i: shard_of(i, count) for i in durations}, durations, count)
    assert max(loads) <= max(by_count), (
        f"balancing by duration must not be worse than the hash split: {max(loads):.2f} s vs "
        f"{max(by_count):.2f} s")


def test_the_plan_is_a_deterministic_partition() -> None:
    durations = _skewed(60)
    ids = list(durations)
    first = balanced_shards(ids, 4, durations)
    again = balanced_shards(list(reversed(ids)), 4, dict(reversed(durations.items())))
    assert first == again, "the plan must not depend on the order ids or durations arrive in"
    parts = [select_balanced(ids, f"{i}/4", durations)[0] for i in range(1, 5)]
    flat = [m for part in parts for m in part]
    assert sorted(flat) == sorted(ids) and len(flat) == len(set(flat)), (
        "the four shards together must hold every mutant exactly once")
    assert all(part == [m for m in ids if m in set(part)] for part in parts), (
        "each shard keeps the catalog order")


def test_unknown_mutants_count_as_the_median_and_none_known_splits_by_count() -> None:
    durations = {"x": 4.0, "y": 4.0, "z": 4.0}
    placed = balanced_shards(["x", "y", "z", "new1", "new2", "new3"], 2, durations)
    sizes = sorted(list(placed.values()).count(n) for n in (1, 2))
    assert sizes == [3, 3], (
        f"three new mutants must be spread as if each took the median 4 s (3 and 3), not "
        f"piled on the lighter shard as if free or as if 1 s: {placed}")
    durations = {"slow": 10.0, **{f"k{n}": 1.0 for n in range(4)}}
    placed = balanced_shards([*durations, *(f"new{n}" for n in range(4))], 2, durations)
    alone = [i for i, shard in placed.items() if shard == placed["slow"]]
    assert alone == ["slow"], (
        "a mutant never measured counts as the median of the measured ones (docs/report.md:141):"
        " with 10 s, 1 s x4 measured, four new ones cost 1 s each and all fit beside the 1 s "
        f"ones, leaving the 10 s mutant alone; its shard holds {sorted(alone)}: {placed}")
    ids = [f"m{n}" for n in range(10)]
    chosen, label = select_balanced(ids, "2/3", {})
    assert chosen == select_shard(ids, "2/3") and label == "2/3", (
        f"with no recorded duration the plan is the hash split, labelled plainly: {label!r}")
    _, label = select_balanced(ids, "2/3", {"m1": 0.5})
    spec, plan = split_label(label)
    assert spec == "2/3" and len(plan) == 12, f"a duration plan is named in the label: {label!r}"


def test_the_store_gives_the_newest_measured_duration_per_mutant(tmp_path: Path) -> None:
    with Store(tmp_path / "results.sqlite") as store:
        for seconds, reused in ((3.0, False), (5.0, False), (0.1, True)):
            run = store.begin_run(RunRecord(kind="sweep"))
            store.record_mutant(run, MutantRecord(id="m", title="", target="a:b", operator="",
                                                  verdict="KILLED", duration_s=seconds,
                                                  reused=reused))
        other = store.begin_run(RunRecord(kind="auto"))
        store.record_mutant(other, MutantRecord(id="m", title="", target="a:b", operator="",
                                                verdict="KILLED", duration_s=9.0))
        found = store.mutant_durations("sweep")
    assert found == {"m": 5.0}, (
        f"the newest sweep run that ran m measured 5 s (a reused verdict measures nothing, "
        f"an auto run is another kind): {found}")


def _shard_store(folder: Path, label: str, ids: list[str]) -> Path:
    path = folder / "results.sqlite"
    with Store(path) as store:
        run = store.begin_run(RunRecord(kind="sweep", commit="c0", config_fingerprint="f",
                                        shard=label))
        for mutant_id in ids:
            store.record_mutant(run, MutantRecord(id=mutant_id, title="", target="a:b",
                                                  operator="", verdict="KILLED"))
        store.finish_run(run, "holds")
    return path


def test_merge_takes_balanced_shards_and_refuses_shards_that_planned_differently(
        tmp_path: Path) -> None:
    durations = _skewed(20)
    ids = list(durations)
    parts = [select_balanced(ids, f"{i}/2", durations) for i in (1, 2)]
    paths = [_shard_store(tmp_path / f"s{i}", label, chosen)
             for i, (chosen, label) in enumerate(parts)]
    with Store(tmp_path / "into.sqlite") as into:
        run = into.run(merge_stores(paths, into))
        assert run.status == "holds" and run.summary["missing_shards"] == [], (
            f"two balanced shards of one plan merge into a complete run: {run.summary}")
    by_count = _shard_store(tmp_path / "c", "2/2", select_shard(ids, "2/2"))
    with Store(tmp_path / "into2.sqlite") as into, pytest.raises(
            StoreError, match="shards planned differently") as caught:
        merge_stores([paths[0], by_count], into)
    assert "same store" in caught.value.render(), "the error must say how to fix it"


def test_the_nightly_plans_every_shard_from_one_durations_store() -> None:
    import yaml

    from deskcheck.report.workflows import build_workflows
    from tests.report.test_init import NIGHTLY, full_shape

    nightly = build_workflows(full_shape(Path("."))).files[NIGHTLY]
    jobs = yaml.safe_load(nightly or "")["jobs"]
    sweep_steps = "\n".join(str(s.get("run", "")) for s in jobs["sweep"]["steps"])
    assert "--durations-from durations/results.sqlite" in sweep_steps, (
        "each shard job must balance by the durations store the 'durations' job fetched")
    assert jobs["sweep"]["needs"] == "durations", (
        "the shards must wait for the one durations store, so all of them plan from it")
    uploads = [s for s in jobs["durations"]["steps"]
               if s.get("with", {}).get("name") == "deskcheck-durations"]
    assert uploads, "the durations job must hand last night's store to the shards"
    merge = jobs["merge"]["steps"]
    build = [n for n, s in enumerate(merge)
             if "deskcheck auto --build-coverage-map" in str(s.get("run", ""))]
    store = [n for n, s in enumerate(merge) if s.get("with", {}).get("name") == "deskcheck-store"]
    assert build and store and build[0] < store[0], (
        "the nightly must build the coverage map before it uploads the store it travels in")


def test_a_missing_durations_store_is_a_usage_error(tmp_path: Path, capsys) -> None:
    from deskcheck.cli import main

    catalog = Path(__file__).parents[2] / "examples" / "tp_scheduler" / "mutants.toml"
    code = main(["sweep", "--catalog", str(catalog), "--shard", "1/2", "--no-store",
                 "--durations-from", str(tmp_path / "none.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and "no such store" in err and "none.sqlite" in err, (
        f"--durations-from naming no file must stop before sweeping, naming it: {code} {err}")
