"""Where a source file lives in the import system: its module name and import root."""

from __future__ import annotations

from pathlib import Path


def module_name_for(root: Path, relpath: str) -> tuple[str, Path]:
    """``(dotted module name, import root)`` of ``root/relpath``.

    Walks up while the folder is a package (has ``__init__.py``), like the import system does
    for regular packages; ``pkg/__init__.py`` is module ``pkg``.
    """
    path = (root / relpath).resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder != folder.parent:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder
