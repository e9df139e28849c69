"""The ready-to-paste catalog entry of a survivor."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

from deskcheck.mutants.auto.changes import ChangedFile, ChangeSet
from deskcheck.mutants.auto.entry import catalog_entry, change_slug, replace_snippet
from deskcheck.mutants.auto.generate import AutoMutant, generate_auto_mutants


def mutants_of(tmp_path: Path, source: str, needle: str, **kwargs) -> list[AutoMutant]:
    source = textwrap.dedent(source)
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(source)
    lines = frozenset(n for n, t in enumerate(source.splitlines(), 1) if needle in t)
    changes = ChangeSet(root=tmp_path, base="b", files=[ChangedFile("pkg/mod.py", lines)])
    return generate_auto_mutants(changes, **kwargs).mutants


def test_entry_is_valid_toml_with_a_replace_that_reproduces_the_mutant(tmp_path: Path):
    (mutant,) = mutants_of(tmp_path, """
        class Gate:
            def admit(self, free, need):
                return free >= need
        """, "return free >= need")
    entry = tomllib.loads(catalog_entry(mutant, ["tests/test_gate.py::test_admit"]))
    (table,) = entry["mutant"]
    assert table["target"] == "pkg.mod:Gate.admit", (
        "the catalog entry must target the mutated method pkg.mod:Gate.admit; it targets "
        f"{table['target']}"
    )
    assert table["operator"] == "replace", (
        f"a catalog entry's operator must be replace; it is {table['operator']!r}"
    )
    assert table["id"] == "mod.admit.ror-ge-to-gt", (
        "the entry's id must be <module>.<function>.<family>-<change>, mod.admit.ror-ge-to-gt; it "
        f"is {table['id']!r}"
    )
    assert table["owners"] == [], (
        f"the entry's owners must be left empty for the reviewer; they are {table['owners']}"
    )  # for the reviewer to fill in
    assert (table["old"], table["new"]) == ("return free >= need", "return free > need"), (
        "the entry's replace must turn 'return free >= need' into 'return free > need'; it has "
        f"old {table['old']!r}, new {table['new']!r}"
    )
    source = mutant.function_source
    assert source.count(table["old"]) == 1, (
        "the entry's old text must occur exactly once in the function; it occurs "
        f"{source.count(table['old'])} times"
    )
    assert source.replace(table["old"], table["new"]) == mutant.mutated_function_source, (
        "the entry's replace applied to the function must give the mutant's source, yet it does not"
    )
    assert "covering now: tests/test_gate.py::test_admit" in catalog_entry(
        mutant, ["tests/test_gate.py::test_admit"]), (
        "the catalog entry must name the tests covering the line ('covering now: "
        "tests/test_gate.py::test_admit'), yet it does not"
    )


def test_a_line_repeated_in_the_function_falls_back_to_a_unique_snippet(tmp_path: Path):
    mutants = mutants_of(tmp_path, """
        def f(a, b, flag):
            if flag:
                return a < b
            else:
                return a < b
        """, "return a < b")
    assert len(mutants) == 2, (
        f"each of the two lines `return a < b` must get a mutant; got {len(mutants)}"
    )
    for mutant in mutants:
        old, new = replace_snippet(mutant)
        source = mutant.function_source
        assert source.count(old) == 1, old  # the bare line `return a < b` occurs twice
        assert source.replace(old, new) == mutant.mutated_function_source, (
            f"the widened replace must reproduce the mutant's source; old {old!r}, new {new!r}"
        )
        assert "\n" in old, (
            "a line repeated in the function must be widened to a unique run of lines; old is "
            f"{old!r}"
        )  # widened to a unique run of lines


def test_strings_with_quotes_and_backslashes_round_trip_through_toml(tmp_path: Path):
    (mutant,) = mutants_of(tmp_path, r'''
        def label(n):
            return n + 1 if "a\"b\\c" else 0
        ''', "return n + 1", per_line=1)
    table = tomllib.loads(catalog_entry(mutant))["mutant"][0]
    assert mutant.function_source.replace(table["old"], table["new"]) == \
        mutant.mutated_function_source, (
        "a replace with quotes and backslashes must round-trip through TOML; old "
        f"{table['old']!r}, new {table['new']!r}"
    )


def test_change_slug_names_the_operator_change():
    assert change_slug("x = a < b", "x = a <= b") == "lt-to-le", (
        f"< to <= must be named lt-to-le; it was {change_slug('x = a < b', 'x = a <= b')!r}"
    )
    assert change_slug("ok = a and b", "ok = a or b") == "and-to-or", (
        f"and to or must be named and-to-or; it was {change_slug('ok = a and b', 'ok = a or b')!r}"
    )
    assert change_slug("return not done", "return done") == "not-to-none", (
        "dropping not must be named not-to-none; it was "
        f"{change_slug('return not done', 'return done')!r}"
    )
    assert change_slug("flag = True", "flag = False") == "True-to-False", (
        "True to False must be named True-to-False; it was "
        f"{change_slug('flag = True', 'flag = False')!r}"
    )


def test_the_engine_loads_the_entry_and_its_replace_makes_the_same_mutant(
        tmp_path: Path, monkeypatch):
    """Adopted as a named mutant (owners filled in), the entry is the very same defect."""
    import importlib
    import sys

    from deskcheck.mutants.catalog import load_catalog
    from deskcheck.mutants.mutation import build_mutation

    (mutant,) = mutants_of(tmp_path, """
        class Gate:
            def admit(self, free, need):
                # admit when it fits
                return free >= need and need > 0
        """, "return free >= need")
    entry = catalog_entry(mutant).replace("owners = []", 'owners = ["tests/test_gate.py"]')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gate.py").write_text("def test_admit():\n    pass\n")
    (tmp_path / "mutants.toml").write_text(entry)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()
    (named,) = load_catalog(tmp_path / "mutants.toml").mutants
    assert named.operator == "replace", (
        f"the adopted entry must load as a replace mutant; it loaded as {named.operator!r}"
    )
    assert build_mutation(named).mutated == mutant.mutated_function_source, (
        "the adopted entry's replace must make the same mutant; it made "
        f"{build_mutation(named).mutated!r}, expected {mutant.mutated_function_source!r}"
    )
