"""Incremental reuse in less common cases (docs/report.md, *Incremental sweeps*;
docs/mutants.md, *Owners*): the fingerprint is the documented ``mutant_fingerprint`` of the
catalog entry, kills markers are read from any test file (a bare ``kills`` name, calls that
are not names, undecodable bytes, a non-UTF-8 locale, a dangling link), and an owner outside
the universe, a non-Python owner file or a catalog with no roots still count. No session, no
fork: files on disk only."""

from __future__ import annotations

import locale
import os
from pathlib import Path

import pytest

from deskcheck import __version__
from deskcheck.mutants import reuse
from deskcheck.mutants.catalog import Catalog, Mutant, SweepSettings
from deskcheck.mutants.reuse import DYNAMIC, declared_kills, fingerprint
from deskcheck.mutants.uniformity_owner import AuditSettings
from deskcheck.report.fingerprint import mutant_fingerprint


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "tests/test_a.py": "def test_a(): pass\n",
        "tests/test_b.py": "def test_b(): pass\n",
        "other/test_out.py": "def test_out(): pass\n",
        "other/cases.yaml": "- case: one\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    return tmp_path


def universe(project: Path, roots: tuple[Path, ...] | None = None) -> reuse.TestUniverse:
    catalog = Catalog(path=project / "mutants.toml", mutants=(),
                      settings=SweepSettings(tests=("tests",)))
    return reuse.TestUniverse(catalog, roots=[project] if roots is None else list(roots))


def mutant(*owners: str, mutant_id: str = "m.one") -> Mutant:
    return Mutant(id=mutant_id, title="t", target="pkg.mod:f", operator="swap",
                  params={"old": "<", "new": "<="}, owners=tuple(owners), expect="boom",
                  accepted_survivor="equivalent: x", timeout_s=5.0)


def rel(project: Path, files) -> list[str]:
    return sorted(str(Path(f).relative_to(project.resolve())) for f in files)


