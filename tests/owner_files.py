"""The files the placeholder owners of the catalog tests name (``tests/test_x.py::test_y``,
``t.py``): a catalog whose owner names no file on disk, or a test its file does not define,
is refused while it is read (issue 16), so a test of another rule writes them first. The same
holds for the placeholder target module ``pkg.mod`` (a module that exists nowhere is refused
too, issue 31): it is written unless the test wrote its own."""

from __future__ import annotations

from pathlib import Path

PLACEHOLDERS = {"tests/test_x.py": "def test_y():\n    pass\n", "t.py": ""}
TARGET_PLACEHOLDERS = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def func():\n    return 1\n\n\ndef f():\n    return 1\n\n\n"
                  "class Cls:\n    def meth(self):\n        return 1\n",
}


def write_placeholder_owners(folder: Path) -> None:
    """Write the placeholder owners' files under ``folder`` (the catalog's)."""
    for relative, text in PLACEHOLDERS.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if not (folder / "pkg").exists():
        for relative, text in TARGET_PLACEHOLDERS.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
