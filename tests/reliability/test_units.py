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
