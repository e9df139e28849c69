"""Where a source file lives in the import system: its module name and import root."""

from __future__ import annotations

from pathlib import Path


def module_name_for(root: Path, relpath: str) -> tuple[str, Path]:
    """``(dotted module name, import root)`` of ``root/relpath``.

    Walks up while the folder is a package (has ``__init__.py``), like the import system does
    for regular packages; ``pkg/__init__.py`` is module ``pkg``. A folder without
    ``__init__.py`` that sits inside a regular package is a namespace portion of it (PEP 420;
    SGLang's ``sglang/srt/``), not an import root: the walk goes on through it.
    """
    path = (root / relpath).resolve()
    resolved_root = root.resolve()
    bound = resolved_root if path.is_relative_to(resolved_root) else Path(path.anchor)
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while folder != folder.parent and (
            (folder / "__init__.py").is_file() or _inside_package(folder, bound)):
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def _inside_package(folder: Path, bound: Path) -> bool:
    """Whether a regular package (a folder with ``__init__.py``) encloses ``folder``, looking
    no higher than ``bound`` (the project root, for files inside it)."""
    probe = folder.parent
    while probe != bound and probe != probe.parent and probe.is_relative_to(bound):
        if (probe / "__init__.py").is_file():
            return True
        probe = probe.parent
    return False
