"""Settings of the auto sweep: ``[tool.deskcheck]`` keys, overridden by the command line."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.config import ProjectConfig
from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.changes import DEFAULT_TEST_PATHS

# key -> (expected type(s), what to write)
CONFIG_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "test_paths": ((list,), 'a list of globs, e.g. ["tests/", "test_*.py"]'),
    "auto_max_mutants": ((int,), "an integer (-1: no cap), e.g. 50"),
    "auto_max_per_line": ((int,), "an integer >= 1, e.g. 1"),
    "auto_operators": ((list,), 'a list of mutmut operator names or families, e.g. ["ROR"]'),
    "auto_arid_calls": ((list,), 'a list of fnmatch patterns, e.g. ["self.tracer.*"]'),
    "auto_tests": ((list,), 'pytest arguments for the coverage pass, e.g. ["tests"]'),
    "auto_coverage_timeout": ((int, float), "seconds, e.g. 1800"),
    "auto_timeout_s": ((int, float), "seconds added to each mutant's timeout, e.g. 10"),
    "auto_timeout_factor": ((int, float), "a factor of the owners' baseline time, e.g. 3"),
    "auto_wrong_failure_types": ((list,), 'exception names that do not count as a kill, '
                                          'e.g. ["TypeError"] (default: none)'),
    "auto_crash_kills": ((str,), '"hold" (default) or "fall-short": a kill only by a crash '
                                 '(TypeError/AttributeError/NameError) falls short'),
}


@dataclass
class AutoSettings:
    """Everything one auto sweep needs to know."""

    root: Path
    changed_since: str
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS
    max_mutants: int = 50
    max_per_line: int = 1
    operators: list[str] | None = None
    arid_calls: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    coverage_timeout_s: float = 1800.0
    timeout_s: float = 10.0
    timeout_factor: float = 3.0
    wrong_failure_types: tuple[str, ...] = ()
    crash_kills: str = "hold"  # "fall-short": a kill only by a crash is a WRONG_FAILURE
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    run_mutants: bool = True
    use_coverage_map: bool = True  # owners from the store's coverage map when it has one


def _checked(config: ProjectConfig, key: str) -> Any:
    value = config.get(key)
    if value is None:
        return None
    types, example = CONFIG_KEYS[key]
    ok = isinstance(value, types) and not isinstance(value, bool)
    if ok and isinstance(value, list):
        ok = all(isinstance(v, str) for v in value)
    if not ok:
        raise ConfigError(f"[tool.deskcheck] {key} = {value!r} has the wrong type",
                          location=f"{config.pyproject or config.root}:{_line_of(config, key)}",
                          fix=f"write {key} as {example}")
    return value


def _line_of(config: ProjectConfig, key: str) -> int | str:
    if config.pyproject is None:
        return "?"
    for number, text in enumerate(config.pyproject.read_text(encoding="utf-8").splitlines(), 1):
        if text.strip().startswith(f"{key} ") or text.strip().startswith(f"{key}="):
            return number
    return "?"


def settings_from(config: ProjectConfig, root: Path, changed_since: str,
                  overrides: dict[str, Any]) -> AutoSettings:
    """Config values, then non-``None`` command-line overrides (same names as the fields)."""
    values: dict[str, Any] = {}
    for key, name in (("test_paths", "test_paths"), ("auto_max_mutants", "max_mutants"),
                      ("auto_max_per_line", "max_per_line"), ("auto_operators", "operators"),
                      ("auto_arid_calls", "arid_calls"), ("auto_tests", "tests"),
                      ("auto_coverage_timeout", "coverage_timeout_s"),
                      ("auto_timeout_s", "timeout_s"), ("auto_timeout_factor", "timeout_factor"),
                      ("auto_wrong_failure_types", "wrong_failure_types"),
                      ("auto_crash_kills", "crash_kills")):
        value = _checked(config, key)
        if value is not None:
            values[name] = tuple(value) if isinstance(value, list) and name != "operators" \
                else value
    values.update({k: v for k, v in overrides.items() if v is not None})
    settings = AutoSettings(root=root, changed_since=changed_since, **values)
    if settings.max_per_line < 1:
        raise ConfigError("the per-line mutant cap must be at least 1",
                          location=f"{config.pyproject}:{_line_of(config, 'auto_max_per_line')}",
                          fix="use --max-per-line 1 (the default) or more")
    if settings.crash_kills not in ("hold", "fall-short"):
        raise ConfigError(f"[tool.deskcheck] auto_crash_kills = {settings.crash_kills!r}: must "
                          "be \"hold\" or \"fall-short\"",
                          location=f"{config.pyproject}:{_line_of(config, 'auto_crash_kills')}",
                          fix='auto_crash_kills = "fall-short"')
    if settings.workers < 1:
        raise ConfigError("--workers must be at least 1", fix="pass --workers N with N >= 1")
    return settings
