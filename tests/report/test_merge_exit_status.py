"""docs/report.md, `deskcheck merge`: exit "0 holds, 1 falls short or partial". A merge that
misses a shard is partial even when every mutant it has was killed: it must not pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.shard import select_shard
from deskcheck.report.store import Store


def _killed_shard(root: Path, spec: str, mutants: list[MutantRecord]) -> str:
    path = root / f"shard-{spec.replace('/', '-')}" / "results.sqlite"
    chosen = set(select_shard([m.id for m in mutants], spec))
    with Store(path) as store:
        run_id = store.begin_run(RunRecord(kind="sweep", commit="c0ffee", shard=spec))
        for mutant in mutants:
            if mutant.id in chosen:
                store.record_mutant(run_id, MutantRecord(**{**mutant.to_json(),
                                                            "verdict": "KILLED"}))
        store.finish_run(run_id, "holds")
    return str(path)


@pytest.mark.parametrize(("present", "status"), [((1, 2, 3), 0), ((1, 3), 1)],
                         ids=["every-shard-holds", "a-shard-missing"])
def test_merge_exits_0_only_when_the_merged_run_holds(
        project: Path, mutants: list[MutantRecord], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], present: tuple[int, ...], status: int) -> None:
    shards = [_killed_shard(tmp_path, f"{i}/3", mutants) for i in present]
    code = main(["merge", *shards, "--into", str(tmp_path / "merged.sqlite")])
    said = capsys.readouterr()
    assert code == status, (
        f"merge of shards {present} of 3 (every mutant killed) exited {code}, not {status}: "
        f"0 holds, 1 falls short or partial (a missing shard is partial):\n{said.out}{said.err}")
