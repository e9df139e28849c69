from __future__ import annotations

import os
from pathlib import Path

import pytest

from deskcheck.config import load_config
from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.settings import settings_from


def _project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.deskcheck]\n{body}")
    return tmp_path


def test_config_keys_then_command_line_overrides(tmp_path: Path):
    root = _project(tmp_path, 'auto_max_mutants = 7\nauto_max_per_line = 2\n'
                              'test_paths = ["checks/"]\nauto_tests = ["checks"]\n'
                              'auto_arid_calls = ["self.tracer.*"]\n'
                              'auto_wrong_failure_types = ["TypeError"]\n')
    settings = settings_from(load_config(root), root, "main",
                             {"max_mutants": None, "max_per_line": 3, "workers": 1})
    assert settings.max_mutants == 7, (
        "auto_max_mutants = 7 must be read when the command line leaves it unset; max_mutants is "
        f"{settings.max_mutants}"
    )
    assert settings.max_per_line == 3, (
        "the command line's max_per_line 3 must win over auto_max_per_line = 2; it is "
        f"{settings.max_per_line}"
    )  # the command line wins
    assert settings.test_paths == ("checks/",), (
        f"test_paths = ['checks/'] must be read; it is {settings.test_paths}"
    )
    assert settings.tests == ("checks",), (
        f"auto_tests = ['checks'] must be read; tests is {settings.tests}"
    )
    assert settings.arid_calls == ("self.tracer.*",), (
        f"auto_arid_calls = ['self.tracer.*'] must be read; arid_calls is {settings.arid_calls}"
    )
    assert settings.wrong_failure_types == ("TypeError",), (
        "auto_wrong_failure_types = ['TypeError'] must be read; wrong_failure_types is "
        f"{settings.wrong_failure_types}"
    )


def test_a_wrongly_typed_key_names_the_file_line_and_fix(tmp_path: Path):
    root = _project(tmp_path, 'catalog = "m.toml"\nauto_max_mutants = "many"\n')
    with pytest.raises(ConfigError) as caught:
        settings_from(load_config(root), root, "main", {})
    rendered = caught.value.render()
    assert f"{root / 'pyproject.toml'}:6" in rendered, (
        f"a wrongly typed key must be located at pyproject.toml:6; the error says {rendered!r}"
    )
    assert "auto_max_mutants" in rendered and "fix:" in rendered, (
        "a wrongly typed key must be named (auto_max_mutants) with a fix; the error says "
        f"{rendered!r}"
    )
    assert caught.value.exit_code == 2, (
        f"a config error must exit 2; its exit_code is {caught.value.exit_code}"
    )


def test_a_per_line_cap_below_one_is_refused(tmp_path: Path):
    root = _project(tmp_path, "auto_max_per_line = 0\n")
    with pytest.raises(ConfigError, match="the per-line mutant cap must be at least 1"):
        settings_from(load_config(root), root, "main", {})


def test_an_empty_config_gives_the_documented_defaults(tmp_path: Path):
    root = _project(tmp_path, "")
    settings = settings_from(load_config(root), root, "main", {})
    got = {"max_mutants": settings.max_mutants, "max_per_line": settings.max_per_line,
           "operators": settings.operators, "coverage_timeout_s": settings.coverage_timeout_s,
           "timeout_s": settings.timeout_s, "timeout_factor": settings.timeout_factor,
           "wrong_failure_types": settings.wrong_failure_types,
           "crash_kills": settings.crash_kills, "workers": settings.workers,
           "test_paths": settings.test_paths, "tests": settings.tests}
    documented = {"max_mutants": 50, "max_per_line": 1, "operators": None,
                  "coverage_timeout_s": 1800.0, "timeout_s": 10.0, "timeout_factor": 3.0,
                  "wrong_failure_types": (), "crash_kills": "hold",
                  "workers": os.cpu_count() or 1,
                  "test_paths": ("test_*.py", "*_test.py", "conftest.py", "tests/", "test/"),
                  "tests": ()}
    differ = {k: (got[k], documented[k]) for k in documented if got[k] != documented[k]}
    assert not differ, (
        "docs/auto.md's Options table gives the defaults with no [tool.deskcheck] auto key and "
        f"no option; these differ (got, documented): {differ}")


def test_a_per_line_cap_of_one_is_accepted(tmp_path: Path):
    root = _project(tmp_path, "auto_max_per_line = 1\nauto_max_mutants = -1\n")
    settings = settings_from(load_config(root), root, "main", {})
    assert (settings.max_per_line, settings.max_mutants) == (1, -1), (
        "auto_max_per_line = 1 (the least allowed) and auto_max_mutants = -1 (no cap) must be "
        f"accepted as written; they were read as {(settings.max_per_line, settings.max_mutants)}")
