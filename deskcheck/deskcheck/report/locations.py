"""Where a mutant sits in its file, and where its target function is (for Stryker and HTML).

A mutant is never located by line number in the catalog; here we only *display* it. The span
comes from the record's explicit fields when the sweep filled them, else from the lines its
unified diff removes, found in the file text nearest the hunk's own line number.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from deskcheck.report.records import MutantRecord

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Span:
    """1-based, start inclusive, end exclusive (Stryker's convention)."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class DiffChange:
    old_start: int
    removed: tuple[str, ...]
    added: tuple[str, ...]


def first_change(diff: str) -> DiffChange | None:
    """The first block of removed/added lines of a unified diff, with its old line number."""
    old_line = 0
    removed: list[str] = []
    added: list[str] = []
    start = 0
    for line in diff.splitlines():
        match = _HUNK.match(line)
        if match:
            if removed or added:
                break
            old_line = int(match.group(1))
            continue
        if line.startswith(("---", "+++")) and not (removed or added):
            continue
        if line.startswith("-"):
            start = start or old_line
            removed.append(line[1:])
            old_line += 1
        elif line.startswith("+"):
            start = start or old_line
            added.append(line[1:])
        else:
            if removed or added:
                break
            old_line += 1
    if not (removed or added):
        return None
    return DiffChange(start, tuple(removed), tuple(added))


def diff_path(diff: str) -> str:
    """The original file a unified diff is against (``--- a/path``), '' when it names none."""
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = line[4:].split("\t", 1)[0].strip()
            if path in ("", "/dev/null"):
                return ""
            return path[2:] if path.startswith("a/") else path
        if line.startswith("@@"):
            break
    return ""


def mutated_file(mutant: MutantRecord) -> str:
    """The source file the mutant changes: the file its diff is against, else ``source_file``
    when that is a Python file (a sweep may point ``source_file`` at the catalog entry)."""
    return diff_path(mutant.diff) or (mutant.source_file
                                      if mutant.source_file.endswith(".py") else "")


def find_source(root: Path, path: str) -> Path | None:
    """The file a record names: absolute as is; relative to the project root, to the current
    folder, or to a folder above the root (a diff written relative to where the sweep ran)."""
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate if candidate.is_file() else None
    for base in (root, Path.cwd(), *Path(root).resolve().parents):
        if (base / candidate).is_file():
            return base / candidate
    return None


def read_source(root: Path, path: str) -> str | None:
    """The text of the file a record names (see :func:`find_source`), or None if unreadable."""
    found = find_source(root, path)
    if found is None:
        return None
    try:
        return found.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def replacement_text(diff: str) -> str:
    """The code the mutant puts in (the added lines, dedented); empty for a deletion."""
    change = first_change(diff)
    return textwrap.dedent("\n".join(change.added)).strip() if change else ""


def mutant_span(mutant: MutantRecord, source: str) -> Span:
    """The span of code the mutant changes in ``source`` (always a valid span of it)."""
    lines = source.splitlines() or [""]
    own_line = mutant.source_file == mutated_file(mutant)  # else source_line is elsewhere
    if own_line and mutant.source_line and mutant.source_end_line:
        return _clamp(Span(mutant.source_line, mutant.source_column or 1,
                           mutant.source_end_line, mutant.source_end_column or 0), lines)
    change = first_change(mutant.diff)
    hint = change.old_start if change else (mutant.source_line if own_line else 0)
    if change and change.removed:
        start = _find_block(lines, change.removed, hint)
        if start:
            return _clamp(Span(start, 0, start + len(change.removed) - 1, 0), lines)
    if hint:
        return _clamp(Span(hint, 0, hint, 0), lines)
    return _clamp(Span(1, 0, 1, 0), lines)


def _find_block(lines: list[str], block: tuple[str, ...], hint: int) -> int:
    """1-based line where ``block`` occurs in ``lines``, nearest to ``hint``; 0 if absent."""
    wanted = [b.strip() for b in block]
    starts = [i + 1 for i in range(len(lines) - len(block) + 1)
              if [x.strip() for x in lines[i:i + len(block)]] == wanted]
    return min(starts, key=lambda s: abs(s - hint)) if starts else 0


def _clamp(span: Span, lines: list[str]) -> Span:
    """Fit a span into the file; a column of 0 means 'first code character' / 'end of line'."""
    last = len(lines)
    start_line = min(max(span.start_line, 1), last)
    end_line = min(max(span.end_line, start_line), last)
    text = lines[start_line - 1]
    start_col = span.start_column or (len(text) - len(text.lstrip()) + 1)
    end_col = span.end_column or (len(lines[end_line - 1]) + 1)
    if end_line == start_line and end_col <= start_col:
        end_col = start_col + 1
    return Span(start_line, start_col, end_line, end_col)


def function_span(source: str, target: str) -> tuple[int, int] | None:
    """First and last line (decorators included) of ``module:Qualified.name`` in ``source``."""
    qualname = target.partition(":")[2] or target
    try:
        tree: ast.AST = ast.parse(source)
    except SyntaxError:
        return None
    node: ast.AST | None = tree
    for part in qualname.split("."):
        node = next((child for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                     and child.name == part), None)
        if node is None:
            return None
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno
