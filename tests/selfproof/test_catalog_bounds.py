"""Numeric boundaries of catalog and config validation (docs/mutants.md, *The catalog*;
docs/report.md, ``--shard I/N``): zero, negative, not-a-number, infinite and huge values.
A timeout is "a positive number of seconds"; ``occurrence`` is 1-based; ``offset`` needs a
non-zero ``by``; a shard is ``I/N`` with ``1 <= I <= N``. Each bad value is refused at its own
line, all in one pass."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError, ConfigError
from deskcheck.mutants import load_catalog
from deskcheck.report.shard import parse_shard
from tests.owner_files import write_placeholder_owners

MUTANT = '''
[[mutant]]
id = "m{n}"
title = "t"
target = "pkg.mod:func"
operator = "{operator}"
{params}
owners = ["tests/test_x.py::test_y"]
'''


def _load(tmp_path: Path, text: str) -> tuple[dict[str, str], object]:
    """(line -> message of every problem, the catalog when there is none)."""
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    write_placeholder_owners(tmp_path)
    try:
        return {}, load_catalog(path)
    except CatalogError as error:
        return {e.location.rsplit(":", 1)[-1]: e.message for e in error.errors}, None


def _mutant(operator: str = "return", params: str = 'value = "None"', n: int = 1) -> str:
    return MUTANT.format(n=n, operator=operator, params=params)


SWEEP_BAD = ["0", "0.0", "-1", "-0.5", "nan", "inf", "-inf", "true", '"3"']
SWEEP_GOOD = [("0.001", 0.001), ("1", 1.0), ("3", 3.0), ("1e9", 1e9)]


@pytest.mark.parametrize("key", ["timeout_factor", "timeout_s"])
@pytest.mark.parametrize("value", SWEEP_BAD)
def test_a_sweep_timeout_that_is_not_a_positive_number_is_refused(tmp_path, key, value):
    problems, _ = _load(tmp_path, f"[sweep]\n{key} = {value}\n" + _mutant())
    assert f"[sweep] {key} must be a positive number" in problems.get("2", ""), (
        f"[sweep] {key} = {value} was not refused at line 2 as not a positive number "
        f"(a timeout of {value} seconds cannot bound a mutant's run): {problems}")


@pytest.mark.parametrize("key", ["timeout_factor", "timeout_s"])
@pytest.mark.parametrize(("value", "parsed"), SWEEP_GOOD)
def test_a_positive_sweep_timeout_is_kept_as_seconds(tmp_path, key, value, parsed):
    problems, catalog = _load(tmp_path, f"[sweep]\n{key} = {value}\n" + _mutant())
    assert not problems, f"[sweep] {key} = {value} is a positive number, yet: {problems}"
    got = getattr(catalog.settings, key)
    assert got == parsed and isinstance(got, float), (
        f"[sweep] {key} = {value} was read as {got!r}, not the float {parsed!r}")


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "false"])
def test_a_mutant_timeout_that_is_not_a_positive_number_is_refused(tmp_path, value):
    problems, _ = _load(tmp_path, _mutant() + f"timeout_s = {value}\n")
    assert "timeout_s must be a positive number of seconds" in problems.get("9", ""), (
        f"a mutant's timeout_s = {value} was not refused at its line 9: {problems}")


def test_a_small_mutant_timeout_is_kept(tmp_path):
    problems, catalog = _load(tmp_path, _mutant() + "timeout_s = 0.25\n")
    assert not problems and catalog.mutants[0].timeout_s == 0.25, (
        f"a mutant's timeout_s = 0.25 (a positive number) was not kept: {problems}")


@pytest.mark.parametrize("value", ["0", "-1", "true", '"ALL"', '"1"', "1.0"])
def test_an_occurrence_that_is_not_one_based_is_refused(tmp_path, value):
    params = f'old = "<"\nnew = "<="\noccurrence = {value}'
    problems, _ = _load(tmp_path, _mutant("swap", params))
    assert "occurrence" in problems.get("9", ""), (
        f"occurrence = {value} is neither a positive integer nor \"all\", yet it was not "
        f"refused at its line 9: {problems}")


@pytest.mark.parametrize("value", ["1", "2", "1000000", '"all"'])
def test_a_one_based_occurrence_or_all_is_accepted(tmp_path, value):
    params = f'old = "<"\nnew = "<="\noccurrence = {value}'
    problems, _ = _load(tmp_path, _mutant("swap", params))
    assert not problems, f"occurrence = {value} is valid (1-based or \"all\"), yet: {problems}"


@pytest.mark.parametrize(("by", "refused"), [("0", True), ("-1", False), ("1", False),
                                             ("1000000000", False), ("-1000000000", False)])
def test_an_offset_by_zero_is_no_defect(tmp_path, by, refused):
    problems, _ = _load(tmp_path, _mutant("offset", f'expression = "x"\nby = {by}'))
    if refused:
        assert "by = 0 is no defect" in problems.get("8", ""), (
            f"offset by = 0 changes nothing, yet it was not refused at its line 8: {problems}")
    else:
        assert not problems, f"offset by = {by} is a real defect, yet: {problems}"


def test_every_bad_number_is_reported_at_once_at_its_line(tmp_path):
    text = ("[sweep]\ntimeout_factor = 0\ntimeout_s = -1\n"
            + _mutant(n=1) + "timeout_s = 0\n"
            + _mutant("offset", 'expression = "x"\nby = 0', n=2))
    problems, _ = _load(tmp_path, text)
    assert sorted(problems, key=int) == ["2", "3", "12", "20"], (
        f"four bad numbers (lines 2, 3, 12, 20) must be reported in one pass, each at its "
        f"line; got {problems}")


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
