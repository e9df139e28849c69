"""Fixtures of the static model's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache
from tests.static.class_tree import FILES


@pytest.fixture
def root(tmp_path: Path):
    """The ``dcs`` tree of tests/static/class_tree.py, written to a temporary folder, with the
    parse caches cleared before and after."""
    clear_cache()
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    yield tmp_path
    clear_cache()
