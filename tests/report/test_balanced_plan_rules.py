"""The duration-balanced shard plan's rules (docs/report.md, *Shards*; report/shard.py): at
least one shard, a known duration is any positive one (sub-second mutants count), no known
duration at all is a split by count, the plan's digest is the same on every machine and
version (shard jobs compare it); and a mutant fingerprint given its owners' digests reads no
owner file (report/fingerprint.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.report.fingerprint import mutant_fingerprint
from deskcheck.report.shard import balanced_shards, plan_digest


def test_a_plan_needs_at_least_one_shard_and_one_shard_holds_everything() -> None:
    with pytest.raises(ValueError, match="shard count must be at least 1, got 0"):
        balanced_shards(["a"], 0, {})
    assert balanced_shards(["a", "b"], 1, {"a": 2.0}) == {"a": 1, "b": 1}, (
        "a plan of one shard must put every mutant in shard 1")


def test_sub_second_durations_are_known_and_set_the_median_of_the_unknown() -> None:
    placed = balanced_shards(["a", "b", "c"], 2, {"a": 0.5, "b": 0.5})
    assert placed == {"a": 1, "b": 2, "c": 1}, (
        f"two mutants of 0.5 s are known durations: the unknown c costs their median (0.5 s) "
        f"and the three alternate by name (a 1, b 2, c 1); got {placed}")


def test_no_known_duration_is_a_split_by_count() -> None:
    placed = balanced_shards(["a", "b", "c", "d"], 2, {"a": 0, "b": -1})
    assert placed == {"a": 1, "b": 2, "c": 1, "d": 2}, (
        f"with no positive duration every mutant costs one and they alternate; got {placed}")


def test_the_plan_digest_is_pinned() -> None:
    got = plan_digest({"b": 2, "a": 1, "c": 1})
    assert got == "8de3726a92ad", (
        f"the digest of a plan is compared across shard jobs (other machines, other "
        f"deskcheck versions): the same plan must give 8de3726a92ad (sha256 of its sorted "
        f"(id, shard) pairs as compact JSON); got {got}")


def test_given_digests_no_owner_file_is_read(tmp_path: Path) -> None:
    def unread(path: Path) -> str:
        raise AssertionError(f"{path} was read although its digest was given")

    given = mutant_fingerprint({"id": "m"}, "def f(): pass", [tmp_path / "test_gone.py"], "1",
                               digest=unread, file_digests=["d1"])
    again = mutant_fingerprint({"id": "m"}, "def f(): pass", [tmp_path / "test_gone.py"], "1",
                               digest=lambda p: "d1")
    assert given == again, (
        "a fingerprint given the owners' digests must equal the one computed from the files")
