"""Owner resolution in combination (docs/mutants.md, *Owners* and *Validation reports every
problem in one pass*): catalog selections and ``kills`` markers add up, every owner problem
of every mutant is reported in one pass at the mutant's catalog line with its fix, and a
problem with one owner never hides the mutant's other owners. Items are collected in-process
(pytester's inline collection, no subprocess)."""

from __future__ import annotations

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import Mutant, load_catalog
from deskcheck.mutants.owners import foreign_kills, item_location, marked_owners, resolve_owners
from tests.owner_files import write_placeholder_owners

pytest_plugins = ["pytester"]

SOURCE = '''
import pytest

def test_a():
    pass

@pytest.mark.kills("m.marked")
def test_b():
    pass

@pytest.mark.kills("m.marked")
def test_c():
    pass
'''


# the fixes the user reads beside each owner problem (user-facing, pinned word for word)
FIX_BAD_EXPRESSION = "name an existing test, or '-k EXPR'/'-m EXPR'"


FIX_NO_MATCH = "correct the node id / expression, or add the test to [sweep] tests"


def fix_no_owner(mutant_id: str) -> str:
    return f"add owners = [...] or mark a test @pytest.mark.kills({mutant_id!r})"


@pytest.fixture
def collected(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    kills: owns\n")
    pytester.makepyfile(test_own=SOURCE)
    items, _ = pytester.inline_genitems()
    return items, [pytester.path]


def mutant(mutant_id: str, *owners: str) -> Mutant:
    return Mutant(id=mutant_id, title="", target="pkg.mod:f", operator="return",
                  params={"value": "None"}, owners=tuple(owners), catalog_file="mutants.toml",
                  line=7)


def names(items) -> list[str]:
    return [i.nodeid.partition("::")[2] for i in items]


def problems(errors) -> list[tuple[str, str | None, str | None]]:
    return [(e.message, None if e.location is None else str(e.location), e.fix) for e in errors]


def test_each_owner_problem_names_the_mutants_line_and_says_how_to_fix_it(collected):
    items, roots = collected
    mutants = [mutant("m.bad_k", "-k test_a and ("), mutant("m.zz", "test_own.py::test_zz"),
               mutant("m.none")]
    _owners, _unc, errors = resolve_owners(mutants, {m.id for m in mutants}, items, roots, set())
    got = problems(errors)
    assert len(got) == 3, f"three mutants with one owner problem each gave {got}"
    bad_k, zz, none = got
    assert bad_k[0].startswith("bad -k expression 'test_a and ('") and bad_k[1:] == (
        "mutants.toml:7", FIX_BAD_EXPRESSION), (
            f"an owner -k expression that does not parse must be reported with pytest's own "
            f"words, at the mutant's catalog line, with the fix {FIX_BAD_EXPRESSION!r}; "
            f"got {bad_k}")
    assert zz == ("mutant 'm.zz': owner 'test_own.py::test_zz' matches no collected test",
                  "mutants.toml:7", FIX_NO_MATCH), (
        f"an owner that selects no collected test must be reported at the mutant's catalog "
        f"line with the fix {FIX_NO_MATCH!r}; got {zz}")
    assert none == ("mutant 'm.none' has no owner", "mutants.toml:7", fix_no_owner("m.none")), (
        f"a mutant with neither owners nor a kills marker must be reported at its catalog "
        f"line with the fix {fix_no_owner('m.none')!r}; got {none}")


def test_a_bad_owner_neither_hides_the_other_owners_nor_their_problems(collected):
    items, roots = collected
    first = mutant("m.one", "-k (", "test_own.py::test_zz", "test_own.py::test_a")
    owners, _unc, errors = resolve_owners([first], {"m.one"}, items, roots, set())
    got = [e.message for e in errors]
    assert len(got) == 2 and got[0].startswith("bad -k expression") \
        and "'test_own.py::test_zz' matches no collected test" in got[1], (
            f"every owner problem of a mutant must be reported in one pass (a bad -k, then an "
            f"owner matching nothing); got {got}")
    assert names(owners["m.one"]) == ["test_a"], (
        f"the owners after a bad one must still be resolved: m.one is owned by test_a, "
        f"got {names(owners['m.one'])}")


def test_an_owner_in_a_broken_file_does_not_hide_the_next_owners_problem(collected):
    items, roots = collected
    broken = roots[0] / "test_broken.py"
    broken.write_text("def test_x(:\n", encoding="utf-8")
    first = mutant("m.one", "test_broken.py::test_x", "test_own.py::test_zz",
                   "test_own.py::test_a")
    owners, uncollectable, errors = resolve_owners([first], {"m.one"}, items, roots,
                                                   {broken.resolve()})
    assert uncollectable == {"m.one": "test_broken.py::test_x"}, (
        f"the owner in a file that failed to collect makes m.one uncollectable "
        f"(BASELINE_RED), naming that owner; got {uncollectable}")
    got = [e.message for e in errors]
    assert got == ["mutant 'm.one': owner 'test_own.py::test_zz' matches no collected test"], (
        f"the owner after the broken file's must still be checked (every problem in one "
        f"pass); got {got}")
    assert names(owners["m.one"]) == ["test_a"], (
        f"the owners after the broken file's must still be resolved; got "
        f"{names(owners['m.one'])}")


def test_an_owner_that_selects_nothing_is_one_error_not_also_a_missing_owner(collected):
    items, roots = collected
    _owners, _unc, errors = resolve_owners([mutant("m.zz", "test_own.py::test_zz")], {"m.zz"},
                                           items, roots, set())
    got = [e.message for e in errors]
    assert got == ["mutant 'm.zz': owner 'test_own.py::test_zz' matches no collected test"], (
        f"a mutant whose only owner matches nothing has that one problem; it does have an "
        f"owner in the catalog, so 'has no owner' is wrong; got {got}")


def test_a_mutant_owned_only_by_kills_markers_has_every_marked_test(collected):
    items, roots = collected
    owners, _unc, errors = resolve_owners([mutant("m.marked")], {"m.marked"}, items, roots,
                                          set())
    assert errors == [], (
        f"a mutant with no owners key but tests marked @pytest.mark.kills('m.marked') is "
        f"owned by them, not an error; got {problems(errors)}")
    assert names(owners["m.marked"]) == ["test_b", "test_c"], (
        f"both tests that mark themselves as killing m.marked must own it, in collection "
        f"order; got {names(owners['m.marked'])}")


def test_a_test_both_listed_and_marked_owns_the_mutant_once(collected):
    items, roots = collected
    both = mutant("m.marked", "test_own.py::test_c", "test_own.py")
    owners, _unc, errors = resolve_owners([both], {"m.marked"}, items, roots, set())
    assert not errors, f"valid owners were refused: {problems(errors)}"
    assert names(owners["m.marked"]) == ["test_a", "test_b", "test_c"], (
        f"the owners are the union of the selections and the markers, each test once, in "
        f"collection order; got {names(owners['m.marked'])}")


def test_markers_are_read_per_mutant_id(collected):
    items, _roots = collected
    marked = {k: names(v) for k, v in marked_owners(items).items()}
    assert marked == {"m.marked": ["test_b", "test_c"]}, (
        f"@pytest.mark.kills('m.marked') on test_b and test_c must map m.marked to both; "
        f"got {marked}")


def test_a_marker_far_from_every_catalog_id_is_noted_as_another_catalogs(collected):
    items, _roots = collected
    notes = foreign_kills(items, {"x.marked_old"})  # similar, but more than one typo away
    assert len(notes) == 1, f"one unclaimed marker id must give one note; got {notes}"
    assert notes[0].endswith("test_own.py:6: @pytest.mark.kills('m.marked') names no mutant "
                             "of this catalog: ignored here (another catalog's, or none)"), (
        f"a kills marker whose id is not one typo from an id of this catalog (m.marked vs "
        f"x.marked_old) must be noted at its first test as ignored, another catalog's or none, "
        f"with no did-you-mean; got {notes[0]!r}")
    assert foreign_kills(items, {"m.marked"}) == [], (
        "a marker naming an id of the catalog being swept must not be noted as foreign")


def test_every_foreign_marker_is_noted_after_one_of_this_catalog(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    kills: owns\n")
    pytester.makepyfile(test_mixed='''
import pytest

@pytest.mark.kills("a.ours")
def test_ours():
    pass

@pytest.mark.kills("z.theirs")
def test_theirs():
    pass
''')
    items, _ = pytester.inline_genitems()
    notes = foreign_kills(items, {"a.ours"})
    assert len(notes) == 1 and "'z.theirs'" in notes[0] and "test_mixed.py:7" in notes[0], (
        f"a.ours is this catalog's and z.theirs is not: z.theirs must get its note (at "
        f"test_mixed.py:7) even though a marker of this catalog comes first; got {notes}")


def test_the_location_of_an_item_with_no_line_is_its_files_first_line(pytester):
    """docs/mutants.md: a non-Python test file's items (made by a plugin) may report no line;
    their location is then the file's first line."""
    pytester.makeconftest('''
import pytest

class CaseItem(pytest.Item):
    def runtest(self):
        pass

    def reportinfo(self):
        return self.path, None, self.name

class CaseFile(pytest.File):
    def collect(self):
        yield CaseItem.from_parent(self, name="case")

def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".cases":
        return CaseFile.from_parent(parent, path=file_path)
''')
    (pytester.path / "test_data.cases").write_text("case\n", encoding="utf-8")
    items, _ = pytester.inline_genitems()
    where = [item_location(i) for i in items]
    assert len(where) == 1 and where[0].endswith("test_data.cases:1"), (
        f"an item that reports no line is located at its file's first line "
        f"(test_data.cases:1); got {where}")


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


def test_an_audit_owner_before_a_test_owner_leaves_the_test_owner_selected(collected):
    items, roots = collected
    first = mutant("m.one", "uniformity:Scheduler.step", "test_own.py::test_a")
    owners, _unc, errors = resolve_owners([first], {"m.one"}, items, roots, set())
    assert names(owners["m.one"]) == ["test_a"] and errors == [], (
        f"a uniformity owner is judged by the audit, not selected from the items, and the "
        f"test owners after it must still be selected: m.one is owned by test_a, got "
        f"{names(owners['m.one'])}, errors {[e.message for e in errors]}")
