"""pytest's own configuration of a project, read the way pytest reads it: one reader for every
part (gate selection and layout, sweep, auto, drift-guard discovery).

pytest looks, from the folder it starts in up to the file-system root, in each folder for
``pytest.toml``, ``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``,
``tox.ini`` and ``setup.cfg``, in that order, and takes the first file that configures it
(``pytest.ini``/``.pytest.ini`` always do, even empty; ``pyproject.toml`` with a
``[tool.pytest]`` or ``[tool.pytest.ini_options]`` table; ``tox.ini`` with ``[pytest]``;
``setup.cfg`` with ``[tool:pytest]``). Values keep their kind: INI text is split like pytest
splits ``args`` options (shell words), TOML lists stay lists.
"""

from __future__ import annotations

import configparser
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import ConfigError

# pytest's search order within one folder (``_pytest.config.findpaths``)
PYTEST_CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini",
                       "pyproject.toml", "tox.ini", "setup.cfg")
DEFAULT_DOCTEST_GLOBS = ("test*.txt",)


@dataclass(frozen=True)
class PytestConfig:
    """The file pytest takes its configuration from (None: none) and its options."""

    path: Path | None
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def rootdir(self) -> Path | None:
        return self.path.parent if self.path is not None else None

    def args(self, key: str) -> list[str]:
        """An ``args``/``linelist`` option as a list (``testpaths``, ``python_files``,
        ``addopts``): INI text split into shell words, a TOML list as it is."""
        value = self.values.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            try:
                return shlex.split(value)
            except ValueError:
                return value.split()
        if isinstance(value, list | tuple):
            return [str(v) for v in value]
        return [str(value)]

    def addopts(self) -> list[str]:
        return self.args("addopts")

    def option_values(self, option: str) -> list[str]:
        """Every value ``addopts`` gives ``option`` (``--opt=v`` and ``--opt v`` alike)."""
        found: list[str] = []
        words = self.addopts()
        for index, word in enumerate(words):
            if word.startswith(option + "="):
                found.append(word.split("=", 1)[1])
            elif word == option and index + 1 < len(words):
                found.append(words[index + 1])
        return found

    def has_flag(self, flag: str) -> bool:
        return flag in self.addopts()

    def doctest_modules(self) -> bool:
        """``--doctest-modules`` in ``addopts``: docstrings of every module are tests."""
        return self.has_flag("--doctest-modules")

    def doctest_globs(self) -> tuple[str, ...]:
        """The text files pytest collects doctests from (``--doctest-glob``; default
        ``test*.txt``)."""
        return tuple(self.option_values("--doctest-glob")) or DEFAULT_DOCTEST_GLOBS


def _ini_section(path: Path, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as exc:
        line = getattr(exc, "lineno", "?")
        raise ConfigError(f"{path.name} is not a valid INI file: {exc}".splitlines()[0],
                          location=f"{path}:{line}",
                          fix="correct the syntax pytest would also reject there") from exc
    except (OSError, UnicodeDecodeError):
        return None
    return dict(parser[section]) if parser.has_section(section) else None


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        from deskcheck.config import toml_error_line

        raise ConfigError(f"{path.name} is not valid TOML: {exc}",
                          location=f"{path}:{toml_error_line(exc)}",
                          fix="correct the TOML syntax at that line") from exc
    except (OSError, UnicodeDecodeError):
        return {}


def read_config_file(path: Path) -> dict[str, Any] | None:
    """pytest's options in ``path`` (one of :data:`PYTEST_CONFIG_FILES`), or None when that
    file does not configure pytest."""
    name = path.name
    if name in ("pytest.ini", ".pytest.ini"):
        return _ini_section(path, "pytest") or {}
    if name in ("tox.ini",):
        return _ini_section(path, "pytest")
    if name == "setup.cfg":
        return _ini_section(path, "tool:pytest")
    data = _toml(path)
    if name in ("pytest.toml", ".pytest.toml"):
        table = data.get("pytest")
        return dict(table) if isinstance(table, dict) else {}
    tool = data.get("tool", {}).get("pytest")
    if not isinstance(tool, dict):
        return None
    native = {k: v for k, v in tool.items() if k != "ini_options"}
    ini = tool.get("ini_options")
    if isinstance(ini, dict):
        return {**ini, **native}
    return native


def pytest_config(start: Path | None = None) -> PytestConfig:
    """The configuration pytest uses when started in ``start`` (default: the cwd)."""
    folder = (start or Path.cwd()).resolve()
    if folder.is_file():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        for name in PYTEST_CONFIG_FILES:
            path = candidate / name
            if path.is_file():
                values = read_config_file(path)
                if values is not None:
                    return PytestConfig(path=path, values=values)
    return PytestConfig(path=None)


def pytest_config_file(start: Path | None = None) -> Path | None:
    """The file pytest reads its configuration from when started in ``start``."""
    return pytest_config(start).path
