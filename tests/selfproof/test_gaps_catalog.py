"""The catalog file in the cases the first round left open (docs/mutants.md): a catalog is
UTF-8 TOML whatever the machine's locale, and an unknown ``--only`` id says how to find the
known ones."""

from __future__ import annotations

import locale
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import Catalog, Mutant, load_catalog
from tests.owner_files import write_placeholder_owners


@pytest.fixture
def ascii_locale():
    """The process's locale encoding set to ASCII (a C-locale or Windows-like machine) for the
    test: a file read without an explicit encoding then fails on non-ASCII text."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_a_catalog_is_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    path = tmp_path / "mutants.toml"
    path.write_text('''[[mutant]]
id = "m.one"
title = "the café's edge is off by one — déjà vu"
target = "pkg.mod:f"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
''', encoding="utf-8")
    write_placeholder_owners(tmp_path)
    titles = [m.title for m in load_catalog(path).mutants]
    assert titles == ["the café's edge is off by one — déjà vu"], (
        f"a TOML catalog is UTF-8 by definition: under an ASCII locale its non-ASCII title "
        f"must load intact; got {titles}")


def test_an_unknown_only_id_says_how_to_list_the_ids():
    one = Mutant(id="m.a", title="t", target="pkg.mod:f", operator="return",
                 params={"value": "None"}, owners=("tests/test_x.py::test_a",))
    catalog = Catalog(path=Path("/proj/mutants.toml"), mutants=(one,))
    with pytest.raises(CatalogError) as caught:
        catalog.select(["m.zz"])
    assert caught.value.fix == "run `deskcheck mutants list` for the ids", (
        f"an unknown --only id must come with the fix 'run `deskcheck mutants list` for the "
        f"ids'; got {caught.value.fix!r}")
