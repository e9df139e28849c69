"""Locate a function's source segment in its file (``ast``: fast; cached by file hash)."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from deskcheck.errors import SourceResolutionError


@dataclass(frozen=True)
class FunctionSource:
    """The text of one ``def`` (decorators included), dedented, and where it sits."""

    file: str
    scope_path: tuple[str, ...]  # enclosing class/def names + own name, no "<locals>"
    start_line: int  # first line of the segment (first decorator or the def)
    end_line: int
    indent: str
    text: str  # dedented; re-indent with ``indent`` to get the file's lines back
    file_sha: str


@lru_cache(maxsize=64)
def _parsed(file: str, sha: str) -> tuple[list[str], ast.Module]:
    text = Path(file).read_text(encoding="utf-8")
    return text.splitlines(keepends=True), ast.parse(text, filename=file)


def read_file(file: str) -> tuple[str, list[str], ast.Module]:
    data = Path(file).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    lines, tree = _parsed(file, sha)
    return sha, lines, tree


def _scopes(body: list[ast.stmt]):
    """Defs/classes directly in a scope body (looking inside if/try/with blocks)."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.AsyncWith | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody"):
                yield from _scopes(getattr(node, field, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                yield from _scopes(handler.body)


def _start(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *[d.lineno for d in decorators]])


def scope_path_of(code_qualname: str) -> tuple[str, ...]:
    return tuple(part for part in code_qualname.split(".") if part != "<locals>")


def locate(file: str, scope_path: tuple[str, ...], first_line: int | None = None
           ) -> FunctionSource:
    """Find the def at ``scope_path`` in ``file``; ``first_line`` breaks ties (e.g. a property
    getter and setter share a name)."""
    sha, lines, tree = read_file(file)
    return _segment(file, sha, lines, tree, scope_path, first_line)


def locate_in_text(text: str, file: str, scope_path: tuple[str, ...],
                   first_line: int | None = None) -> FunctionSource:
    """``locate`` over a module's text (e.g. a mutated copy that is never written): the
    segment is cut and dedented exactly as ``locate`` cuts it from the file."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as read_text reads the file
    tree = ast.parse(text, filename=file)
    return _segment(file, "", text.splitlines(keepends=True), tree, scope_path, first_line)


def segment_of(file: str, lines: list[str], tree: ast.Module, scope_path: tuple[str, ...],
               first_line: int | None = None) -> FunctionSource:
    """``locate_in_text`` over a module already parsed (``lines``: its text, ``\n`` ends):
    one parse for every function of a file."""
    return _segment(file, "", lines, tree, scope_path, first_line)


def _segment(file: str, sha: str, lines: list[str], tree: ast.Module,
             scope_path: tuple[str, ...], first_line: int | None) -> FunctionSource:
    candidates: list[ast.AST] = [tree]
    for depth, name in enumerate(scope_path):
        last = depth == len(scope_path) - 1
        found = [node for parent in candidates for node in _scopes(parent.body)
                 if node.name == name and (not last or not isinstance(node, ast.ClassDef))]
        if not found:
            where = ".".join(scope_path[:depth]) or "module level"
            raise SourceResolutionError(
                f"no def/class {name!r} under {where} in {file}", location=file,
                fix="check the target's qualified name against the source")
        candidates = found
    if len(candidates) > 1 and first_line is not None:
        exact = [n for n in candidates if _start(n) == first_line or n.lineno == first_line]
        candidates = exact or candidates
    if len(candidates) > 1:
        lines_at = ", ".join(str(n.lineno) for n in candidates)
        raise SourceResolutionError(
            f"{'.'.join(scope_path)} is defined {len(candidates)} times in {file} "
            f"(lines {lines_at})", location=file,
            fix="target the live object (the one the module binds) or rename one def")
    node = candidates[0]
    start, end = _start(node), node.end_lineno or node.lineno
    segment = lines[start - 1:end]
    first = segment[0]
    indent = first[: len(first) - len(first.lstrip())]
    dedented = []
    for line in segment:
        if line.strip() and not line.startswith(indent):
            raise SourceResolutionError(
                f"{'.'.join(scope_path)} in {file} has a line indented less than its def "
                "(a multi-line string?)", location=f"{file}:{start}",
                fix="target a function whose body lines are indented below its def")
        dedented.append(line[len(indent):] if line.startswith(indent) else line)
    text = "".join(dedented)
    if not text.endswith("\n"):
        text += "\n"
    return FunctionSource(file=file, scope_path=scope_path, start_line=start, end_line=end,
                          indent=indent, text=text, file_sha=sha)
