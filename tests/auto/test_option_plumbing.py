"""Each ``deskcheck auto`` / ``sweep --auto`` option and each ``auto_*`` key reaches the
settings the auto sweep runs with: an option parsed and then ignored fails here, by name,
without running a sweep (the pipeline is replaced by one that records its settings)."""

from __future__ import annotations

from pathlib import Path

import pytest

import deskcheck.mutants.auto.pipeline as pipeline
from deskcheck.cli import main
from deskcheck.config import load_config
from deskcheck.mutants.auto.settings import AutoSettings, settings_from


class _Stop(Exception):
    """Raised by the stand-in pipeline once it has the settings."""


@pytest.fixture
def seen_settings(monkeypatch: pytest.MonkeyPatch) -> list[AutoSettings]:
    seen: list[AutoSettings] = []

    def record(settings: AutoSettings, reporter: object) -> None:
        seen.append(settings)
        raise _Stop

    monkeypatch.setattr(pipeline, "run_pipeline", record)
    return seen


def _project(tmp_path: Path, table: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.deskcheck]\n{table}", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", [["auto"], ["sweep", "--auto"]], ids=["auto", "sweep-auto"])
def test_every_auto_option_reaches_the_settings(command, seen_settings, tmp_path):
    root = _project(tmp_path)
    with pytest.raises(_Stop):
        main([*command, "--changed-since", "base-ref", "--root", str(root),
              "--max-mutants", "7", "--max-per-line", "3", "--operators", "ROR", "AOR",
              "--tests", "tests/unit", "--workers", "5", "--no-run",
              "--crash-kills-fall-short", "--no-coverage-map"])
    (settings,) = seen_settings
    got = {"root": settings.root, "changed_since": settings.changed_since,
           "max_mutants": settings.max_mutants, "max_per_line": settings.max_per_line,
           "operators": settings.operators, "tests": settings.tests,
           "workers": settings.workers, "run_mutants": settings.run_mutants,
           "crash_kills": settings.crash_kills, "use_coverage_map": settings.use_coverage_map}
    expected = {"root": root.resolve(), "changed_since": "base-ref", "max_mutants": 7,
                "max_per_line": 3, "operators": ["ROR", "AOR"], "tests": ("tests/unit",),
                "workers": 5, "run_mutants": False, "crash_kills": "fall-short",
                "use_coverage_map": False}
    wrong = {k: (got[k], v) for k, v in expected.items() if got[k] != v}
    assert not wrong, f"options of {' '.join(command)} ignored (got, passed): {wrong}"


@pytest.mark.parametrize("flag", ["--no-store", "--no-coverage-map"])
def test_the_coverage_map_is_used_unless_told_not_to(flag, seen_settings, tmp_path):
    root = _project(tmp_path)
    for extra in ([], [flag]):
        with pytest.raises(_Stop):
            main(["auto", "--changed-since", "base-ref", "--root", str(root), *extra])
    plain, told = seen_settings
    assert (plain.use_coverage_map, told.use_coverage_map) == (True, False), (
        f"expected the stored coverage map used by default and not with {flag}, got "
        f"{plain.use_coverage_map} and {told.use_coverage_map}")


def test_every_auto_key_of_the_config_reaches_the_settings(tmp_path):
    root = _project(tmp_path, 'test_paths = ["checks/"]\nauto_max_mutants = 9\n'
                              'auto_max_per_line = 2\nauto_operators = ["ROR"]\n'
                              'auto_arid_calls = ["self.log.*"]\nauto_tests = ["checks"]\n'
                              "auto_coverage_timeout = 99\nauto_timeout_s = 4\n"
                              "auto_timeout_factor = 5\n"
                              'auto_wrong_failure_types = ["TypeError"]\n'
                              'auto_crash_kills = "fall-short"\n')
    settings = settings_from(load_config(root), root, "base-ref", {})
    got = {"test_paths": settings.test_paths, "auto_max_mutants": settings.max_mutants,
           "auto_max_per_line": settings.max_per_line, "auto_operators": settings.operators,
           "auto_arid_calls": settings.arid_calls, "auto_tests": settings.tests,
           "auto_coverage_timeout": settings.coverage_timeout_s,
           "auto_timeout_s": settings.timeout_s, "auto_timeout_factor": settings.timeout_factor,
           "auto_wrong_failure_types": settings.wrong_failure_types,
           "auto_crash_kills": settings.crash_kills}
    expected = {"test_paths": ("checks/",), "auto_max_mutants": 9, "auto_max_per_line": 2,
                "auto_operators": ["ROR"], "auto_arid_calls": ("self.log.*",),
                "auto_tests": ("checks",), "auto_coverage_timeout": 99, "auto_timeout_s": 4,
                "auto_timeout_factor": 5, "auto_wrong_failure_types": ("TypeError",),
                "auto_crash_kills": "fall-short"}
    wrong = {k: (got[k], v) for k, v in expected.items() if got[k] != v}
    assert not wrong, f"[tool.deskcheck] keys ignored by the auto sweep (got, written): {wrong}"


def test_the_command_line_wins_over_the_config(tmp_path):
    root = _project(tmp_path, "auto_max_mutants = 9\nauto_max_per_line = 2\n")
    settings = settings_from(load_config(root), root, "base-ref",
                             {"max_mutants": 3, "max_per_line": None})
    assert (settings.max_mutants, settings.max_per_line) == (3, 2), (
        "expected --max-mutants 3 to win over auto_max_mutants = 9 and the unset "
        f"--max-per-line to keep auto_max_per_line = 2, got {settings.max_mutants}, "
        f"{settings.max_per_line}")


@pytest.mark.parametrize("command", [["auto"], ["sweep", "--auto"]], ids=["auto", "sweep-auto"])
def test_build_coverage_map_builds_the_map_instead_of_sweeping(command, monkeypatch,
                                                               seen_settings):
    import deskcheck.mutants.auto.commands as auto_commands

    built = []
    monkeypatch.setattr(auto_commands, "build_coverage_map", lambda args: built.append(args) or 0)
    code = main([*command, "--build-coverage-map"])
    assert (code, len(built), seen_settings) == (0, 1, []), (
        f"expected `{' '.join(command)} --build-coverage-map` to build the map (exit 0) and run "
        f"no sweep, got exit {code}, {len(built)} build(s) and {len(seen_settings)} sweep(s)")
