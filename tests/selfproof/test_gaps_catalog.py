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


def test_an_owner_naming_nothing_is_reported_at_its_own_line(tmp_path):
    """docs/mutants.md: an owner node id that names nothing is reported at the line of that
    owner (a list may span lines, with either quote); one written with an escape, whose text
    is not on any line as read, at its owners key."""
    path = tmp_path / "mutants.toml"
    path.write_text('''[[mutant]]
id = "m.one"
title = "t"
target = "pkg.mod:f"
operator = "return"
value = "None"
owners = [
    "tests/test_x.py::test_y",
    "tests/test_x.py::test_gone",
    'tests/test_x.py::test_also_gone',
]

[[mutant]]
id = "m.two"
title = "t"
target = "pkg.mod:f"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_\\u0067one"]
''', encoding="utf-8")
    write_placeholder_owners(tmp_path)
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    text = str(caught.value)
    where = {name: [ln for ln in text.splitlines() if name in ln] for name in
             ("test_gone", "test_also_gone")}
    assert all(len(lines) >= 1 for lines in where.values()), (
        f"both owners naming no test must be reported; the error is:\n{text}")
    assert f"{path}:9:" in where["test_gone"][0] and f"{path}:10:" in where["test_also_gone"][0], (
        f"each owner naming nothing must be reported at its own line (9 and 10 of the "
        f"catalog), not at the owners key's; the error is:\n{text}")
    escaped = [ln for ln in text.splitlines() if f"{path}:19:" in ln]
    assert escaped and "test_gone" in escaped[0], (
        f"an owner written with a TOML escape cannot be found quoted as read: it must be "
        f"reported at its owners key (line 19); the error is:\n{text}")
