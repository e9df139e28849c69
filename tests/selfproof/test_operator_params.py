"""Each operator's parameters are checked when the catalog loads (docs/mutants.md, *Operators*
and *The catalog*: every problem at once, at its line, with the fix): a missing or unknown
key, a value of the wrong type, and a parameter set that plants no defect."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from tests.owner_files import write_placeholder_owners


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
