"""What a reused verdict depends on (docs/report.md, *Incremental sweeps*; docs/mutants.md,
*Owners*; the module doc of deskcheck.mutants.reuse): the fingerprint is the documented
``mutant_fingerprint`` of the catalog entry; a node-id owner's file, a folder's files, the
whole test universe for ``-k``/``-m`` owners and ``kills`` markers, each with its conftest
chain up to the project root; every catalog field is part of the fingerprint. No session,
no fork."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from deskcheck.mutants import reuse
from deskcheck.mutants.catalog import Catalog, Mutant, SweepSettings
from deskcheck.mutants.reuse import DYNAMIC, declared_kills, fingerprint


@pytest.mark.parametrize(("text", "expected"), [
    ("def test_a(): pass\n", set()),
    ('@pytest.mark.kills("m.one", "m.two")\ndef test_a(): pass\n', {"m.one", "m.two"}),
    ('@mark.kills("m.one")\ndef test_a(): pass\n', {"m.one"}),
    ('@kills("m.one")\ndef test_a(): pass\n', {"m.one"}),
    ('@pytest.mark.kills(ID)\ndef test_a(): pass\n', {DYNAMIC}),
    ('@pytest.mark.kills(id="m.one")\ndef test_a(): pass\n', {"m.one"}),
    ("owner = pytest.mark.kills\n", {DYNAMIC}),
    ('request.node.add_marker("kills")\n', {DYNAMIC}),
    ("def test_a(:\n    kills\n", {DYNAMIC}),
    ("# this test kills nothing\ndef test_a(): pass\n", set()),
])
def test_kills_declarations_are_read_without_collecting(text, expected):
    got = declared_kills(text)
    assert got == expected, (
        f"the kills markers of {text!r} were read as {got}, not {expected} ('*' = a marker "
        "that cannot be read statically, so any mutant may be declared)")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "conftest.py": "",
        "tests/conftest.py": "",
        "tests/test_a.py": "def test_a(): pass\n",
        "tests/unit/conftest.py": "",
        "tests/unit/test_b.py": "def test_b(): pass\n",
        "tests/unit/test_c.py": "def test_c(): pass\n",
        "tests/unit/data.txt": "not python\n",
        "tests/.hidden/test_h.py": "def test_h(): pass\n",
        "tests/__pycache__/x.py": "",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def universe(project: Path, extra: dict[str, str] | None = None) -> reuse.TestUniverse:
    for path, text in (extra or {}).items():
        (project / path).write_text(text, encoding="utf-8")
    catalog = Catalog(path=project / "mutants.toml", mutants=(),
                      settings=SweepSettings(tests=("tests",)))
    return reuse.TestUniverse(catalog, roots=[project])


def mutant(*owners: str, **changes) -> Mutant:
    return Mutant(id="m.one", title="t", target="pkg.mod:f", operator="return",
                  params={"value": "None"}, owners=tuple(owners), **changes)


def rel(project: Path, files) -> list[str]:
    return sorted(str(Path(f).relative_to(project.resolve())) for f in files)


def test_a_node_id_owner_depends_on_its_file_and_conftest_chain(project):
    got = rel(project, universe(project).owner_files(mutant("tests/unit/test_b.py::test_b")))
    assert got == ["conftest.py", "tests/conftest.py", "tests/unit/conftest.py",
                   "tests/unit/test_b.py"], (
        f"a node-id owner's verdict depends on its file and every conftest.py up to the "
        f"project root; the fingerprint covers {got}")


def test_a_folder_owner_depends_on_its_python_files_only(project):
    got = rel(project, universe(project).owner_files(mutant("tests/unit")))
    assert got == ["conftest.py", "tests/conftest.py", "tests/unit/conftest.py",
                   "tests/unit/test_b.py", "tests/unit/test_c.py"], (
        f"a folder owner's verdict depends on the .py files under it (not data files) and "
        f"their conftest chain; the fingerprint covers {got}")


@pytest.mark.parametrize("owner", ["-k test_b", "-m slow"])
def test_a_keyword_or_marker_owner_depends_on_the_whole_universe(project, owner):
    got = rel(project, universe(project).owner_files(mutant(owner)))
    assert got == ["conftest.py", "tests/conftest.py", "tests/test_a.py",
                   "tests/unit/conftest.py", "tests/unit/test_b.py", "tests/unit/test_c.py"], (
        f"what {owner!r} selects can change through any test file of the universe (hidden "
        f"folders and __pycache__ aside); the fingerprint covers {got}")


def test_a_kills_marker_elsewhere_widens_the_owner_files_to_the_universe(project):
    found = universe(project, {"tests/test_a.py": '@pytest.mark.kills("m.one")\n'
                                                 "def test_a(): pass\n"})
    got = rel(project, found.owner_files(mutant("tests/unit/test_b.py")))
    assert "tests/test_a.py" in got and "tests/unit/test_c.py" in got, (
        f"tests/test_a.py declares it kills m.one, so m.one's verdict depends on the whole "
        f"universe; the fingerprint covers only {got}")


def test_an_owner_naming_no_file_cannot_be_fingerprinted(project):
    got = universe(project).owner_files(mutant("tests/test_gone.py::test_x"))
    assert got is None, (
        f"an owner naming no file on disk must leave the mutant to a session (None); got {got}")


@pytest.mark.parametrize(("field", "value"), [
    ("id", "m.two"), ("target", "pkg.mod:g"), ("operator", "offset"),
    ("params", {"value": "1"}), ("owners", ("tests/test_a.py", "-k x")),
    ("expect", "boom"), ("accepted_survivor", "equivalent: x"), ("timeout_s", 5.0),
])
def test_every_catalog_field_is_part_of_the_fingerprint(project, field, value):
    owners = [project / "tests/test_a.py"]
    base = mutant("tests/test_a.py")
    changed = dataclasses.replace(base, **{field: value})
    before = fingerprint(base, "def f(): pass\n", owners)
    after = fingerprint(changed, "def f(): pass\n", owners)
    assert before != after, (
        f"changing the mutant's {field} to {value!r} left its fingerprint {before} unchanged: "
        "the old verdict would be reused for a different mutant")


def test_the_fingerprint_follows_the_target_source_and_deskchecks_version(project, monkeypatch):
    owners = [project / "tests/test_a.py"]
    base = fingerprint(mutant("tests/test_a.py"), "def f(): pass\n", owners)
    edited = fingerprint(mutant("tests/test_a.py"), "def f(): return 1\n", owners)
    assert edited != base, (
        f"editing the target function left the fingerprint {base} unchanged: a verdict on "
        "the old code would be reused")
    monkeypatch.setattr(reuse, "__version__", "999.0")
    upgraded = fingerprint(mutant("tests/test_a.py"), "def f(): pass\n", owners)
    assert upgraded != base, (
        f"another deskcheck version left the fingerprint {base} unchanged: verdicts judged by "
        "other verdict rules would be reused")


def test_a_test_universe_of_single_files_keeps_the_python_ones(project):
    catalog = Catalog(path=project / "mutants.toml", mutants=(),
                      settings=SweepSettings(tests=("tests/test_a.py", "tests/unit/data.txt")))
    got = rel(project, reuse.TestUniverse(catalog, roots=[project]).files)
    assert got == ["conftest.py", "tests/conftest.py", "tests/test_a.py"], (
        f"[sweep] tests naming a .py file and a data file must make a universe of the .py file "
        f"and its conftest chain; it is {got}")
