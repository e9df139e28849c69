"""The pytest configuration a user's project gives every pytest run deskcheck starts.

deskcheck runs pytest with the project's own ini file (``addopts``, ``filterwarnings``,
markers, plugins): what is wrong there is named by its real file, never by a catalog.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from deskcheck.pytest_ini import pytest_config_file


def config_file(start: Path) -> Path | None:
    """The ini file pytest reads when started in ``start`` (None: it runs without one)."""
    return pytest_config_file(start)


def xdist_off() -> list[str]:
    """``-n 0`` where pytest-xdist is installed (an ``addopts = "-n auto"`` must not fork
    workers under deskcheck), nothing where it is not (pytest would reject ``-n``)."""
    return ["-n", "0"] if importlib.util.find_spec("xdist") is not None else []
