"""Where ``deskcheck drift`` looks for guards (docs/drift.md, ``deskcheck drift``;
deskcheck/drift_guard/_discover.py), in-process: ``[tool.deskcheck] harnesses`` (files,
folders, globs or dotted modules), else pytest's ``testpaths``, else ``tests``; only ``.py``
files that mention ``deskcheck.harness`` / ``deskcheck.stubs`` are imported, pytest-style,
their ``conftest.py`` files first; paths given on the command line, unreadable files, shared
conftests, and the errors a user reads."""

from __future__ import annotations

import locale
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from deskcheck.config import ProjectConfig
from deskcheck.drift_guard._discover import candidate_files, import_guard_modules, search_paths
from deskcheck.errors import ConfigError

GUARD = "from deskcheck.harness import Harness\nLOADED = True\n"


def project(tmp_path: Path, pyproject: str, files: dict[str, str]) -> ProjectConfig:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(pyproject), encoding="utf-8")
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    values = tomllib.loads(textwrap.dedent(pyproject)).get("tool", {}).get("deskcheck", {})
    return ProjectConfig(root=tmp_path, pyproject=tmp_path / "pyproject.toml", values=values)


@pytest.mark.parametrize(("pyproject", "explicit", "expected", "why"), [
    ('[tool.deskcheck]\nharnesses = ["a", "b.py"]\n', (), ["a", "b.py"],
     "[tool.deskcheck] harnesses comes first"),
    ('[tool.pytest.ini_options]\ntestpaths = ["t1", "t2"]\n', (), ["t1", "t2"],
     "without harnesses, pytest's testpaths"),
    ('[tool.pytest.ini_options]\ntestpaths = []\n', (), ["tests"],
     "an empty testpaths falls back to tests"),
    ("[project]\nname = 'x'\n", (), ["tests"], "without either, tests"),
    ('[tool.deskcheck]\nharnesses = ["a"]\n', ("cli",), ["cli"],
     "paths given on the command line win over the config"),
])
def test_the_search_order(tmp_path, pyproject, explicit, expected, why):
    got = search_paths(project(tmp_path, pyproject, {}), explicit)
    assert got == expected, f"deskcheck drift would look in {got}, not {expected}: {why}"


def test_harnesses_that_are_not_a_list_of_strings_are_refused(tmp_path):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = "tests"\n', {})
    with pytest.raises(ConfigError) as caught:
        search_paths(config)
    assert "harnesses must be a list of strings" in str(caught.value) and \
        caught.value.location == str(config.pyproject) and \
        'harnesses = ["tests"' in (caught.value.fix or ""), (
            f"a harnesses string was not refused at the pyproject: {caught.value} at "
            f"{caught.value.location}")


def test_only_files_mentioning_deskcheck_guards_are_candidates(tmp_path):
    config = project(tmp_path, "[project]\nname = 'x'\n", {
        "tests/test_guarded.py": GUARD,
        "tests/sub/test_stub.py": "import deskcheck.stubs\n",
        "tests/test_plain.py": "def test_x(): pass\n",
        "more/glob_one.py": GUARD,
        "more/notes.txt": GUARD,
    })
    files, modules = candidate_files(config.root, ["missing_dir", "pkg.harnesses", "tests",
                                                   "more/*.py"])
    got = sorted(str(f.relative_to(tmp_path)) for f in files)
    assert got == ["more/glob_one.py", "tests/sub/test_stub.py", "tests/test_guarded.py"], (
        f"the candidates must be the .py files (under folders and globs) that mention "
        f"deskcheck.harness / deskcheck.stubs; got {got}")
    assert modules == ["pkg.harnesses"], (
        f"a dotted name that is no path must be imported as a module; modules are {modules}")


def test_guard_modules_are_imported_with_their_conftests_first(tmp_path, monkeypatch):
    log = tmp_path / "order.txt"
    record = f"open({str(log)!r}, 'a').write(__name__ + '\\n')\n"
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["checks"]\n', {
        "checks/__init__.py": "",
        "checks/conftest.py": record,
        "checks/test_dc_disc_guard.py": record + GUARD,
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    try:
        imported = import_guard_modules(config)
    finally:
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)
    names = [Path(p).name for p in imported]
    assert names == ["conftest.py", "test_dc_disc_guard.py"], (
        f"deskcheck drift must import the guard module after its conftest.py, as pytest "
        f"would; it imported {names}")
    order = log.read_text().split()
    assert order == ["checks.conftest", "checks.test_dc_disc_guard"], (
        f"the modules ran in the order {order}, not conftest first")


