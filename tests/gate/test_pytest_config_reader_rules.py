"""The shared pytest config reader (deskcheck/pytest_ini.py) and deskcheck's own folder:
pytest's file order within a folder, the default doctest glob, the self-ignoring folder."""

from __future__ import annotations

from deskcheck.own_folders import GITIGNORE_TEXT, ignore_own_folder
from deskcheck.pytest_ini import pytest_config


def test_pytest_ini_wins_over_pyproject_in_one_folder(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["py"]\n')
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = ini\n")
    config = pytest_config(tmp_path)
    assert config.path == tmp_path / "pytest.ini", (
        f"the config was read from {config.path}: pytest takes pytest.ini before "
        "pyproject.toml in one folder")
    assert config.args("testpaths") == ["ini"], (
        f"testpaths must come from pytest.ini (ini); it is {config.args('testpaths')}"
    )


def test_the_default_doctest_glob_is_test_star_txt(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    globs = pytest_config(tmp_path).doctest_globs()
    assert globs == ("test*.txt",), (
        f"without --doctest-glob the doctest files were {globs}, pytest's default is test*.txt")


def test_deskcheck_folder_ignores_itself_once_it_exists(tmp_path):
    folder = tmp_path / ".deskcheck"
    folder.mkdir()
    ignore_own_folder(folder)
    marker = folder / ".gitignore"
    assert marker.exists() and marker.read_text() == GITIGNORE_TEXT, (
        "an existing .deskcheck/ folder did not get its own .gitignore")


def test_a_folder_of_the_users_choice_is_left_alone(tmp_path):
    folder = tmp_path / "store"
    folder.mkdir()
    ignore_own_folder(folder)
    assert not (folder / ".gitignore").exists(), "a user's own store folder got a .gitignore"
