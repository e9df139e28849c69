"""Hollow parsing: parse a module with every top-level and method body replaced by ``...``,
and parse a body only when the trace reaches it.

A large scheduler module is mostly method bodies the trace never enters, and building their
AST objects is most of what ``ast.parse`` costs. Line numbers are kept exactly (a body becomes
one ``...`` line plus blank lines). The split is found line by line, tracking triple-quoted
strings; anything unusual makes the hollow text fail to parse, and the caller then falls back
to a full parse, so a wrong split can cost time but never a wrong answer.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_DEF = re.compile(r"^( {0,4})(?:async\s+)?def\s+\w+")
_TOKENS = re.compile(r"\"\"\"|'''|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|#")
_OPEN = re.compile(r"[(\[{]")
_CLOSE = re.compile(r"[)\]}]")
_STRINGS = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


@dataclass(frozen=True)
class Body:
    """Lines (1-based, inclusive) of one hollowed def: its ``def`` line and its last line."""

    def_line: int
    end_line: int
    indent: int


def _inside_string(lines: list[str]) -> list[bool]:
    """For each line: does it start inside a triple-quoted string?"""
    out: list[bool] = []
    closing: str | None = None
    for line in lines:
        out.append(closing is not None)
        if closing is None and '"' not in line and "'" not in line:
            continue  # no quote: no string starts or ends on this line
        pos = 0
        while True:
            if closing is not None:
                end = line.find(closing, pos)
                while end > 0 and line[end - 1] == "\\":
                    end = line.find(closing, end + 1)
                if end < 0:
                    break
                pos, closing = end + 3, None
                continue
            match = _TOKENS.search(line, pos)
            if match is None or match.group() == "#":
                break
            token = match.group()
            if token in ('"""', "'''"):
                closing = token
            pos = match.end()
    return out


def _header_end(lines: list[str], start: int) -> int | None:
    """Index of the line ending the signature that starts at ``start``; None for a one-line
    def or anything unusual (then the def is simply not hollowed)."""
    depth = 0
    for index in range(start, min(start + 60, len(lines))):
        code = _STRINGS.sub('""', lines[index]).split("#", 1)[0]
        depth += len(_OPEN.findall(code)) - len(_CLOSE.findall(code))
        if depth <= 0:
            return index if code.rstrip().endswith(":") else None
    return None


def hollow(text: str) -> tuple[str, dict[int, Body]] | None:
    """(hollow source, {def line: Body}) or None when nothing is worth hollowing."""
    lines = text.splitlines(keepends=True)
    in_string = _inside_string(lines)
    bodies: dict[int, Body] = {}
    out = list(lines)
    index = 0
    total = len(lines)
    while index < total:
        match = _DEF.match(lines[index])
        if match is None or in_string[index]:
            index += 1
            continue
        indent = len(match.group(1))
        header = _header_end(lines, index)
        if header is None:
            index += 1
            continue
        end = header
        probe = header + 1
        while probe < total:
            line = lines[probe]
            stripped = line.strip()
            if not in_string[probe] and stripped and not stripped.startswith("#"):
                if len(line) - len(line.lstrip()) <= indent:
                    break
                end = probe
            probe += 1
        if end - header >= 2:  # worth hollowing: at least two body lines
            out[header + 1] = " " * (indent + 4) + "...\n"
            for blank in range(header + 2, end + 1):
                out[blank] = "\n"
            bodies[index + 1] = Body(index + 1, end + 1, indent)
        index = end + 1
    if not bodies:
        return None
    return "".join(out), bodies


def parse_body(lines: list[str], body: Body, filename: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The real def at ``body.def_line`` (without its decorators; raises SyntaxError if the
    split was off). ``lines`` is the file's text split with ``keepends=True``."""
    chunk = "".join(lines[body.def_line - 1: body.end_line])
    # blank lines in front put every node at its line in the file (no increment_lineno walk)
    if body.indent:
        tree = ast.parse("\n" * (body.def_line - 2) + "if 1:\n" + chunk, filename=filename)
        wrapper = tree.body[0]
        single = isinstance(wrapper, ast.If) and len(tree.body) == 1 and len(wrapper.body) == 1
        node = wrapper.body[0] if single else None
    else:
        tree = ast.parse("\n" * (body.def_line - 1) + chunk, filename=filename)
        node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        raise SyntaxError(f"hollow split of {filename}:{body.def_line} did not yield one def")
    return node
