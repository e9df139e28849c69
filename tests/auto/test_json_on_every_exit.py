"""docs/auto.md: "`--json` is written on every exit path (`holds: false`, `exit_code`,
`error` when the run could not finish)". In process: the guard the auto command runs in."""

from __future__ import annotations

import json

import pytest

from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.commands import _json_on_error


def test_a_config_error_still_writes_the_json_with_its_exit_code_and_error(tmp_path):
    out = tmp_path / "auto.json"
    with pytest.raises(ConfigError), _json_on_error(str(out), "origin/main"):
        raise ConfigError("the per-line mutant cap must be at least 1",
                          location="pyproject.toml:7", fix="use --max-per-line 1")
    assert out.is_file(), "docs/auto.md: --json is written on every exit path; no file was"
    data = json.loads(out.read_text(encoding="utf-8"))
    got = (data.get("holds"), data.get("exit_code"), data.get("error"))
    assert got == (False, 2, {"message": "the per-line mutant cap must be at least 1",
                              "location": "pyproject.toml:7", "fix": "use --max-per-line 1"}), (
        "a run stopped by a config error must write holds: false, exit_code 2 and the error "
        f"(message, location, fix) to --json; it wrote (holds, exit_code, error) = {got}")


def test_an_interrupt_still_writes_the_json_with_exit_130(tmp_path):
    out = tmp_path / "auto.json"
    with pytest.raises(KeyboardInterrupt), _json_on_error(str(out), "origin/main"):
        raise KeyboardInterrupt
    data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    assert (data.get("holds"), data.get("exit_code")) == (False, 130) \
            and "interrupted" in str(data.get("error")), (
        "an interrupted auto run must still write --json with holds: false, exit_code 130 "
        f"and the error saying it was interrupted; it wrote {data}")
