"""Item 9: with a full disk, a scratch folder whose owner marker was never renamed into
place (only ``.owner.json.tmp``) is reaped by the next sweep once its writer is gone, and
making a scratch folder that cannot be marked leaves no folder at all."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

import deskcheck.scratch as scratch
from deskcheck.mutants.runner import Runner
from tests.reliability.battery import Bench


def _folder(root: Path, name: str, marker: str, text: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / marker).write_text(text)
    return folder


def test_folders_with_only_an_unfinished_marker_are_reaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    empty = _folder(tmp_path, "deskcheck-w2-gloo-full", ".owner.json.tmp", "")
    dead = _folder(tmp_path, "deskcheck-sweep-full", ".owner.json.tmp",
                   json.dumps({"pid": 999_999_999, "token": ""}))
    named = _folder(tmp_path, "deskcheck-w2-gloo-named", ".owner.json.tmp.999999999", "")
    mine = _folder(tmp_path, "deskcheck-w2-gloo-mine", f".owner.json.tmp.{os.getpid()}", "")
    runner = Runner(1)
    try:
        for folder in (empty, dead, named):
            assert not folder.exists(), (
                f"{folder.name}: a folder holding only an unfinished owner marker of a dead "
                "writer was not reaped")
        assert mine.is_dir(), "a folder whose (live) owner is still writing its marker was reaped"
    finally:
        runner.close()


def test_a_folder_that_cannot_be_marked_is_not_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))

    def disk_full(folder: Path, pid: int | None = None) -> None:
        (folder / ".owner.json.tmp.1").write_text("")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(scratch, "mark_owner", disk_full)
    with pytest.raises(OSError):
        scratch.make_scratch("deskcheck-sweep-")
    assert not list(tmp_path.iterdir()), (
        f"a scratch folder was left after its marker failed: {list(tmp_path.iterdir())}")


def test_a_sweep_leaves_no_folder_a_full_disk_left_half_marked(bench: Bench) -> None:
    """End to end, in the battery's private TMPDIR: eight rank-pool folders that a full disk
    left holding only an unfinished marker (the old unnamed ``.owner.json.tmp``, and one
    named after a dead writer) are gone after the next sweep: the bench's own check finds
    the TMPDIR empty."""
    for n in range(8):
        folder = bench.tmpdir / f"deskcheck-w2-gloo-full{n}"
        folder.mkdir()
        (folder / (".owner.json.tmp" if n else ".owner.json.tmp.999999999")).write_text("")
    done = bench.run("sweep", "--workers", "1", "--no-store")
    assert done.returncode == 0, f"the sweep should hold:\n{done.stdout}{done.stderr}"
    left = sorted(p.name for p in bench.tmpdir.iterdir())
    assert not left, f"folders holding only an unfinished owner marker were left: {left}"
