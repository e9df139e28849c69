"""In-process checks of the pieces the battery relies on (fast owners of self-mutants)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.config_keys import check_section
from deskcheck.errors import ConfigError
from deskcheck.report.summary import summarize


def test_a_run_with_a_planned_mutant_never_judged_does_not_hold() -> None:
    summary = summarize([], planned=["k.a", "k.b"])
    assert summary["never_judged"] == 2 and summary["never_judged_ids"] == ["k.a", "k.b"], (
        f"two planned mutants without a verdict were not counted: {summary}")
    assert summary["holds"] is False, "a run that judged nothing of its plan holds"


def test_an_unknown_deskcheck_key_is_reported_with_its_line() -> None:
    text = '[project]\nname = "x"\n\n[tool.deskcheck]\ncatalgo = "m.toml"\n'
    with pytest.raises(ConfigError) as caught:
        check_section({"catalgo": "m.toml"}, Path("pyproject.toml"), text)
    assert caught.value.location == "pyproject.toml:5" and "did you mean 'catalog'" in \
        caught.value.message, f"the unknown key was reported as {caught.value.render()!r}"


def test_a_repository_named_by_git_dir_is_discovered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    import subprocess

    from deskcheck.gate.git import GitRepo

    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    shutil.move(tree / ".git", tmp_path / "repo.git")
    monkeypatch.chdir(tree)
    monkeypatch.setenv("GIT_DIR", "../repo.git")  # relative: git reads it against the cwd
    monkeypatch.setenv("GIT_WORK_TREE", ".")
    repo = GitRepo.discover()
    assert repo.root == tree.resolve(), f"the work tree GIT_WORK_TREE names was not found: " \
        f"{repo.root}"
    assert repo.location_env == {"GIT_DIR": str((tmp_path / "repo.git").resolve()),
                                 "GIT_WORK_TREE": str(tree.resolve())}, (
        f"GIT_DIR/GIT_WORK_TREE were not kept as absolute paths: {repo.location_env}")


def _catalog_project(root: Path, target: str, owner: str) -> Path:
    (root / "kpkg").mkdir(parents=True)
    (root / "kpkg" / "__init__.py").write_text("")
    (root / "kpkg" / "mod.py").write_text("def total(values):\n    return sum(values)\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("def test_total():\n    pass\n")
    catalog = root / "mutants.toml"
    catalog.write_text(f'[sweep]\ntests = ["tests"]\n\n[[mutant]]\nid = "k.a"\ntitle = "t"\n'
                       f'target = "{target}"\noperator = "return"\nvalue = "0"\n'
                       f'owners = ["{owner}"]\n')
    return catalog


def _catalog_problems(catalog: Path) -> list[tuple[str, str]]:
    """(location, message) of every problem reading ``catalog`` reports; [] when it loads."""
    from deskcheck.errors import CatalogError
    from deskcheck.mutants import load_catalog

    try:
        load_catalog(catalog)
    except CatalogError as exc:
        return [(str(e.location), e.message) for e in exc.errors]
    return []


def test_a_target_module_that_exists_nowhere_is_refused_when_the_catalog_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    catalog = _catalog_project(tmp_path, "kpgk.mod:total", "tests/test_mod.py::test_total")
    found = _catalog_problems(catalog)
    assert any(where.endswith("mutants.toml:7") and "no module 'kpgk'" in message
               and "did you mean 'kpkg'" in message for where, message in found), (
        f"a target in a module that exists nowhere was not refused at its line: {found}")


def test_a_dotdot_owner_the_sweep_cannot_resolve_is_refused_when_the_catalog_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    catalog = _catalog_project(tmp_path, "kpkg.mod:total", "../tests/test_mod.py::test_total")
    found = _catalog_problems(catalog)
    assert any(where.endswith("mutants.toml:10") and "'../tests/test_mod.py'" in message
               and "did you mean 'tests/test_mod.py::test_total'" in message
               for where, message in found), (
        f"a '../' owner found only through the [sweep] tests folder was accepted: {found}")
    good = _catalog_project(tmp_path / "sub", "kpkg.mod:total",
                            "../sub/tests/test_mod.py::test_total")
    monkeypatch.chdir(tmp_path / "sub")
    assert not _catalog_problems(good), "a '../' owner that comes back into the folder is fine"


def test_a_dotdot_owner_outside_the_sweeps_tests_is_refused_when_the_catalog_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner's file exists, but outside every [sweep] tests path: pytest never collects
    it, so only a collection would have said 'matches no collected test'."""
    other = tmp_path / "other" / "tests"
    other.mkdir(parents=True)
    (other / "test_mod.py").write_text("def test_total():\n    pass\n")
    catalog = _catalog_project(tmp_path / "sub", "kpkg.mod:total",
                               "../other/tests/test_mod.py::test_total")
    monkeypatch.chdir(tmp_path / "sub")
    found = _catalog_problems(catalog)
    assert any(where.endswith("mutants.toml:10") and "outside the sweep's tests" in message
               for where, message in found), (
        f"a '../' owner outside every [sweep] tests path was accepted: {found}")
