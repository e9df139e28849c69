"""A safety failure on ranks that all decided alike has no split, and none is claimed; a
diverged arm's note names one. The folder the ranks record into is removed after, and with
DESKCHECK_RECORD=off there is none (docs/suites.md "The first split")."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from deskcheck.suites import CongruenceArm, KillSwitch, RankPool
from deskcheck.suites.congruence import note_divergence
from deskcheck.suites.decision_log import recording
from deskcheck.suites.recorder import rank_file, record_decisions
from deskcheck.suites.records import read_records


def _admit(rank_input: int) -> int:
    return rank_input


def _recorded_split(folder: Path) -> None:
    """Two ranks that took `if free >= need` two ways (what a recorder leaves)."""
    for rank, (free, took) in enumerate([("3", True), ("1", False)]):
        record = {"n": 1, "c": 0, "file": "model.py", "line": 7, "kind": "if",
                  "condition": "free >= need", "took": took,
                  "inputs": {"free": free, "need": "2"}, "agreed": [], "path": ["admit"]}
        rank_file(folder, rank).write_text(json.dumps(record) + "\n")


@pytest.mark.parametrize(("decisions", "named"), [([2, 2], False), ([1, 2], True)])
def test_a_split_is_named_only_when_the_ranks_decided_differently(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decisions: list[int],
        named: bool) -> None:
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    _recorded_split(tmp_path)
    arm = CongruenceArm("admit", _admit, KillSwitch.from_env("ENFORCE"))
    exc = AssertionError("rank 1 was told to admit 2 with room for 1")
    note_divergence(arm, [3, 1], decisions, exc, types.SimpleNamespace(world=2), tmp_path)
    notes = getattr(exc, "__notes__", [])
    claimed = any("first split" in n for n in notes)
    if named:
        assert claimed, f"the ranks decided {decisions} but no first split was named: {notes}"
    else:
        assert not claimed, (
            f"every rank decided {decisions[0]} (a safety failure on agreeing ranks), yet a "
            f"first split was claimed: {notes}")


def test_the_recording_folder_is_emptied_after_and_removed_with_its_pool(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    pool = RankPool(2)  # not started: recording() only needs to know the ranks are local
    with recording(pool) as folder:
        assert folder is not None and folder.is_dir(), "no recording folder was made"
        with record_decisions(folder, 0, include=[__file__]):
            _fits(5, 2)
        assert read_records(folder, 1) != [[]], "the recording read back no decision"
        before = rank_file(folder, 0).stat()
    kept = rank_file(folder, 0)
    assert kept.exists() and (kept.stat().st_ino, kept.stat().st_size) == (
        before.st_ino, before.st_size), (
        "the rank's file was removed or emptied: its next task's rank must make it anew or "
        "fill it again (a file made on ext4 costs a rank ~0.6 ms of CPU, one emptied in "
        "place a wait on the disk; one appended to ~0.02 ms)")
    assert read_records(folder, 1) == [[]], "what a task recorded was kept for the next one"
    with recording(pool) as again:
        assert again == folder, "each task made a new folder: the pool's one was not reused"
    pool.close()
    assert not folder.exists(), f"the recording folder {folder} was left behind by the pool"


def test_record_off_gives_no_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_RECORD", "off")
    with recording(RankPool(2)) as folder:
        assert folder is None, f"DESKCHECK_RECORD=off still made a recording folder {folder}"



def _fits(free: int, need: int) -> bool:
    if free >= need:
        return True
    return False


def _two_recorded_tasks(pool: RankPool) -> list[tuple[str, object, dict[str, str]]]:
    """Two tasks recorded into the pool's folder (rank 0, in this process); what the second
    reads back."""
    for free in (5, 1):
        with recording(pool) as folder:
            with record_decisions(folder, 0, include=[__file__]):
                _fits(free, 2)
            (records,) = read_records(folder, 1)
    return [(r.condition, r.took, r.inputs) for r in records if r.kind == "if"]


def test_the_next_task_reads_back_its_own_record_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    pool = RankPool(2)  # not started: recording() only needs to know the ranks are local
    try:
        shown = _two_recorded_tasks(pool)
    finally:
        pool.close()
    assert shown == [("free >= need", False, {"free": "1", "need": "2"})], (
        f"the second task's recording read back as {shown}; expected the one if it took "
        "(free=1, need=2): only its own record, with the sites the file's first record wrote")


def test_a_rank_file_past_its_size_is_emptied_and_its_next_record_reads_back_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from deskcheck.suites import decision_log

    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    monkeypatch.setattr(decision_log, "REFILL_AT", 0)
    pool = RankPool(2)  # not started: recording() only needs to know the ranks are local
    try:
        shown = _two_recorded_tasks(pool)
        size = rank_file(pool.decision_folder, 0).stat().st_size
    finally:
        pool.close()
    assert size == 0, f"a rank file past REFILL_AT (0 bytes) kept {size} bytes after clear"
    assert shown == [("free >= need", False, {"free": "1", "need": "2"})], (
        f"the recording after the file was emptied read back as {shown}; expected the one if "
        "it took (free=1, need=2): an emptied file must get its table of sites again")


def test_a_folder_made_anew_under_an_old_name_is_read_from_its_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deskcheck.suites import decision_log
    from deskcheck.suites.records import start_after

    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    reused = tmp_path / "deskcheck-w-decisions-same"
    start_after(rank_file(reused, 0), 10)  # where an earlier folder of that name ended
    monkeypatch.setattr(decision_log, "make_scratch", lambda _prefix: reused.mkdir() or reused)
    pool = RankPool(2)  # not started: recording() only needs to know the ranks are local
    try:
        with recording(pool) as folder:
            with record_decisions(folder, 0, include=[__file__]):
                _fits(1, 2)
            (records,) = read_records(folder, 1)
    finally:
        pool.close()
    shown = [(r.condition, r.took) for r in records if r.kind == "if"]
    assert shown == [("free >= need", False)], (
        f"a new folder under an old folder's name read back {shown}: it must be read from "
        "its start, not from where the old folder's file ended")
