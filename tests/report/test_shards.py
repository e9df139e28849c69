"""Shards (docs/report.md, ``--shard I/N``): growing the catalog never moves an existing
mutant to another shard; a shard is ``I/N`` with ``1 <= I <= N``, and a bad one is refused
naming the spec and the option."""

from __future__ import annotations

import pytest

from deskcheck.errors import ConfigError
from deskcheck.report.shard import parse_shard, select_shard

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


@pytest.mark.parametrize("spec", ["0/4", "5/4", "1/0", "0/0", "-1/4", "1/-4", "2", "a/b",
                                  "1.5/4", "1/4/8"])
def test_a_shard_outside_one_to_n_is_refused(spec):
    try:
        got = parse_shard(spec)
    except ConfigError as caught:
        error = caught
    else:
        pytest.fail(f"--shard {spec} was accepted as {got}: I must be a whole number between "
                    "1 and N")
    assert spec in str(error) and "--shard" in error.location, (
        f"--shard {spec} was refused without naming it and the option: {error}")


@pytest.mark.parametrize(("spec", "expected"), [("1/1", (1, 1)), ("4/4", (4, 4)),
                                                ("1/4", (1, 4)), (" 2/3 ", (2, 3)),
                                                ("7/1000000", (7, 1000000))])
def test_a_shard_within_one_to_n_is_accepted(spec, expected):
    got = parse_shard(spec)
    assert got == expected, f"--shard {spec!r} was read as {got}, not {expected}"


def test_bad_shard_specs_name_the_spec_and_the_option():
    import pytest

    from deskcheck.errors import ConfigError
    from deskcheck.report.shard import parse_shard, shard_of

    for spec, words in (("a/4", "bad shard 'a/4': expected I/N"),
                        ("5/4", "bad shard '5/4': I must be between 1 and N"),
                        ("1/2/3", "bad shard '1/2/3': expected I/N")):
        with pytest.raises(ConfigError) as info:
            parse_shard(spec)
        assert words in info.value.message and info.value.location == "--shard", (
            f"a bad --shard {spec!r} is reported as {info.value.render()!r}")
    with pytest.raises(ValueError, match="shard count must be at least 1, got 0"):
        shard_of("x", 0)
