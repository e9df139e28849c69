"""The first split under both start methods and at world 2 and 3: each rank's instrumented
copies are built in the rank process itself (fork inherits the parent's modules, spawn imports
them anew), the split names the decision with every rank's way and values, and nothing is
left behind: no rank process, no scratch folder (the pool's decision folder goes with it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.suites import _split_decisions as S
from tests.suites._procs import child_pids

pytest.importorskip("torch.distributed")

HERE = Path(S.__file__)


@pytest.mark.xdist_group("deskcheck-suites-hang")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.parametrize("world", [2, 3])
def test_a_diverged_arm_names_its_split_and_leaves_nothing_behind(
        start_method: str, world: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deskcheck.errors import CongruenceError
    from deskcheck.suites import RankPool, check_arm

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    before = child_pids()
    with RankPool(world, "gloo", start_method=start_method) as pool:
        with pytest.raises(CongruenceError) as caught:
            check_arm(S.ADMIT_LOCAL, [3] + [1] * (world - 1), pool)
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    where = f"{os.path.relpath(HERE)}:{S.line_of('ADMIT-DECISION')} in Admitter.admit"
    assert f"first split: {where}: if free >= need" in notes, \
        f"{start_method}, world {world}: the split must name {where}; notes:\n{notes}"
    ways = ["rank 0: true (free=3, need=2)"] + \
        [f"rank {r}: false (free=1, need=2)" for r in range(1, world)]
    missing = [w for w in ways if w not in notes]
    assert not missing, f"{start_method}, world {world}: ranks' ways missing {missing}:\n{notes}"
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("deskcheck-w"))
    assert not left, f"{start_method}, world {world}: scratch folders left behind: {left}"
    alive = child_pids() - before
    assert not alive, f"{start_method}, world {world}: rank processes left behind: {alive}"
