"""``[tool.deskcheck]`` from the nearest pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.config_keys import check_section
from deskcheck.errors import ConfigError
from deskcheck.textfiles import read_toml_text


@dataclass(frozen=True)
class ProjectConfig:
    """The user's deskcheck configuration; ``root`` is the folder of the pyproject.toml."""

    root: Path
    pyproject: Path | None
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def path(self, key: str, default: str | None = None) -> Path | None:
        value = self.values.get(key, default)
        return None if value is None else (self.root / value)


def find_pyproject(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def toml_error_line(exc: tomllib.TOMLDecodeError) -> int | str:
    """The line of a TOML syntax error (tomllib only puts it in the message before 3.14)."""
    line = getattr(exc, "lineno", None)
    if line is None:
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else "?"
    return line


def load_config(start: Path | None = None) -> ProjectConfig:
    """Load ``[tool.deskcheck]``; a missing section is an empty config rooted at ``start``."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return ProjectConfig(root=(start or Path.cwd()).resolve(), pyproject=None)
    text = read_toml_text(pyproject)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"pyproject.toml is not valid TOML: {exc}",
            location=f"{pyproject}:{toml_error_line(exc)}",
            fix="correct the TOML syntax at that line",
        ) from exc
    section = data.get("tool", {}).get("deskcheck", {})
    if not isinstance(section, dict):
        raise ConfigError("[tool.deskcheck] must be a table", location=str(pyproject),
                          fix="write it as a [tool.deskcheck] section")
    check_section(section, pyproject, text)  # unknown keys and wrong types, with lines
    return ProjectConfig(root=pyproject.parent, pyproject=pyproject, values=section)
