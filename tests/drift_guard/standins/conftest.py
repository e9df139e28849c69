"""``fixtures/proj`` is a project of its own (tests that build stand-ins every ad-hoc way):
deskcheck's suite reads and runs a scratch copy of it, never collects it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

collect_ignore_glob = ["fixtures/*"]

PROJ = Path(__file__).parent / "fixtures" / "proj"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """A scratch copy of the fixture project (tests may edit production or test files)."""
    target = tmp_path / "proj"
    shutil.copytree(PROJ, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target
