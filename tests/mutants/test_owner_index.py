"""The owner index selects exactly the owners the item-by-item matcher did (issue 13).

``_reference_select`` below is the matcher deskcheck used before the index (it walked the
universe and resolved each item's path once per selection): the oracle. The property test
compares it with ``OwnerIndex`` on generated universes (node ids sharing a prefix, classes,
parametrized ids, files, folders, a symlinked folder); the pytester cases compare them on
real collections with ``-k``/``-m`` selections and ``kills`` markers.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from _pytest.mark import KeywordMatcher, MarkMatcher
from _pytest.mark.expression import Expression
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.owner_index import OwnerIndex, rest_keys
from deskcheck.mutants.owners import resolve_owners

pytest_plugins = ["pytester"]


# -- the oracle: the matcher before the index, verbatim --------------------------------------

def _node_matcher(selection: str, roots: Sequence[Path]):
    path_part, sep, rest = selection.partition("::")
    candidates = []
    for root in roots:
        candidate = (root / path_part).resolve()
        if candidate.exists():
            candidates.append(candidate)
    if not candidates:
        return None, path_part
    target = candidates[0]

    def matches(item) -> bool:
        item_path = Path(item.path).resolve()
        if target.is_dir():
            if not item_path.is_relative_to(target):
                return False
            return not sep
        if item_path != target:
            return False
        if not sep:
            return True
        item_rest = item.nodeid.partition("::")[2]
        return (item_rest == rest or item_rest.startswith(rest + "::")
                or item_rest.startswith(rest + "["))

    return matches, path_part


def _reference_select(selection: str, items, roots: Sequence[Path]) -> list:
    if selection.startswith("-k") or selection.startswith("-m"):
        text = selection[2:].strip()
        expression = Expression.compile(text)
        if selection.startswith("-k"):
            return [i for i in items if expression.evaluate(KeywordMatcher.from_item(i))]
        return [i for i in items if expression.evaluate(MarkMatcher.from_markers(
            i.iter_markers()))]
    matches, path_part = _node_matcher(selection, roots)
    if matches is None:
        raise ValueError(f"owner {selection!r}: no file or folder {path_part!r}")
    return [i for i in items if matches(i)]


def _reference_marked(items) -> dict[str, list]:
    found: dict[str, list] = {}
    for item in items:
        for mark in item.iter_markers("kills"):
            for mutant_id in mark.args:
                found.setdefault(str(mutant_id), []).append(item)
    return found


def _ids(items) -> list[str]:
    return [i.nodeid for i in items]


# -- generated universes (items need only .path and .nodeid for node-id selections) -----------

FOLDERS = ["", "pkg", "pkg/sub", "pkgx"]
FILES = ["test_a.py", "test_ab.py"]
CLASSES = ["", "TestA", "TestAB"]
FUNCTIONS = ["test_a", "test_ab", "test_a_b"]
PARAMS = ["", "[1]", "[1-2]", "[x::y]", "[a[b]]", "[a]"]


@dataclass(frozen=True)
class FakeItem:
    path: Path
    nodeid: str


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("universe")
    for folder, name in itertools.product(FOLDERS, FILES):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text("", encoding="utf-8")
    os.symlink(root / "pkg", root / "link")  # a second way to name pkg/
    return root


def _rel(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


node = st.tuples(st.sampled_from(FOLDERS + ["link"]), st.sampled_from(FILES),
                 st.sampled_from(CLASSES), st.sampled_from(FUNCTIONS), st.sampled_from(PARAMS))
selection_parts = st.tuples(
    st.sampled_from(FOLDERS + ["link", "missing"]), st.sampled_from(FILES + [""]),
    st.sampled_from(CLASSES), st.sampled_from(FUNCTIONS + [""]),
    st.sampled_from(PARAMS + ["[1", "[a"]))


def _nodeid(folder: str, name: str, cls: str, func: str, param: str) -> str:
    return "::".join(p for p in (_rel(folder, name), cls, func + param) if p)


def _selection(folder: str, name: str, cls: str, func: str, param: str) -> str:
    path = _rel(folder, name) if name else folder
    rest = "::".join(p for p in (cls, func + param if func else "") if p)
    return f"{path}::{rest}" if rest else path


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(nodes=st.lists(node, min_size=1, max_size=30, unique=True),
       selections=st.lists(selection_parts, min_size=1, max_size=15))
def test_the_index_selects_what_the_old_matcher_selected(tree: Path, nodes, selections) -> None:
    items = [FakeItem(tree / _rel(folder, name), _nodeid(folder, name, cls, func, param))
             for folder, name, cls, func, param in nodes]
    index = OwnerIndex(items, [tree])
    for parts in selections:
        selection = _selection(*parts)
        try:
            expected = _ids(_reference_select(selection, items, [tree]))
        except ValueError:
            with pytest.raises(ValueError, match="no file or folder"):
                index.select(selection)
            continue
        got = _ids(index.select(selection))
        assert got == expected, (
            f"selection {selection!r} over {_ids(items)}: the index chose {got}, the old "
            f"matcher {expected}")


def test_a_prefix_never_selects_a_longer_name(tree: Path) -> None:
    items = [FakeItem(tree / "test_a.py", "test_a.py::test_a"),
             FakeItem(tree / "test_a.py", "test_a.py::test_ab"),
             FakeItem(tree / "test_ab.py", "test_ab.py::test_a")]
    got = _ids(OwnerIndex(items, [tree]).select("test_a.py::test_a"))
    assert got == ["test_a.py::test_a"], (
        f"test_a.py::test_a must select only that test, not test_ab nor test_ab.py; got {got}")


def test_a_function_selects_every_parametrized_case_and_a_case_only_itself(tree: Path) -> None:
    items = [FakeItem(tree / "test_a.py", f"test_a.py::TestA::test_a[{p}]") for p in "12"]
    items.append(FakeItem(tree / "test_a.py", "test_a.py::TestA::test_ab[1]"))
    index = OwnerIndex(items, [tree])
    every = _ids(index.select("test_a.py::TestA::test_a"))
    assert every == ["test_a.py::TestA::test_a[1]", "test_a.py::TestA::test_a[2]"], (
        "an owner naming a parametrized function (test_a.py::TestA::test_a) must select each "
        "of its cases, test_a[1] and test_a[2], and not test_ab's (docs/mutants.md: `test_p` "
        f"selects `test_p[1]` and `test_p[2]`); it selected {every}")
    one = _ids(index.select("test_a.py::TestA::test_a[2]"))
    assert one == ["test_a.py::TestA::test_a[2]"], f"a case id owns only that case: {one}"
    whole = _ids(index.select("test_a.py::TestA"))
    assert whole == _ids(items), f"a class owns all its methods: {whole}"


def test_a_folder_owns_what_is_under_it_through_any_path_that_names_it(tree: Path) -> None:
    items = [FakeItem(tree / "pkg" / "test_a.py", "pkg/test_a.py::test_a"),
             FakeItem(tree / "pkg" / "sub" / "test_a.py", "pkg/sub/test_a.py::test_a"),
             FakeItem(tree / "pkgx" / "test_a.py", "pkgx/test_a.py::test_a")]
    index = OwnerIndex(items, [tree])
    got = _ids(index.select("link"))
    assert got == _ids(items[:2]), (
        f"the folder pkg (named through the symlink 'link') owns pkg/ and pkg/sub/, never "
        f"pkgx/ which only shares its prefix; got {got}")
    assert index.select("pkg::test_a") == [], "a folder with '::' selects nothing, as before"


def test_rest_keys_are_the_names_a_selection_may_use() -> None:
    keys = rest_keys("TestA::test_a[x::y]")
    assert keys == {"TestA", "TestA::test_a", "TestA::test_a[x", "TestA::test_a[x::y]"}, (
        f"each prefix before '::' or '[' and the whole id, nothing else: {sorted(keys)}")


# -- real collections: -k, -m, kills markers, classes, parametrize ---------------------------

UNIVERSE = '''
import pytest

@pytest.mark.slow
def test_a(): pass

def test_ab(): pass

@pytest.mark.parametrize("n", [1, 2])
def test_p(n): pass

class TestBox:
    @pytest.mark.kills("m.one")
    def test_a(self): pass

    @pytest.mark.kills("m.one", "m.two")
    @pytest.mark.slow
    def test_b(self): pass
'''


@pytest.fixture
def collected(pytester: pytest.Pytester):
    pytester.makepyfile(test_u=UNIVERSE, test_v="def test_a(): pass\ndef test_c(): pass\n")
    pytester.makeini("[pytest]\nmarkers =\n    kills: x\n    slow: y\n")
    items, _ = pytester.inline_genitems()
    return items, [pytester.path]


@pytest.mark.parametrize("selection", [
    "-k test_a", "-k TestBox and not test_b", "-k p", "-m slow", "-m not slow",
    "-k test_a or test_c", "test_u.py", "test_u.py::test_a", "test_u.py::TestBox",
    "test_u.py::test_p", "test_u.py::test_p[2]", "test_v.py::test_a", ".",
])
def test_real_selections_match_the_old_matcher(collected, selection: str) -> None:
    items, roots = collected
    expected = _ids(_reference_select(selection, items, roots))
    got = _ids(OwnerIndex(items, roots).select(selection))
    assert got == expected, f"{selection!r}: the index chose {got}, the old matcher {expected}"
    assert expected, f"the case {selection!r} should select something (test data)"


def test_kills_markers_and_resolved_owners_match_the_old_matcher(collected) -> None:
    items, roots = collected
    marked = {k: _ids(v) for k, v in OwnerIndex(items, roots).marked().items()}
    expected = {k: list(dict.fromkeys(_ids(v))) for k, v in _reference_marked(items).items()}
    assert marked == expected, f"kills markers: index {marked}, old {expected}"
    mutants = [Mutant(id="m.one", title="", target="x:y", operator="replace", params={},
                      owners=("-m slow", "test_v.py::test_a")),
               Mutant(id="m.two", title="", target="x:y", operator="replace", params={},
                      owners=())]
    owners, uncollectable, errors = resolve_owners(mutants, {"m.one", "m.two"}, items, roots,
                                                   set())
    assert not errors and not uncollectable, f"no problem expected: {errors} {uncollectable}"
    assert _ids(owners["m.one"]) == ["test_u.py::test_a", "test_u.py::TestBox::test_a",
                                     "test_u.py::TestBox::test_b", "test_v.py::test_a"], (
        f"m.one: '-m slow' + a node id + its kills markers, in collection order: "
        f"{_ids(owners['m.one'])}")
    assert _ids(owners["m.two"]) == ["test_u.py::TestBox::test_b"], (
        f"m.two is owned by its kills marker only: {_ids(owners['m.two'])}")
