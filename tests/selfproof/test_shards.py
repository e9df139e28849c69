"""Sharp arm for shard stability: growing the catalog never moves an existing mutant."""

from __future__ import annotations

from deskcheck.report.shard import select_shard

IDS = [f"{family}.M{i}" for family in ("ballot", "floor", "budget") for i in range(1, 7)]
GROWN = ["aaa.first"] + IDS[:5] + ["zzz.middle"] + IDS[5:] + ["new.M1", "new.M2"]


def _shards(ids: list[str], count: int) -> dict[str, int]:
    return {m: index for index in range(1, count + 1) for m in select_shard(ids, f"{index}/{count}")}


def test_growing_the_catalog_never_moves_a_mutant_to_another_shard():
    for count in (2, 3, 4):
        before, after = _shards(IDS, count), _shards(GROWN, count)
        moved = {m: (before[m], after[m]) for m in IDS if before[m] != after[m]}
        assert not moved, (
            f"shards depend on catalog position: adding mutants moved {moved} "
            f"(mutant: (shard before, shard after) of {count})")