def test_a_guard_module_that_fails_to_import_names_its_line(tmp_path, monkeypatch):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["bad"]\n', {
        "bad/test_dc_disc_bad.py": GUARD + "raise RuntimeError('boom')\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    error = caught.value
    assert "RuntimeError: boom" in str(error) and error.location.endswith(
        "test_dc_disc_bad.py:3") and "importable as pytest would" in (error.fix or ""), (
        f"an import failure must name the exception and the failing line "
        f"(test_dc_disc_bad.py:3); got {error} at {error.location}")
    sys.modules.pop("test_dc_disc_bad", None)


def test_a_dotted_entry_that_cannot_be_imported_is_a_config_error(tmp_path):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["no_such_pkg_dc.harnesses"]\n',
                     {})
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    error = caught.value
    assert "'no_such_pkg_dc.harnesses' is neither a path nor an importable module" in \
        str(error) and error.location == str(config.pyproject) and \
        "dotted module names" in (error.fix or ""), (
            f"the unknown dotted entry must be named at the pyproject with a fix: {error} at "
            f"{error.location} (fix {error.fix!r})")


def test_an_absolute_entry_and_an_entry_after_a_missing_one_are_searched(tmp_path):
    config = project(tmp_path, "[project]\nname = 'x'\n", {"abs/test_g.py": GUARD,
                                                          "rel/test_h.py": GUARD})
    files, _ = candidate_files(config.root, ["nowhere", str(tmp_path / "abs"), "gone.dotted",
                                             "rel"])
    got = sorted(f.name for f in files)
    assert got == ["test_g.py", "test_h.py"], (
        f"an absolute folder and entries after a missing path or an unimportable dotted name "
        f"must still be searched; found {got}")


def test_a_conftest_above_the_project_root_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "conftest.py").write_text("raise RuntimeError('outside the project')\n")
    inner = tmp_path / "proj"
    inner.mkdir()
    config = project(inner, '[tool.deskcheck]\nharnesses = ["checks"]\n', {
        "checks/test_dc_disc_inner.py": GUARD})
    monkeypatch.syspath_prepend(str(inner))
    before = set(sys.modules)
    try:
        imported = import_guard_modules(config)
    finally:
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)
    assert [Path(p).name for p in imported] == ["test_dc_disc_inner.py"], (
        f"only conftest.py files inside the project root are imported, as pytest would; "
        f"imported {imported}")


def test_a_dotted_entry_is_imported_by_name(tmp_path, monkeypatch):
    (tmp_path / "dc_disc_pkg").mkdir()
    (tmp_path / "dc_disc_pkg" / "__init__.py").write_text("")
    (tmp_path / "dc_disc_pkg" / "guards.py").write_text(GUARD)
    config = project(tmp_path / "dc_disc_pkg", '[tool.deskcheck]\nharnesses = '
                     '["dc_disc_pkg.guards"]\n', {})
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        imported = import_guard_modules(config)
    finally:
        for name in ("dc_disc_pkg", "dc_disc_pkg.guards"):
            sys.modules.pop(name, None)
    assert imported == ["dc_disc_pkg.guards"], (
        f"a dotted harnesses entry must be imported as a module and reported by its name; "
        f"imported {imported}")


