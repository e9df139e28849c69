"""Whether two versions of a file read alike to an analysis that read some of its bodies.

With hollow parsing a body is parsed only when reached (``_sources.record_reads`` lists the
ones that were, the bodies whose text the field-write scan searched, and those read only for
their calls and tests). Two versions read alike when their hollow skeletons (everything but
the hollowed bodies, with every line and column) and their ``deskcheck:`` comment lines are
the same, and each body that differs either has the same tree with every line and column
(a comment inside a line), differs only in words no analysis reads (a docstring, or the
string arguments of a call into code outside the root, a log message, reworded within
their lines) or was never parsed: a body only searched still holds no field write, a body
read for its calls still has the same calls and tests."""

from __future__ import annotations

import ast

from deskcheck.static._fields import _MAYBE_WRITE
from deskcheck.static._hollow import Body, hollow, parse_body


def unread_change(old: bytes, new: bytes, read: frozenset[int], scanned: frozenset[int],
                  calls: frozenset[int] = frozenset(),
                  inert: frozenset[tuple[int, int]] = frozenset()) -> str | None:
    """None when ``new`` reads as ``old`` did to an analysis that parsed the bodies whose
    def lines are in ``read``, searched those in ``scanned`` and looked only at the call
    and test texts of those in ``calls``, and read no string argument of the calls at the
    (line, column) positions in ``inert``; else why not."""
    try:
        old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
        before, after = hollow(old_text), hollow(new_text)
    except (UnicodeDecodeError, ValueError):
        return "not UTF-8 text"
    if before is None or after is None:
        return "no hollowed body"
    if set(before[1]) != set(after[1]):
        return "the functions moved, appeared or disappeared"
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    if _marks(old_lines) != _marks(new_lines):
        return "a deskcheck: comment changed"
    for line, body in before[1].items():
        other = after[1][line]
        if (old_lines[body.def_line - 1:body.end_line]
                != new_lines[other.def_line - 1:other.end_line]):
            code = _code(old_lines, body)
            if code is not None and code == _code(new_lines, other):
                continue  # a comment or blank space inside lines: the same tree, positions
            if line in read:
                prose = _code(old_lines, body, prose=True, inert=inert)
                if prose is not None and prose == _code(new_lines, other, prose=True,
                                                        inert=inert):
                    continue  # only words nothing reads: a docstring's, a log message's
                return f"line {line}: a body the analysis read changed"
            if line in scanned and _MAYBE_WRITE.search(
                    "\n".join(new_lines[other.def_line - 1:other.end_line])):
                return f"line {line}: a body searched for field writes may now hold one"
            if line in calls and (_calls(old_lines, body) != _calls(new_lines, other)
                                  or _calls(new_lines, other) is None):
                return f"line {line}: a call or a condition changed in a body read for them"
    try:
        same = _skeleton(before[0]) == _skeleton(after[0])
    except SyntaxError:
        return "the hollow text does not parse"
    return None if same else "code outside the function bodies changed"


def _parsed(lines: list[str], body: Body) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        return parse_body([line + "\n" for line in lines], body, "<body>")
    except (SyntaxError, ValueError):
        return None


def _code(lines: list[str], body: Body, prose: bool = False,
          inert: frozenset[tuple[int, int]] = frozenset()) -> str | None:
    """A body's tree with every line and column (None: it does not parse alone).
    ``prose``: with the words of its bare string statements (docstrings) left out, and those
    of the string arguments of the statement calls at ``inert`` (with their columns)."""
    node = _parsed(lines, body)
    if node is None:
        return None
    if prose:
        ends: set[tuple[int, int]] = set()  # where a masked statement ends
        for stmt in ast.walk(node):
            words = _words(stmt)
            if words is not None:  # the words
                ends.add((stmt.end_lineno, stmt.end_col_offset))
                words.value = ""
            elif _message(stmt, inert):
                ends.add((stmt.end_lineno, stmt.end_col_offset))
                call = stmt.value
                for part in (*call.args, *call.keywords):
                    for sub in ast.walk(part):
                        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                            sub.value = ""
                        if "col_offset" in sub._attributes:  # never ast.Load(): one shared
                            sub.col_offset = sub.end_col_offset = None  # object in every tree
        for sub in ast.walk(node):  # and the column where each node ending with one ends
            if (getattr(sub, "end_lineno", None), getattr(sub, "end_col_offset", None)) in ends:
                sub.end_col_offset = None
    return ast.dump(node, include_attributes=True)


_WORDS = (ast.Constant, ast.JoinedStr, ast.FormattedValue, ast.Name, ast.Attribute, ast.Load,
          ast.keyword)


def _message(stmt: ast.AST, inert: frozenset[tuple[int, int]]) -> bool:
    """A statement call at an ``inert`` position whose arguments hold only strings, names
    and attributes (no call, no assignment): their words and columns are read by nothing."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    if (call.lineno, call.col_offset) not in inert:
        return False
    return all(isinstance(sub, _WORDS) for part in (*call.args, *call.keywords)
               for sub in ast.walk(part))


def _words(node: ast.AST) -> ast.Constant | None:
    """The string of a string statement (a docstring): the analyses read no words of it."""
    value = node.value if isinstance(node, ast.Expr) else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return None


def _calls(lines: list[str], body: Body) -> set[str] | None:
    """The call functions and if/while/ternary tests of a body (no positions)."""
    node = _parsed(lines, body)
    if node is None:
        return None
    return {ast.dump(n.func) if isinstance(n, ast.Call) else "test:" + ast.dump(n.test)
            for n in ast.walk(node) if isinstance(n, ast.Call | ast.If | ast.While | ast.IfExp)}


def _marks(lines: list[str]) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(lines, 1) if "deskcheck:" in line]


def _skeleton(text: str) -> str:
    return ast.dump(ast.parse(text), include_attributes=True)
