"""[tool.deskcheck] key types, checked in process: TOML's ``true`` is not an integer, a list
key holds strings only, and every bad key is one error of the same pass."""

from __future__ import annotations

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
