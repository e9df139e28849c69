"""The files the placeholder owners of the catalog tests name (``tests/test_x.py::test_y``,
``t.py``): a catalog whose owner names no file on disk, or a test its file does not define,
is refused while it is read (issue 16), so a test of another rule writes them first."""

from __future__ import annotations

from pathlib import Path

PLACEHOLDERS = {"tests/test_x.py": "def test_y():\n    pass\n", "t.py": ""}


def write_placeholder_owners(folder: Path) -> None:
    """Write the placeholder owners' files under ``folder`` (the catalog's)."""
    for relative, text in PLACEHOLDERS.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
