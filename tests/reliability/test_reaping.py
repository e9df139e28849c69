"""The next sweep removes what a sweep (or a mutant child's rank pool) killed with SIGKILL
left, and only that: a live owner's folder and an unmarked folder are never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.mutants.runner import Runner
from deskcheck.scratch import OWNER_FILE, make_scratch


def _dead(folder: Path) -> Path:
    folder.mkdir()
    (folder / OWNER_FILE).write_text(json.dumps({"pid": 999_999_999, "token": ""}))
    return folder


def test_a_new_sweep_reaps_dead_owners_scratch_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    dead_sweep = _dead(tmp_path / "deskcheck-sweep-killed")
    dead_pool = _dead(tmp_path / "deskcheck-w2-gloo-killed")
    live = make_scratch("deskcheck-sweep-")  # owned by this (live) process
    unmarked = tmp_path / "deskcheck-sweep-not-ours"
    unmarked.mkdir()
    runner = Runner(1)
    try:
        assert Path(runner.scratch).parent == tmp_path, "DESKCHECK_SCRATCH_DIR was not honoured"
        assert not dead_sweep.exists(), "the scratch of a sweep killed with SIGKILL was kept"
        assert not dead_pool.exists(), "the rank-pool folder of a killed child was kept"
        assert live.is_dir(), "a live sweep's scratch folder was removed"
        assert unmarked.is_dir(), "a folder without an owner marker was removed"
    finally:
        runner.close()
    assert not Path(runner.scratch).exists(), "the sweep's own scratch outlived it"
