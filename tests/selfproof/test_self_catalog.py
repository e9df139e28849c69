"""The self-catalog's references hold (tests/mutants.toml; docs/selfproof.md): every
``[sweep] tests`` entry and every owner of a self-mutant names a test file that exists and, for
a node id, the classes and test functions it names. A move or rename that leaves the catalog
pointing at nothing fails here in a second, not after a self-sweep."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[1] / "mutants.toml"


def _defined(path: Path) -> set[str]:
    """Every function and class name defined in ``path``, nested ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _line(text: str, needle: str, after: str = "") -> int:
    start = text.find(after) if after else 0
    return text[:max(text.find(f'"{needle}"', max(start, 0)), 0)].count("\n") + 1


def _problem(base: Path, node_id: str) -> str | None:
    """What ``node_id`` (a path under ``base``, maybe ``::Class::test[params]``) misses."""
    path, *names = node_id.split("::")
    target = base / path
    if not target.exists():
        return f"no file {target.relative_to(base)}"
    if not names or target.is_dir():
        return None
    defined = _defined(target)
    missing = [n for n in (re.sub(r"\[.*\]$", "", n) for n in names) if n not in defined]
    return f"no {', '.join(missing)} in {path}" if missing else None


def dangling_references(catalog: Path) -> list[str]:
    """``catalog:LINE: ...`` for every ``[sweep] tests`` entry (relative to the catalog's folder)
    and every owner node id (relative to the folder above it, or to the catalog's own folder:
    the sweep resolves a selection against each root) that names nothing."""
    text = catalog.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    bad = []
    for entry in data.get("sweep", {}).get("tests", []):
        problem = _problem(catalog.parent, entry)
        if problem:
            bad.append(f"{catalog.name}:{_line(text, entry)}: [sweep] tests entry {entry!r}: "
                       f"{problem}")
    for mutant in data.get("mutant", []):
        for owner in mutant.get("owners", []):
            if owner.startswith("-"):  # -k / -m selections name no file
                continue
            problem = _problem(catalog.parent.parent, owner)
            if problem and _problem(catalog.parent, owner) is None:
                continue
            if problem:
                where = _line(text, owner, after=f'id = "{mutant["id"]}"')
                bad.append(f"{catalog.name}:{where}: owner {owner!r} of "
                           f"{mutant['id']}: {problem}")
    return bad


def test_every_reference_of_the_self_catalog_names_a_test() -> None:
    bad = dangling_references(CATALOG)
    assert not bad, ("tests/mutants.toml names tests that do not exist (moved or renamed? "
                     "update the owner or the [sweep] tests entry):\n" + "\n".join(bad))


def test_the_reference_check_can_fail(tmp_path: Path) -> None:
    """Can-fail arm: a missing file, a missing function and a missing class are each named at
    their line; a -k owner, a folder and a parametrized id that exist are not."""
    tests = tmp_path / "tests"
    (tests / "unit").mkdir(parents=True)
    (tests / "test_a.py").write_text("class TestBox:\n    def test_in(self):\n        pass\n\n"
                                     "def test_a():\n    pass\n", encoding="utf-8")
    catalog = tests / "mutants.toml"
    catalog.write_text(
        '[sweep]\ntests = ["test_a.py", "unit", "gone.py"]\n\n'
        '[[mutant]]\nid = "m.one"\nowners = [\n    "tests/test_a.py::test_a[2]",\n'
        '    "tests/test_a.py::test_gone",\n    "tests/test_a.py::TestBox::test_in",\n'
        '    "tests/test_a.py::TestNone::test_in",\n    "tests/missing.py::test_x",\n'
        '    "-k test_a",\n]\n', encoding="utf-8")
    got = dangling_references(catalog)
    assert got == [
        "mutants.toml:2: [sweep] tests entry 'gone.py': no file gone.py",
        "mutants.toml:8: owner 'tests/test_a.py::test_gone' of m.one: no test_gone in "
        "tests/test_a.py",
        "mutants.toml:10: owner 'tests/test_a.py::TestNone::test_in' of m.one: no TestNone in "
        "tests/test_a.py",
        "mutants.toml:11: owner 'tests/missing.py::test_x' of m.one: no file tests/missing.py",
    ], f"the self-catalog reference check missed or misnamed a dangling reference: {got}"
