"""[tool.deskcheck] key types, checked in process: TOML's ``true`` is not an integer, a list
key holds strings only, and every bad key is one error of the same pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deskcheck.config_keys import check_section
from deskcheck.errors import ConfigError

TEXT = '[tool.deskcheck]\nauto_max_mutants = true\nauto_operators = [1]\ncatalgo = "m"\n'


def test_a_boolean_for_an_integer_key_is_the_wrong_type() -> None:
    with pytest.raises(ConfigError) as caught:
        check_section({"auto_max_mutants": True}, Path("pyproject.toml"),
                      '[tool.deskcheck]\nauto_max_mutants = true\n')
    assert "auto_max_mutants = True has the wrong type" in caught.value.message, (
        "auto_max_mutants = true was not refused as the wrong type (a bool passed as an "
        f"integer): {caught.value.render()!r}")
    assert caught.value.location == "pyproject.toml:2", caught.value.render()


def test_a_list_key_holding_a_number_is_the_wrong_type() -> None:
    with pytest.raises(ConfigError) as caught:
        check_section({"auto_operators": [1]}, Path("pyproject.toml"),
                      '[tool.deskcheck]\nauto_operators = [1]\n')
    assert "auto_operators = [1] has the wrong type" in caught.value.message, (
        f"a list of non-strings was accepted for a list-of-names key: {caught.value.render()!r}")


def test_every_bad_key_is_one_error_of_the_same_pass() -> None:
    section = {"auto_max_mutants": True, "auto_operators": [1], "catalgo": "m"}
    with pytest.raises(ConfigError) as caught:
        check_section(section, Path("pyproject.toml"), TEXT)
    where = sorted(e.location for e in caught.value.errors)
    assert where == ["pyproject.toml:2", "pyproject.toml:3", "pyproject.toml:4"], (
        f"three bad keys must be reported together, one per line; got {where} in "
        f"{caught.value.render()!r}")


def _readme_keys() -> list[str]:
    """The keys of README.md's ``[tool.deskcheck]`` configuration table (first column)."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = text.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    keys: list[str] = []
    for row in rows[2:]:
        keys += re.findall(r"`([a-z_]+)`", row.split("|")[1])
    return keys


SAMPLE = {str: "x", list: ["x"], int: 3, float: 1.5}


def test_every_key_of_the_readme_configuration_table_is_accepted() -> None:
    keys = _readme_keys()
    assert len(keys) >= 14, f"README's configuration table was not read: {keys}"
    for key in keys:
        types = {"catalog": str, "store": str, "harnesses": list, "test_paths": list,
                 "source_paths": list, "auto_crash_kills": str}.get(key)
        if types is None:
            types = int if key in ("auto_max_mutants", "auto_max_per_line") else (
                float if key.startswith("auto_") and ("timeout" in key) else list)
        value = SAMPLE[types]
        try:
            check_section({key: value}, Path("pyproject.toml"),
                          f"[tool.deskcheck]\n{key} = {value!r}\n")
        except ConfigError as error:
            raise AssertionError(
                f"README documents [tool.deskcheck] {key}, but {key} = {value!r} is refused: "
                f"{error.render()}") from None
