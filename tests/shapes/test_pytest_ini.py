"""The one reader of pytest's configuration: pytest's file precedence, values of each kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import ConfigError
from deskcheck.pytest_ini import pytest_config


def _write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_the_first_file_that_configures_pytest_wins(tmp_path) -> None:
    _write(tmp_path, "setup.cfg", "[tool:pytest]\ntestpaths = from_cfg\n")
    _write(tmp_path, "tox.ini", "[tox]\nenvlist = py\n")  # no [pytest]: not a config
    _write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")  # no table: not a config
    assert pytest_config(tmp_path).args("testpaths") == ["from_cfg"], (
        "setup.cfg's [tool:pytest] must win over files that do not configure pytest")
    _write(tmp_path, "tox.ini", "[pytest]\ntestpaths = from_tox\n")
    assert pytest_config(tmp_path).path == tmp_path / "tox.ini", "tox.ini comes before setup.cfg"
    _write(tmp_path, ".pytest.ini", "[pytest]\ntestpaths = a b\n")
    assert pytest_config(tmp_path).args("testpaths") == ["a", "b"], (
        ".pytest.ini comes before tox.ini, and its text splits into words")
    _write(tmp_path, "pytest.ini", "")
    config = pytest_config(tmp_path)
    assert config.path == tmp_path / "pytest.ini" and config.values == {}, (
        "an empty pytest.ini still configures pytest (it wins with no options)")


def test_a_closer_folder_wins_and_toml_keeps_lists(tmp_path) -> None:
    _write(tmp_path, "pytest.ini", "[pytest]\naddopts = -x\n")
    _write(tmp_path / "sub", "pyproject.toml",
           '[tool.pytest.ini_options]\naddopts = "--doctest-modules --doctest-glob=*.rst"\n'
           'testpaths = ["t one", "docs"]\n')
    config = pytest_config(tmp_path / "sub" / "deeper")
    assert config.path == tmp_path / "sub" / "pyproject.toml", "the nearest folder's file wins"
    assert config.args("testpaths") == ["t one", "docs"], "a TOML list is kept as it is"
    assert config.doctest_modules() and config.doctest_globs() == ("*.rst",), (
        "addopts --doctest-modules --doctest-glob=*.rst must turn doctest modules on with the "
        f"glob *.rst; modules {config.doctest_modules()}, globs {config.doctest_globs()}"
    )
    assert pytest_config(tmp_path).doctest_globs() == ("test*.txt",), "pytest's default glob"


def test_native_toml_table_and_bad_toml(tmp_path) -> None:
    _write(tmp_path, "pyproject.toml", '[tool.pytest]\naddopts = ["--doctest-glob", "*.txt"]\n')
    assert pytest_config(tmp_path).doctest_globs() == ("*.txt",), (
        "a native [tool.pytest] table's addopts list must give the doctest glob *.txt; it gave "
        f"{pytest_config(tmp_path).doctest_globs()}"
    )
    _write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options\n")
    with pytest.raises(ConfigError) as caught:
        pytest_config(tmp_path)
    assert caught.value.location == f"{tmp_path / 'pyproject.toml'}:1", (
        f"a TOML error must name file:line, got {caught.value.location}")
