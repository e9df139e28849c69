"""Owner selection (docs/mutants.md, *Owners*): a node id, a file, a class or a parametrized
prefix selects all it contains and nothing that merely shares its first letters; ``-k EXPR``
selects by name, ``-m EXPR`` by marker. Items are collected in-process (pytester, no
subprocess), so these tests are cheap owners."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.owners import resolve_owners, select

pytest_plugins = ["pytester"]

SOURCE = '''
import pytest

def test_a():
    pass

def test_ab():
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_p(n):
    pass

@pytest.mark.parametrize("n", [3])
def test_pq(n):
    pass

class TestBox:
    def test_a(self):
        pass

    def test_a_more(self):
        pass

class TestBoxes:
    def test_a(self):
        pass

@pytest.mark.slow
def test_marked():
    pass
'''


@pytest.fixture
def collected(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n    kills: owns\n")
    pytester.makepyfile(test_own=SOURCE)
    items, _ = pytester.inline_genitems()
    return items, [pytester.path]


def names(items) -> list[str]:
    return [i.nodeid.partition("::")[2] for i in items]


# (case, owner selection, the tests it must select, why)
CASES = [
    ("function", "test_own.py::test_a", ["test_a"],
     "a function's id selects that function, never test_ab which merely starts with it"),
    ("parametrized", "test_own.py::test_p", ["test_p[1]", "test_p[2]"],
     "a parametrized function's id selects every parameter set, never test_pq"),
    ("one_case", "test_own.py::test_p[2]", ["test_p[2]"], "a full parametrized id selects that one case"),
    ("class", "test_own.py::TestBox", ["TestBox::test_a", "TestBox::test_a_more"],
     "a class id selects every method of the class, never the class TestBoxes"),
    ("method", "test_own.py::TestBox::test_a", ["TestBox::test_a"],
     "a method id selects that method, never test_a_more nor the module's test_a"),
    ("file", "test_own.py", None, "a file selects every test in it"),
    ("k_name", "-k test_a and not Box", ["test_a", "test_ab"], "-k selects by name like pytest -k"),
    ("k_class", "-k TestBoxes", ["TestBoxes::test_a"], "-k selects by class name like pytest -k"),
    ("m_marker", "-m slow", ["test_marked"], "-m selects the tests with that marker like pytest -m"),
]


@pytest.mark.parametrize(("selection", "expected", "why"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_an_owner_selects_exactly_what_it_names(collected, selection, expected, why):
    items, roots = collected
    chosen = names(select(selection, items, roots))
    if expected is None:
        expected = names(items)
    assert chosen == expected, f"owner {selection!r} selected {chosen}, not {expected}: {why}"


def test_owners_are_the_union_of_selections_and_kills_marks_in_collection_order(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    kills: owns\n")
    pytester.makepyfile(test_own='''
import pytest

def test_first():
    pass

@pytest.mark.kills("m.one")
def test_marked():
    pass

def test_last():
    pass
''')
    items, _ = pytester.inline_genitems()
    mutant = Mutant(id="m.one", title="", target="pkg.mod:f", operator="return",
                    params={"value": "None"}, owners=["test_own.py::test_last",
                                                      "test_own.py::test_first"])
    owners, _uncollectable, errors = resolve_owners([mutant], {"m.one"}, items,
                                                   [pytester.path], set())
    assert not errors, f"valid owners were refused: {[str(e) for e in errors]}"
    chosen = names(owners["m.one"])
    assert chosen == ["test_first", "test_marked", "test_last"], (
        f"the owners of m.one are {chosen}: they must be the union of the catalog's selections "
        "and the @pytest.mark.kills test, each once, in collection order")


def test_an_owner_that_selects_nothing_is_an_error_naming_it(collected):
    items, roots = collected
    mutant = Mutant(id="m.two", title="", target="pkg.mod:f", operator="return",
                    params={"value": "None"}, owners=["test_own.py::test_zz"])
    _owners, _uncollectable, errors = resolve_owners([mutant], {"m.two"}, items, roots, set())
    text = " | ".join(str(e) for e in errors)
    assert "test_own.py::test_zz" in text and "matches no collected test" in text, (
        f"an owner naming no collected test was not refused with its name: {text!r}")
