"""The catalog's Python API and file (docs/mutants.md, *Python API*, *The catalog* and
``--only``): a catalog is UTF-8 TOML whatever the locale; ``get`` and ``select`` name
unknown ids with the catalog file and a fix, an unknown ``--only`` id says how to list the
known ones; ``select`` keeps catalog order; a mutant's definition fingerprint covers what
defines it, never where it is written; an item result survives its JSON round trip; an
owner's location is ``file:line``."""

from __future__ import annotations

import dataclasses
import locale
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import Catalog, Mutant, load_catalog
from deskcheck.mutants.reuse import definition_of
from deskcheck.mutants.verdicts import ItemResult
from tests.owner_files import write_placeholder_owners

pytest_plugins = ["pytester"]

A = Mutant(id="m.a", title="t", target="pkg.mod:f", operator="return",
           params={"value": "None"}, owners=("tests/test_x.py::test_a",), expect="boom",
           accepted_survivor="equivalent: x", timeout_s=5.0, catalog_file="c.toml", line=3)


B = dataclasses.replace(A, id="m.b", line=12)


C = dataclasses.replace(A, id="m.c", line=21)


CATALOG = Catalog(path=Path("/proj/mutants.toml"), mutants=(A, B, C))


def test_get_names_an_unknown_id_with_the_catalog_and_every_known_id():
    assert CATALOG.get("m.b") is B, "get('m.b') did not return the mutant m.b"
    with pytest.raises(CatalogError) as caught:
        CATALOG.get("m.zz")
    error = caught.value
    assert "no mutant 'm.zz' in the catalog" in str(error) and \
        error.location == "/proj/mutants.toml" and error.fix == "choose one of: m.a, m.b, m.c", (
            f"an unknown id must be named at the catalog file with the known ids as the fix; "
            f"got {error} at {error.location} (fix {error.fix!r})")


def test_select_keeps_catalog_order_and_names_every_unknown_id():
    every = [m.id for m in CATALOG.select(None)]
    assert every == ["m.a", "m.b", "m.c"] and [m.id for m in CATALOG.select([])] == every, (
        f"no --only must select every mutant in catalog order; got {every}")
    chosen = [m.id for m in CATALOG.select(["m.c", "m.a"])]
    assert chosen == ["m.a", "m.c"], f"--only m.c m.a must keep catalog order; got {chosen}"
    with pytest.raises(CatalogError) as caught:
        CATALOG.select(["m.a", "m.x", "m.y"])
    error = caught.value
    assert "--only names unknown mutant(s): m.x, m.y" in str(error) and \
        error.location == "/proj/mutants.toml" and "deskcheck mutants list" in (error.fix or ""), (
            f"every unknown --only id must be named at the catalog with a fix; got {error} at "
            f"{error.location} (fix {error.fix!r})")


def test_the_definition_fingerprint_covers_what_defines_a_mutant_only():
    base = A.definition_fingerprint()
    assert len(base) == 16 and base == dataclasses.replace(A).definition_fingerprint(), (
        f"the definition fingerprint must be a stable 16-hex digest; got {base!r}")
    moved = dataclasses.replace(A, catalog_file="elsewhere.toml", line=99, title="renamed")
    assert moved.definition_fingerprint() == base, (
        "moving a mutant in its catalog (file, line) or retitling it changed its definition "
        "fingerprint")
    for field, value in (("id", "m.z"), ("target", "pkg.mod:g"), ("operator", "offset"),
                         ("params", {"value": "1"}), ("owners", ("-k x",)), ("expect", "bang")):
        changed = dataclasses.replace(A, **{field: value}).definition_fingerprint()
        assert changed != base, f"changing the mutant's {field} left its fingerprint {base}"


def test_definition_of_is_every_catalog_field_that_decides_a_verdict():
    got = definition_of(A)
    assert got == {"id": "m.a", "target": "pkg.mod:f", "operator": "return",
                   "params": {"value": "None"}, "owners": ["tests/test_x.py::test_a"],
                   "expect": "boom", "accepted_survivor": "equivalent: x", "timeout_s": 5.0}, (
        f"the fingerprinted definition of a mutant must be exactly its id, target, operator, "
        f"params, owners, expect, accepted_survivor and timeout_s; got {got}")


