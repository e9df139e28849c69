"""The pytest configuration a user's project gives every pytest run deskcheck starts.

deskcheck runs pytest with the project's own ini file (``addopts``, ``filterwarnings``,
markers, plugins): what is wrong there is named by its real file, never by a catalog.
"""

from __future__ import annotations

import configparser
import importlib.util
import tomllib
from pathlib import Path

# pytest's own search order (``_pytest.config.findpaths``): the first file that configures it
_CANDIDATES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _configures_pytest(path: Path) -> bool:
    try:
        if path.name in ("pytest.ini", ".pytest.ini"):
            return True
        if path.name == "pyproject.toml":
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            return "ini_options" in data.get("tool", {}).get("pytest", {})
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
        return parser.has_section("pytest" if path.name == "tox.ini" else "tool:pytest")
    except (OSError, ValueError, configparser.Error):
        return False


def config_file(start: Path) -> Path | None:
    """The ini file pytest reads when started in ``start`` (None: it runs without one)."""
    folder = start.resolve()
    for candidate_dir in (folder, *folder.parents):
        for name in _CANDIDATES:
            path = candidate_dir / name
            if path.is_file() and _configures_pytest(path):
                return path
    return None


def xdist_off() -> list[str]:
    """``-n 0`` where pytest-xdist is installed (an ``addopts = "-n auto"`` must not fork
    workers under deskcheck), nothing where it is not (pytest would reject ``-n``)."""
    return ["-n", "0"] if importlib.util.find_spec("xdist") is not None else []
