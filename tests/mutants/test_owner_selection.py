"""Owner selection (docs/mutants.md, *Owners*): a node id, a file, a class or a parametrized
prefix selects all it contains and nothing that merely shares its first letters; ``-k EXPR``
selects by name, ``-m EXPR`` by marker. Items are collected in-process (pytester, no
subprocess), so these tests are cheap owners."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.owners import foreign_kills, resolve_owners, select

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


def _mutant(mutant_id: str, *owners: str) -> Mutant:
    return Mutant(id=mutant_id, title="", target="pkg.mod:f", operator="return",
                  params={"value": "None"}, owners=tuple(owners), catalog_file="mutants.toml",
                  line=7)


def test_a_folder_owner_selects_every_test_under_it(pytester):
    pytester.makepyfile(**{"sub/test_one": "def test_x():\n    pass\n",
                           "sub/deeper/test_two": "def test_y():\n    pass\n",
                           "test_top": "def test_z():\n    pass\n"})
    items, _ = pytester.inline_genitems()
    chosen = sorted(i.nodeid for i in select("sub", items, [pytester.path]))
    assert chosen == ["sub/deeper/test_two.py::test_y", "sub/test_one.py::test_x"], (
        f"the folder owner 'sub' must select every test under it (nested folders too) and "
        f"nothing outside; it selected {chosen}")
    assert select("sub::test_x", items, [pytester.path]) == [], (
        "a folder cannot be narrowed with '::'; 'sub::test_x' selected tests")


def test_owner_errors_name_the_mutant_its_catalog_line_and_a_fix(collected):
    items, roots = collected
    mutants = [_mutant("m.bad_k", "-k test_a and ("), _mutant("m.no_file", "gone.py::t"),
               _mutant("m.none")]
    _owners, _unc, errors = resolve_owners(mutants, {m.id for m in mutants}, items, roots, set())
    text = {e.message: (e.location, e.fix) for e in errors}
    expected = ["bad -k expression 'test_a and ('", "owner 'gone.py::t': no file or folder "
                "'gone.py'", "mutant 'm.none' has no owner"]
    for words in expected:
        hit = [(m, where) for m, where in text.items() if words in m]
        assert hit and hit[0][1][0] == "mutants.toml:7" and hit[0][1][1], (
            f"the owner problem {words!r} must be reported at the mutant's catalog line "
            f"(mutants.toml:7) with a fix; the errors are {text}")


def test_a_kills_mark_naming_an_unknown_mutant_is_a_note_at_the_test_not_an_error(pytester):
    """docs/mutants.md: a `kills` marker is checked only against the catalog being swept; an
    id of no mutant here (another catalog's, or a typo) is ignored with a note at the test."""
    pytester.makeini("[pytest]\nmarkers =\n    kills: owns\n")
    pytester.makepyfile(test_own='''
import pytest

@pytest.mark.kills("m.nobody")
def test_marked():
    pass
''')
    items, _ = pytester.inline_genitems()
    _owners, _unc, errors = resolve_owners([], set(), items, [pytester.path], set())
    assert errors == [], (
        f"a kills mark naming no mutant of this catalog must not stop the sweep (another "
        f"catalog may own it); got errors {[(e.message, e.location) for e in errors]}")
    notes = foreign_kills(items, {"m.nobodx"})
    assert len(notes) == 1 and "test_own.py:3" in notes[0] and "'m.nobody'" in notes[0] \
        and "did you mean 'm.nobodx'" in notes[0], (
            f"the unclaimed kills mark must get one note naming the marked test (test_own.py:3), "
            f"the id and the close catalog id; got {notes}")


def test_an_owner_in_a_file_that_failed_to_collect_is_uncollectable(collected):
    items, roots = collected
    broken = (roots[0] / "test_broken.py")
    broken.write_text("def test_x(:\n")
    mutant = _mutant("m.broken", "test_broken.py::test_x")
    owners, uncollectable, errors = resolve_owners([mutant], {"m.broken"}, items, roots,
                                                   {broken.resolve()})
    assert uncollectable == {"m.broken": "test_broken.py::test_x"} and not errors, (
        f"an owner in a file that failed to collect must make the mutant BASELINE_RED "
        f"(uncollectable), not a catalog error; got uncollectable {uncollectable}, errors "
        f"{[str(e) for e in errors]}")
