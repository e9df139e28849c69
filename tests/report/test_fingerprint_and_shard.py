"""Incremental fingerprints and deterministic shards."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskcheck.errors import ConfigError
from deskcheck.report.fingerprint import config_fingerprint, mutant_fingerprint
from deskcheck.report.shard import parse_shard, select_shard, shard_of

DEFINITION = {"id": "ballot.M2", "title": "recovery edge disabled",
              "target": "tp_scheduler.prefetch_ballot:advance_mismatch_streak",
              "operator": "replace", "find": 'return 0, total, "recovered"',
              "with": "return 0, total, None", "owners": ["tests/test_ballot.py::test_edge"]}
TARGET = "def advance_mismatch_streak(streak, total, mismatch):\n    return 0, total, None\n"


@pytest.fixture
def owner_files(tmp_path: Path) -> list[Path]:
    first, second = tmp_path / "test_ballot.py", tmp_path / "conftest.py"
    first.write_text("def test_edge():\n    assert True\n")
    second.write_text("import pytest\n")
    return [first, second]


def test_fingerprint_is_stable_and_ignores_order_and_key_order(owner_files):
    base = mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0")
    again = mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0")
    assert len(base) == 64 and base == again, (
        f"the same inputs gave two fingerprints ({base} then {again}), or not a sha256 hex "
        "digest: a verdict could never be reused")
    shuffled = dict(reversed(list(DEFINITION.items())))
    reordered = mutant_fingerprint(shuffled, TARGET, list(reversed(owner_files)), "0.1.0")
    assert reordered == base, (
        "reordering the definition's keys and the owner files changed the fingerprint "
        f"({base} became {reordered}): the same mutant would be run again for nothing")


def test_fingerprint_ignores_where_the_checkout_lives(owner_files, tmp_path: Path):
    base = mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0")
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    copies = []
    for path in owner_files:
        copy = moved / path.name
        copy.write_bytes(path.read_bytes())
        copies.append(copy)
    moved_fp = mutant_fingerprint(DEFINITION, TARGET, copies, "0.1.0")
    assert moved_fp == base, (
        f"the same owner files in another folder changed the fingerprint ({base} became "
        f"{moved_fp}): a CI checkout could never reuse a laptop's verdict")


def test_each_input_changes_the_fingerprint(owner_files):
    base = mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0")
    changed_definition = {**DEFINITION, "with": "return 0, total, 'onset'"}
    changes = {
        "the mutant's definition": (changed_definition, TARGET, owner_files, "0.1.0"),
        "the target function's source": (DEFINITION, TARGET + "    # note\n", owner_files,
                                         "0.1.0"),
        "deskcheck's version": (DEFINITION, TARGET, owner_files, "0.2.0"),
        "the set of owner files": (DEFINITION, TARGET, owner_files[:1], "0.1.0"),
    }
    for what, args in changes.items():
        assert mutant_fingerprint(*args) != base, (
            f"changing {what} left the fingerprint {base} unchanged: a stale verdict would "
            "be reused")
    owner_files[0].write_text("def test_edge():\n    assert False\n")
    assert mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0") != base, (
        f"editing an owner file's text left the fingerprint {base} unchanged: a stale verdict "
        "would be reused")


def test_a_missing_owner_file_is_part_of_the_fingerprint(owner_files, tmp_path: Path):
    base = mutant_fingerprint(DEFINITION, TARGET, owner_files, "0.1.0")
    missing = mutant_fingerprint(DEFINITION, TARGET, [*owner_files, tmp_path / "gone.py"],
                                 "0.1.0")
    assert missing != base, (
        f"an owner file that no longer exists left the fingerprint {base} unchanged: a verdict "
        "of a deleted owner would be reused")


def test_unencodable_definition_is_refused():
    with pytest.raises(TypeError, match="cannot fingerprint a object"):
        mutant_fingerprint({"id": object()}, TARGET, [], "0.1.0")


def test_config_fingerprint_follows_config_and_files(owner_files):
    base = config_fingerprint({"catalog": "mutants.toml"}, owner_files[0])
    again = config_fingerprint({"catalog": "mutants.toml"}, owner_files[0])
    assert base == again, f"the same config gave two fingerprints: {base} then {again}"
    assert base != config_fingerprint({"catalog": "other.toml"}, owner_files[0]), (
        f"another catalog setting left the config fingerprint {base} unchanged: an "
        "interrupted run of another config would be resumed")
    owner_files[0].write_text("# edited catalog\n")
    assert base != config_fingerprint({"catalog": "mutants.toml"}, owner_files[0]), (
        f"editing the config file left the config fingerprint {base} unchanged: an "
        "interrupted run of the old config would be resumed")


# -- shards ---------------------------------------------------------------------------------

IDS = [f"{family}.M{i}" for family in ("ballot", "congruence", "floor", "budget")
       for i in range(1, 9)]


def test_shard_of_is_a_pure_function_of_the_id():
    assert [shard_of(i, 4) for i in IDS] == [shard_of(i, 4) for i in IDS], (
        "shard_of gave different shards for the same ids on two calls: it must be a pure function "
        "of the id"
    )
    assert all(1 <= shard_of(i, 4) <= 4 for i in IDS), (
        f"shard_of must give a shard in 1..4; it gave {[shard_of(i, 4) for i in IDS]}"
    )
    assert len({shard_of(i, 4) for i in IDS}) == 4, (
        "32 ids must spread over all 4 shards; they landed in "
        f"{sorted({shard_of(i, 4) for i in IDS})}"
    )  # 32 ids do spread over 4 shards
    # pinned values: a change of the hash would silently reshuffle every CI matrix
    pinned = ("ballot.M2", "congruence.M1", "floor.M7")
    for count, want in ((4, [3, 4, 4]), (7, [4, 7, 7])):
        got = [shard_of(i, count) for i in pinned]
        assert got == want, (
            f"shard_of moved the pinned ids {list(pinned)} to shards {got} of {count}, not "
            f"{want}: every existing CI shard matrix would reshuffle")


@given(st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=60),
       st.integers(min_value=1, max_value=9))
def test_shards_partition_the_ids(ids, count):
    parts = [select_shard(ids, f"{i}/{count}") for i in range(1, count + 1)]
    assert sorted(x for part in parts for x in part) == sorted(ids), (
        f"the shards of {count} must partition the ids (each once); together they hold {parts}"
    )
    for part in parts:
        assert part == [i for i in ids if i in set(part)], (
            f"a shard must keep the catalog order of its ids; it is {part}"
        )  # catalog order kept


@given(st.lists(st.text(min_size=1, max_size=20), unique=True, min_size=1, max_size=40),
       st.lists(st.text(min_size=1, max_size=20), max_size=40),
       st.integers(min_value=1, max_value=8))
def test_growing_the_catalog_never_moves_an_existing_mutant(ids, new_ids, count):
    before = {i: shard_of(i, count) for i in ids}
    grown = ids + [n for n in new_ids if n not in before]
    for spec_index in range(1, count + 1):
        for mutant_id in select_shard(grown, f"{spec_index}/{count}"):
            if mutant_id in before:
                assert before[mutant_id] == spec_index, (
                    f"growing the catalog moved {mutant_id!r} from shard {before[mutant_id]} to "
                    f"{spec_index} of {count}"
                )


@pytest.mark.parametrize("spec", ["0/4", "5/4", "1/0", "a/4", "1-4", "", "2/", "-1/3", "1/4/2"])
def test_bad_shard_specs_are_refused_with_the_fix(spec):
    with pytest.raises(ConfigError) as caught:
        select_shard(IDS, spec)
    assert "--shard I/N" in caught.value.render() and caught.value.exit_code == 2, (
        f"--shard {spec!r} must be refused with exit 2 and the form --shard I/N; got exit "
        f"{caught.value.exit_code}: {caught.value.render()!r}"
    )


def test_parse_shard_accepts_the_edges():
    assert parse_shard("1/1") == (1, 1) and parse_shard(" 4/4 ") == (4, 4), (
        f"parse_shard must accept the edges 1/1 and ' 4/4 '; it gave {parse_shard('1/1')}, "
        f"{parse_shard(' 4/4 ')}"
    )
    assert select_shard(IDS, "1/1") == IDS, "--shard 1/1 must select every id in catalog order"
    with pytest.raises(ValueError, match="shard count must be at least 1"):
        shard_of("ballot.M1", 0)
