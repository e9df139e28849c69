"""Doctests a branch adds or changes: selectable tests like any other.

- a text file pytest collects doctests from (``--doctest-glob``, default ``test*.txt``; an
  ``.rst``/``.txt`` file named on the command line too) is one item, ``path::name``;
- with ``--doctest-modules``, each docstring holding ``>>>`` is one item,
  ``path::module.qualname`` (``path::module`` for the module's own docstring), where
  ``module`` is the dotted name pytest imports the file as (up through ``__init__.py``
  packages). A docstring is changed when its text differs from the base's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import PurePosixPath

DOCTEST_PROMPT = ">>>"


def text_doctest_id(path: str) -> str:
    """pytest's node id of the doctest in a text file: ``docs/usage.rst::usage.rst``."""
    return f"{path}::{PurePosixPath(path).name}"


def has_doctest(text: str) -> bool:
    return any(line.lstrip().startswith(DOCTEST_PROMPT) for line in text.splitlines())


def module_name(path: str, all_files: set[str]) -> str:
    """The dotted name pytest imports ``path`` as: up through folders with ``__init__.py``."""
    pure = PurePosixPath(path)
    parts = [] if pure.name == "__init__.py" else [pure.stem]
    folder = pure.parent
    while (folder / "__init__.py").as_posix() in all_files:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or pure.stem


def docstrings(source: str) -> dict[str, str]:
    """``{qualname: docstring}`` of every docstring with a doctest (``""``: the module's)."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield prefix + node.name, node
                yield from walk(node.body, f"{prefix}{node.name}.")

    tree = ast.parse(source)
    found: dict[str, str] = {}
    for name, node in [("", tree), *walk(tree.body, "")]:
        doc = ast.get_docstring(node, clean=False)  # type: ignore[arg-type]
        if doc and has_doctest(doc):
            found[name] = doc
    return found


def docstring_doctest_ids(path: str, module: str, branch_source: str,
                          base_source: str | None) -> list[tuple[str, int, bool]]:
    """``(node id, line, added)`` for each docstring doctest new or changed on the branch."""
    try:
        branch = docstrings(branch_source)
    except (SyntaxError, ValueError):
        return []
    try:
        base = docstrings(base_source) if base_source is not None else {}
    except (SyntaxError, ValueError):
        base = {}
    lines = _lines(branch_source)
    return [(f"{path}::{module}" + (f".{name}" if name else ""), lines.get(name, 1),
             name not in base)
            for name, doc in branch.items() if base.get(name) != doc]


def _lines(source: str) -> dict[str, int]:
    tree = ast.parse(source)
    found: dict[str, int] = {"": 1}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[prefix + node.name] = node.lineno
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return found
