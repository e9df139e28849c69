"""Catalog validation: every problem at once, each with file:line and a fix."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import load_catalog

from .conftest import CATALOG


def write(tmp_path, text: str):
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_fixture_catalog_loads():
    catalog = load_catalog(CATALOG)
    assert len(catalog.mutants) >= 20
    assert catalog.get("calc.admit_strict").expect == "told to admit .* with room for"
    assert catalog.settings.tests == ("checks",)


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
    assert any(loc.endswith(":13") and "not 'package.module:Qualified.name'" in msg
               and "line numbers are never used" in msg for loc, msg in rendered.items())
    assert any(loc.endswith(":14") and "unknown operator 'teleport'" in msg
               for loc, msg in rendered.items())
    assert any(loc.endswith(":21") and "needs key 'new'" in msg for loc, msg in rendered.items())
    assert any(loc.endswith(":23") and "unknown key 'line'" in msg for loc, msg in rendered.items())
    assert any(loc.endswith(":24") and "not a valid regex" in msg for loc, msg in rendered.items())
    assert any(loc.endswith(":25") and "accepted_survivor needs the reason" in msg
               for loc, msg in rendered.items())
    assert any(loc.endswith(":28") and "duplicate mutant id 'a'" in msg
               for loc, msg in rendered.items())
    assert len(error.errors) == 7
    assert error.exit_code == 2
    assert all(e.fix for e in error.errors)


def test_toml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, '''
        [[mutant]]
        id = "a"
        title = = "x"
        ''')
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert info.value.location.endswith(":3")


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
    assert any("'to' must be bool" in m for m in messages)
    assert any("occurrence must be a positive integer" in m for m in messages)


def test_select_rejects_unknown_ids():
    catalog = load_catalog(CATALOG)
    assert [m.id for m in catalog.select(["calc.pick_max"])] == ["calc.pick_max"]
    with pytest.raises(CatalogError, match="nope"):
        catalog.select(["nope"])
