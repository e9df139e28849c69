"""Catalog validation: every problem at once, each with file:line and a fix."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import load_catalog
from tests.owner_files import write_placeholder_owners

from .conftest import CATALOG


def write(tmp_path, text: str):
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(text).lstrip())
    write_placeholder_owners(tmp_path)
    return path


def test_fixture_catalog_loads():
    catalog = load_catalog(CATALOG)
    assert len(catalog.mutants) >= 20, (
        "the fixture catalog must load all its mutants (20 or more); it loaded "
        f"{len(catalog.mutants)}"
    )
    assert catalog.get("calc.admit_strict").expect == "told to admit .* with room for", (
        "calc.admit_strict's expect must load as written; it is "
        f"{catalog.get('calc.admit_strict').expect!r}"
    )
    assert catalog.settings.tests == ("checks",), (
        f"the catalog's [sweep] tests must load as ('checks',); it is {catalog.settings.tests!r}"
    )


def test_all_problems_reported_at_once_with_lines(tmp_path):
    path = write(tmp_path, '''
        [[mutant]]
        id = "a"
        title = "ok"
        target = "pkg.mod:func"
        operator = "swap"
        old = "<"
        new = "<="
        owners = ["tests/test_x.py::test_y"]

        [[mutant]]
        id = "b"
        title = "line number target"
        target = "pkg/mod.py:42"
        operator = "teleport"
        owners = ["t.py"]

        [[mutant]]
        id = "c"
        title = "bad keys"
        target = "pkg.mod:func"
        operator = "replace"
        old = "x"
        line = 12
        expect = "("
        accepted_survivor = ""
        owners = ["t.py"]

        [[mutant]]
        id = "a"
        title = "duplicate"
        target = "pkg.mod:func"
        operator = "return"
        value = "None"
        owners = ["t.py"]
        ''')
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    error = info.value
    rendered = {e.location: e.message for e in error.errors}
    expected = {
        "13": ("not 'package.module:Qualified.name'", "line numbers are never used"),
        "14": ("unknown operator 'teleport'",),
        "21": ("needs key 'new'",),
        "23": ("unknown key 'line'",),
        "24": ("not a valid regex",),
        "25": ("accepted_survivor needs the reason",),
        "28": ("duplicate mutant id 'a'",),
    }
    by_line = {loc.rsplit(":", 1)[-1]: msg for loc, msg in rendered.items()}
    for line, words in expected.items():
        assert all(w in by_line.get(line, "") for w in words), (
            f"catalog line {line} must be reported with {words}; the problems reported are "
            f"{by_line}")
    assert len(error.errors) == 7, (
        f"7 problems must be reported in one pass, got {len(error.errors)}: {by_line}")
    assert error.exit_code == 2, (
        f"a CatalogError must exit 2 (config error); its exit_code is {error.exit_code}"
    )
    assert all(e.fix for e in error.errors), (
        "every catalog problem must come with a fix; these have none: "
        f"{[e.message for e in error.errors if not e.fix]}"
    )


def test_toml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, '''
        [[mutant]]
        id = "a"
        title = = "x"
        ''')
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert info.value.location.endswith(":3"), (
        "a TOML syntax error on line 3 must be located at ':3'; its location is "
        f"{info.value.location!r}"
    )


def test_operator_param_types_checked(tmp_path):
    path = write(tmp_path, '''
        [[mutant]]
        id = "a"
        title = "t"
        target = "pkg.mod:func"
        operator = "force-branch"
        condition = "x > 1"
        to = "yes"
        occurrence = 0
        owners = ["t.py"]
        ''')
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    messages = [e.message for e in info.value.errors]
    for words in ("'to' must be bool", "occurrence must be a positive integer"):
        assert any(words in m for m in messages), (
            f"a force-branch with to = \"yes\" and occurrence = 0 was not refused with "
            f"{words!r}; the problems reported are {messages}")


def test_select_rejects_unknown_ids():
    catalog = load_catalog(CATALOG)
    assert [m.id for m in catalog.select(["calc.pick_max"])] == ["calc.pick_max"], (
        "select of a known id must give that mutant only; it gave "
        f"{[m.id for m in catalog.select(['calc.pick_max'])]}"
    )
    with pytest.raises(CatalogError, match="nope"):
        catalog.select(["nope"])
