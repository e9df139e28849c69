"""Catalog validation (docs/mutants.md, *The catalog* and *Operators*: every problem at once,
each at its own line, with the fix): duplicate ids, line-number targets, numeric bounds
(timeouts are positive seconds, ``occurrence`` is 1-based, ``offset`` needs a non-zero
``by``), and each operator's parameters (missing or unknown keys, wrong types, a parameter
set that plants no defect)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from tests.owner_files import write_placeholder_owners

GOOD = '''
[[mutant]]
id = "a"
title = "fine"
target = "pkg.mod:func"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
'''


def _problems(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(text))
    write_placeholder_owners(tmp_path)
    try:
        load_catalog(path)
    except CatalogError as error:
        return {e.location.rsplit(":", 1)[-1]: e.message for e in error.errors}
    return {}


def test_a_duplicate_id_is_refused_at_its_line(tmp_path):
    problems = _problems(tmp_path, GOOD + GOOD.replace('"fine"', '"again"'))
    assert any("duplicate mutant id 'a'" in m for m in problems.values()), (
        f"catalog validation let a duplicate mutant id through: {problems}")
    assert "duplicate mutant id 'a' (first at line 2)" in problems.get("10", ""), (
        f"the duplicate is not reported at line 10 naming line 2: {problems}")


def test_a_line_number_target_is_refused(tmp_path):
    problems = _problems(tmp_path, GOOD.replace("pkg.mod:func", "pkg/mod.py:42"))
    assert "line numbers are never used" in problems.get("5", ""), (
        f"catalog validation accepted a line-number target: {problems}")


def test_every_problem_is_reported_at_once(tmp_path):
    text = (GOOD.replace("pkg.mod:func", "pkg/mod.py:42")
            + GOOD.replace('id = "a"', 'id = "b"').replace('"return"', '"teleport"')
            + GOOD.replace('id = "a"', 'id = "c"').replace('owners = [', 'expect = "("\nowners = ['))
    problems = _problems(tmp_path, text)
    assert len(problems) == 3, (
        f"catalog validation stopped short of reporting every problem at once: {problems}")
    assert "unknown operator 'teleport'" in problems.get("14", ""), problems
    assert "not a valid regex" in problems.get("24", ""), problems


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


def problems(tmp_path: Path, operator: str, params: str) -> dict[str, tuple[str, str]]:
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(f'''\
        [[mutant]]
        id = "m"
        title = "t"
        target = "pkg.mod:f"
        operator = "{operator}"
        owners = ["tests/test_x.py::test_y"]
        ''') + textwrap.dedent(params), encoding="utf-8")
    write_placeholder_owners(tmp_path)
    try:
        load_catalog(path)
    except CatalogError as error:
        return {e.location.rsplit(":", 1)[-1]: (e.message, e.fix or "") for e in error.errors}
    return {}


# (case, operator, params from line 7 on, line -> words of the message, words of the fix)
CASES = [
    ("replace_empty", "replace", 'old = ""\nnew = "x"\n',
     {"7": ("replace: 'old' must not be empty", "exact snippet")}),
    ("replace_same", "replace", 'old = "a < b"\nnew = "a < b"\n',
     {"8": ("replace: 'new' equals 'old' (no defect)", "change 'new'")}),
    ("swap_kinds", "swap", 'old = "<"\nnew = "max"\n',
     {"8": ("swap: '<' and 'max' are not the same kind", "same kind")}),
    ("swap_same", "swap", 'old = "is  not"\nnew = "is not"\n',
     {"8": ("swap: 'new' equals 'old' (no defect)", "change 'new'")}),
    ("offset_zero", "offset", 'expression = "x"\nby = 0\n',
     {"8": ("offset: by = 0 is no defect", "non-zero")}),
    ("offset_type", "offset", 'expression = "x"\nby = "2"\n',
     {"8": ("offset: 'by' must be int, got '2'", "write by as int")}),
    ("force_branch_type", "force-branch", 'condition = "x"\nto = 1\n',
     {"8": ("force-branch: 'to' must be bool, got 1", "write to as bool")}),
    ("bool_is_no_int", "offset", 'expression = "x"\nby = true\n',
     {"8": ("offset: 'by' must be int, got True", "write by as int")}),
    ("missing_key", "drop-call", 'value = "0"\n',
     {"5": ("needs key 'call'", "call")}),
    ("line_key", "return", 'value = "None"\nline = 3\n',
     {"8": ("unknown key 'line' in [[mutant]] (operator 'return'); mutants are located by "
            "qualified name and snippet, never by line", "return: value")}),
]


@pytest.mark.parametrize(("operator", "params", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_operator_parameters_are_refused_at_their_line(tmp_path, operator, params,
                                                          expected):
    got = problems(tmp_path, operator, params)
    for line, (message, fix) in expected.items():
        found, found_fix = got.get(line, ("", ""))
        assert message in found and fix in found_fix, (
            f"{operator} with {params!r} must be refused at line {line} saying {message!r} "
            f"with a fix naming {fix!r}; the problems are {got}")


def test_every_parameter_problem_of_one_mutant_is_reported_at_once(tmp_path):
    got = problems(tmp_path, "offset", 'expression = 3\nby = 0\noccurrence = 0\ncolor = "red"\n')
    assert sorted(got, key=int) == ["7", "8", "9", "10"], (
        f"four bad parameters (lines 7-10) must be reported in one pass; got {got}")