@pytest.fixture
def ascii_locale():
    """The process's locale encoding set to ASCII (a C-locale or Windows-like machine) for the
    test: a file read without an explicit encoding then decodes non-ASCII text wrongly."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_the_fingerprint_is_the_documented_hash_of_the_catalog_entry(project):
    """docs/report.md: the fingerprint is ``mutant_fingerprint(definition, target_source,
    owner_test_files, deskcheck_version)`` over the catalog entry; a recorder of one's own
    (docs/report.md, the RunRecorder example) computes it the same way and shares reuse."""
    owners = [project / "tests/test_a.py"]
    one = mutant("tests/test_a.py")
    entry = {"id": "m.one", "target": "pkg.mod:f", "operator": "swap",
             "params": {"old": "<", "new": "<="}, "owners": ["tests/test_a.py"],
             "expect": "boom", "accepted_survivor": "equivalent: x", "timeout_s": 5.0}
    documented = mutant_fingerprint(entry, "def f(): pass\n", owners, __version__)
    got = fingerprint(one, "def f(): pass\n", owners)
    assert got == documented, (
        "the sweep's fingerprint must be mutant_fingerprint of the catalog entry (its keys "
        "as the catalog spells them), the target source, the owner files and deskcheck's "
        f"version: {got} != {documented}, so verdicts recorded through the documented API "
        "would never be reused")


@pytest.mark.parametrize(("text", "expected"), [
    ("from marks import kills\nowner = kills\n", {DYNAMIC}),
    ('handlers[0]("x")\n@pytest.mark.kills("m.one")\ndef test_a(): pass\n', {"m.one"}),
    ('make()("x")\n@pytest.mark.kills("m.one")\ndef test_a(): pass\n', {"m.one"}),
])
def test_kills_markers_are_read_around_other_calls_and_names(text, expected):
    got = declared_kills(text)
    assert got == expected, (
        f"the kills markers of {text!r} were read as {got}, not {expected}: a bare `kills` "
        "name passed around may declare any mutant ('*'), and calls of something that is "
        "not a name (a subscript, a call) are no markers and must not stop the reading")


def test_a_test_file_with_undecodable_bytes_still_declares_its_kills(project):
    (project / "tests/test_b.py").write_bytes(
        b'# caf\xe9 (latin-1)\n@pytest.mark.kills("m.two")\ndef test_b(): pass\n')
    got = {k: rel(project, v) for k, v in universe(project).declarations.items()}
    assert got == {"m.two": ["tests/test_b.py"]}, (
        f"a test file holding a byte that is not UTF-8 must still be read (the byte "
        f"replaced) and declare m.two; the declarations are {got}")


def test_a_utf8_test_file_is_read_as_utf8_whatever_the_locale(project, ascii_locale):
    (project / "tests/test_b.py").write_text(
        '@pytest.mark.kills("m.two")\ndef test_café(): pass\n', encoding="utf-8")
    got = {k: rel(project, v) for k, v in universe(project).declarations.items()}
    assert got == {"m.two": ["tests/test_b.py"]}, (
        f"a test file is UTF-8 Python source: under an ASCII locale its non-ASCII test name "
        f"must still parse, declaring m.two and nothing dynamic ('*' would widen every "
        f"mutant's fingerprint); the declarations are {got}")


def test_a_dangling_test_file_link_does_not_stop_reading_the_others(project):
    (project / "tests/test_gone.py").symlink_to(project / "nowhere.py")
    (project / "tests/test_b.py").write_text('@pytest.mark.kills("m.two")\ndef test_b(): '
                                             'pass\n', encoding="utf-8")
    got = {k: rel(project, v) for k, v in universe(project).declarations.items()}
    assert got == {"m.two": ["tests/test_b.py"]}, (
        f"a test file that cannot be read (a dangling link) declares nothing, and the other "
        f"files' kills markers are still read; the declarations are {got}")


def test_an_owner_outside_the_universe_counts_after_a_keyword_owner(project):
    got = rel(project, universe(project).owner_files(
        mutant("-k test_a", "other/test_out.py::test_out")))
    assert got == ["other/test_out.py", "tests/test_a.py", "tests/test_b.py"], (
        f"a -k owner covers the universe, and a node-id owner outside [sweep] tests adds its "
        f"own file; the fingerprint covers {got}")


def test_a_non_python_owner_file_is_part_of_the_fingerprint(project):
    got = rel(project, universe(project).owner_files(mutant("other/cases.yaml::one")))
    assert got == ["other/cases.yaml"], (
        f"an owner in a non-Python test file (collected by a plugin) depends on that file; "
        f"the fingerprint covers {got}")


def test_without_roots_owners_are_found_from_the_catalogs_folder(project):
    got = universe(project, roots=()).owner_files(mutant("tests/test_b.py::test_b"))
    assert got is not None and rel(project, got) == ["tests/test_b.py"], (
        f"with no roots given, an owner's path is relative to the catalog's folder; "
        f"tests/test_b.py was {'not found' if got is None else rel(project, got)}")


def test_the_universe_files_follow_the_sweep_tests_setting(project):
    catalog = Catalog(path=project / "mutants.toml", mutants=(),
                      settings=SweepSettings(tests=("tests/test_a.py", "other/cases.yaml",
                                                    "other")))
    got = rel(project, reuse.TestUniverse(catalog, roots=[project]).files)
    assert got == ["other/test_out.py", "tests/test_a.py"], (
        f"[sweep] tests naming a .py file, a data file and a folder make a universe of the "
        f".py file and the folder's .py files; it is {got}")


def test_a_keyword_owned_mutants_fingerprint_is_its_universes(project):
    one = universe(project)
    files = one.owner_files(mutant("-k test_a"))
    assert files is one.files, "a -k owner's files must be the universe itself"
    fast = one.fingerprint(mutant("-k test_a"), "def f(): pass\n", files)
    slow = fingerprint(mutant("-k test_a"), "def f(): pass\n", list(files))
    assert fast == slow, (
        f"the universe's cached digests must give the same fingerprint as hashing its files "
        f"one by one: {fast} != {slow}")


def test_a_node_id_owned_mutants_fingerprint_covers_its_own_files_only(project):
    one = universe(project)
    files = one.owner_files(mutant("tests/test_b.py::test_b"))
    assert rel(project, files) == ["tests/test_b.py"], f"test_b's files are {files}"
    got = one.fingerprint(mutant("tests/test_b.py::test_b"), "def f(): pass\n", files)
    want = fingerprint(mutant("tests/test_b.py::test_b"), "def f(): pass\n", files)
    assert got == want, (
        f"a mutant owned by one test file must be fingerprinted over that file, not the "
        f"universe's cached digests: {got} != {want}")
    (project / "tests/test_a.py").write_text("def test_a(): assert 0\n", encoding="utf-8")
    again = universe(project).fingerprint(mutant("tests/test_b.py::test_b"), "def f(): pass\n",
                                          files)
    assert again == got, (
        "editing tests/test_a.py, which does not own the mutant, changed its fingerprint: its "
        "verdict would be re-run for nothing")


def test_the_conftest_chain_stops_at_the_project_root(tmp_path):
    project = tmp_path / "proj"
    for path, text in {"proj/pyproject.toml": "[project]\nname = 'p'\n",
                       "proj/conftest.py": "", "proj/tests/conftest.py": "",
                       "proj/tests/test_a.py": "def test_a(): pass\n",
                       "conftest.py": "# outside the project\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    got = rel(project, universe(project).owner_files(mutant("tests/test_a.py::test_a")))
    assert got == ["conftest.py", "tests/conftest.py", "tests/test_a.py"], (
        f"the conftest chain ends at the project root (the folder with pyproject.toml): the "
        f"conftest.py above it is no part of the project; the fingerprint covers {got}")


@pytest.mark.parametrize("marker", ["pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg"])
def test_each_project_root_marker_ends_the_conftest_chain(tmp_path, marker):
    project = tmp_path / "proj"
    for path, text in {f"proj/{marker}": "", "proj/tests/test_a.py": "def test_a(): pass\n",
                       "conftest.py": "# outside the project\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'outer'\n", encoding="utf-8")
    files = universe(project).owner_files(mutant("tests/test_a.py::test_a"))
    got = sorted(os.path.relpath(f, project.resolve()) for f in files)
    assert got == ["tests/test_a.py"], (
        f"docs/report.md: the conftest chain goes up to the project root, the first folder "
        f"with a pyproject.toml, pytest.ini, tox.ini or setup.cfg; with a {marker} in proj/ "
        f"the conftest.py above it must not be in the fingerprint, which covers {got}")


def test_the_owners_after_a_uniformity_owner_still_count(project):
    (project / "src").mkdir()
    (project / "src" / "sched.py").write_text("class Scheduler: pass\n", encoding="utf-8")
    catalog = Catalog(path=project / "mutants.toml", mutants=(),
                      settings=SweepSettings(tests=("tests",)),
                      uniformity=AuditSettings(target="sched:Scheduler", root="src"))
    got = rel(project, reuse.TestUniverse(catalog, roots=[project]).owner_files(
        mutant("uniformity:Scheduler.step", "tests/test_b.py::test_b")))
    assert got == ["pyproject.toml", "src/sched.py", "tests/test_b.py"], (
        "a mutant owned by the audit and by a test depends on the audit's sources and on that "
        f"test's file: the owners after a uniformity: owner count too; the fingerprint covers "
        f"{got}")