def test_an_item_result_survives_its_json_round_trip():
    result = ItemResult("t.py::x", "failed", "setup", "TypeError: y", "long text", 1.25)
    data = result.to_json()
    assert data == {"nodeid": "t.py::x", "outcome": "failed", "when": "setup",
                    "message": "TypeError: y", "text": "long text", "duration": 1.25}, (
        f"an item result's JSON lost or renamed a field: {data}")
    assert ItemResult.from_json(data) == result, "from_json(to_json(r)) is not r"


def test_an_owner_location_is_its_file_and_one_based_line(pytester):
    from deskcheck.mutants.owners import item_location

    pytester.makepyfile(test_loc="import os\n\n\ndef test_here():\n    assert os\n")
    items, _ = pytester.inline_genitems()
    where = item_location(items[0])
    assert where.endswith("test_loc.py:4"), (
        f"the location of test_here (def on line 4) must be 'test_loc.py:4'; got {where!r}")


def test_a_loaded_mutant_carries_every_field_of_its_entry(tmp_path):
    from deskcheck.mutants import load_catalog

    path = tmp_path / "mutants.toml"
    path.write_text('''# a catalog
[sweep]
tests = ["checks"]
timeout_factor = 2
timeout_s = 7.5
wrong_failure_types = ["KeyError"]

[[mutant]]
id = "ballot.M9"
title = "the edge is off"
target = "pkg.mod:Cls.meth"
operator = "swap"
old = "<"
new = "<="
occurrence = 2
owners = [" tests/test_x.py::test_y ", "-k edge"]
expect = "told to admit"
accepted_survivor = "equivalent: re-checked below"
timeout_s = 3
''', encoding="utf-8")
    write_placeholder_owners(tmp_path)
    catalog = load_catalog(path)
    expected = Mutant(id="ballot.M9", title="the edge is off", target="pkg.mod:Cls.meth",
                      operator="swap", params={"old": "<", "new": "<=", "occurrence": 2},
                      owners=("tests/test_x.py::test_y", "-k edge"), expect="told to admit",
                      accepted_survivor="equivalent: re-checked below", timeout_s=3.0,
                      catalog_file=str(path.resolve()), line=8)
    assert catalog.mutants == (expected,), (
        f"the loaded mutant differs from its catalog entry (owners stripped, params without "
        f"the common keys, the header line 8): {catalog.mutants}")
    settings = catalog.settings
    assert (settings.tests, settings.timeout_factor, settings.timeout_s,
            settings.wrong_failure_types) == (("checks",), 2.0, 7.5, ("KeyError",)), (
        f"the [sweep] settings were read as {settings}")
    assert catalog.root == path.resolve().parent, f"the catalog root is {catalog.root}"
    assert isinstance(catalog.mutants[0].timeout_s, float), "timeout_s = 3 must become 3.0"



def test_a_catalog_without_a_sweep_table_takes_the_documented_defaults(tmp_path):
    from deskcheck.mutants import load_catalog

    path = tmp_path / "mutants.toml"
    path.write_text('[[mutant]]\nid = "m.one"\ntitle = "one"\ntarget = "pkg.mod:f"\n'
                    'operator = "return"\nvalue = "None"\n'
                    'owners = ["tests/test_x.py::test_y"]\n', encoding="utf-8")
    write_placeholder_owners(tmp_path)
    settings = load_catalog(path).settings
    got = (settings.tests, settings.timeout_factor, settings.timeout_s,
           settings.search_timeout_s, settings.crash_kills)
    assert got == ((), 3.0, 10.0, None, "hold"), (
        "docs/mutants.md: without [sweep] the test universe is the catalog's folder, "
        "timeout_factor = 3.0, timeout_s = 10.0, search_timeout_s the default max(60, 6 x "
        f"timeout_s), crash_kills = 'hold'; (tests, factor, timeout_s, search, crash_kills) "
        f"were read as {got}")
    documented = {"ImportError", "ModuleNotFoundError", "NameError", "TypeError"}
    missing = documented - set(settings.wrong_failure_types)
    assert not missing, (
        "the default wrong_failure_types must hold the documented ImportError, "
        f"ModuleNotFoundError, NameError, TypeError; it lacks {sorted(missing)}")
    assert "AssertionError" not in settings.wrong_failure_types, (
        "an AssertionError is the right reason for a kill, never a wrong failure by default")

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