@pytest.fixture
def clean_modules(monkeypatch, tmp_path):
    """The project root on sys.path; every module imported by the test forgotten after it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        sys.modules.pop(name, None)


def test_a_missing_path_with_a_dot_in_it_is_skipped_not_imported(tmp_path):
    files, modules = candidate_files(tmp_path, ["docs/v1.2/tests", "tests/test_x.py",
                                                "pkg.XLA_guards"])
    assert (files, modules) == ([], ["pkg.XLA_guards"]), (
        "entries that hold a '/' or end in .py are paths: absent ones are skipped (testpaths "
        "may list folders that do not exist), never imported as modules; a dotted name is a "
        f"module to import; got {modules}")


def test_an_unreadable_file_does_not_stop_the_search_of_its_folder(tmp_path):
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "a_latin1.py").write_bytes(b"# caf\xe9\nimport deskcheck.harness\n")
    (tmp_path / "checks" / "b_guard.py").write_text(GUARD, encoding="utf-8")
    files, _ = candidate_files(tmp_path, ["checks"])
    assert [f.name for f in files] == ["a_latin1.py", "b_guard.py"], (
        "a file that is not UTF-8 but mentions deskcheck.harness is a candidate (its import "
        "names the problem; it is never skipped in silence, issue 31), and the files after "
        f"it are still searched; found {[f.name for f in files]}")


def test_a_conftest_shared_by_two_guard_modules_is_imported_once(tmp_path, clean_modules):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["checks"]\n', {
        "checks/__init__.py": "",
        "checks/conftest.py": "",
        "checks/test_dc_gap_one.py": GUARD,
        "checks/test_dc_gap_two.py": GUARD,
    })
    names = [Path(p).name for p in import_guard_modules(config)]
    assert names == ["conftest.py", "test_dc_gap_one.py", "test_dc_gap_two.py"], (
        f"the shared conftest.py is imported once, before the first guard module; got {names}")


def test_paths_given_on_the_command_line_replace_the_configured_ones(tmp_path, clean_modules):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["configured"]\n', {
        "configured/test_dc_gap_conf.py": GUARD,
        "cli/test_dc_gap_cli.py": GUARD,
    })
    names = [Path(p).name for p in import_guard_modules(config, ["cli"])]
    assert names == ["test_dc_gap_cli.py"], (
        f"`deskcheck drift PATHS` looks only in PATHS, not in [tool.deskcheck] harnesses; "
        f"imported {names}")


def test_a_guard_module_outside_a_package_is_imported_by_its_basename(tmp_path, clean_modules):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["nspkg"]\n', {
        "nspkg/test_dc_gap_ns.py": GUARD})
    import_guard_modules(config)
    module = sys.modules.get("test_dc_gap_ns")
    assert module is not None and Path(module.__file__) == tmp_path / "nspkg/test_dc_gap_ns.py", (
        "a folder without __init__.py is no package to pytest's default import (namespace "
        "packages not considered): the module is named by its file name; modules now: "
        f"{sorted(n for n in sys.modules if 'dc_gap_ns' in n)}")


def test_a_failed_import_inside_a_guard_module_names_the_import_line(tmp_path, clean_modules):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["bad"]\n', {
        "bad/test_dc_gap_missing.py": GUARD + "import no_such_module_dc_gap\n"})
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    error = caught.value
    assert error.location == f"{tmp_path / 'bad/test_dc_gap_missing.py'}:3", (
        "the location is the guard module's own failing line (3), not a frame of the import "
        f"machinery; got {error.location}")
    assert error.fix == ("make it importable as pytest would (conftest.py, sys.path), or "
                         "narrow [tool.deskcheck] harnesses to the files that declare "
                         "harnesses"), error.fix


def test_an_unimportable_dotted_entry_tells_what_an_entry_may_be(tmp_path):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["no_such_pkg_dc_gap.h"]\n', {})
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    assert caught.value.fix == "list files, folders, globs or dotted module names", (
        f"the fix must say what a harnesses entry may be; got {caught.value.fix!r}")


def test_harnesses_that_are_not_a_list_say_so_with_an_example(tmp_path):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = [1]\n', {})
    with pytest.raises(ConfigError) as caught:
        search_paths(config)
    assert caught.value.message == "[tool.deskcheck] harnesses must be a list of strings", \
        caught.value.message
    assert caught.value.fix == 'harnesses = ["tests", "examples/tp_scheduler/tests"]', (
        f"the fix is an example line to paste; got {caught.value.fix!r}")


def test_code_run_through_eval_is_blamed_on_the_guard_modules_line(tmp_path, clean_modules):
    config = project(tmp_path, '[tool.deskcheck]\nharnesses = ["bad"]\n', {
        "bad/test_dc_gap_eval.py": GUARD + "VALUE = eval('undefined_name_dc_gap')\n"})
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    assert caught.value.location == f"{tmp_path / 'bad/test_dc_gap_eval.py'}:3", (
        "the innermost frame is eval's '<string>', which names no file: the location is the "
        f"guard module's own line 3; got {caught.value.location}")


@pytest.fixture
def ascii_locale():
    """A locale whose encoding is not UTF-8 (ASCII), for the duration of one test."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_the_pyproject_and_guard_modules_are_read_as_utf8_whatever_the_locale(tmp_path,
                                                                              ascii_locale):
    config = project(tmp_path, '# maintained by José\n[tool.pytest.ini_options]\n'
                               'testpaths = ["checks"]\n', {
                                   "checks/test_guard.py": "# café\n" + GUARD})
    entries = search_paths(config)
    assert entries == ["checks"], f"pytest's testpaths must be read; got {entries}"
    files, _ = candidate_files(tmp_path, entries)
    assert [f.name for f in files] == ["test_guard.py"], (
        "a UTF-8 guard module with a non-ASCII comment must be found under an ASCII locale; "
        f"found {[f.name for f in files]}")
