"""A generator function's value is what it yields: ``for x in self._batches():`` iterates the
values of its ``yield`` statements (and of the iterables it ``yield from``s), as many times
as the conditions and loops around each ``yield`` let it run. Found on torchtitan's trainer
(``batch_generator`` yields each batch of the rank's own data shard): the yields were never
read, so a generator read as returning nothing."""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def yield_points(fn: ast.AST | None) -> list[tuple[ast.expr | None, bool, ast.stmt]]:
    """(yielded expression, whether it is a ``yield from``, its statement) for each yield of
    the function itself (not of functions or classes defined inside it); [] when it is no
    generator."""
    if fn is None or not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    out: list[tuple[ast.expr | None, bool, ast.stmt]] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.stmt):
            for sub in _own_expressions(node):
                if isinstance(sub, ast.Yield | ast.YieldFrom):
                    out.append((sub.value, isinstance(sub, ast.YieldFrom), node))
        todo.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda y: (y[2].lineno, y[2].col_offset))


def _own_expressions(stmt: ast.stmt) -> list[ast.AST]:
    """The expression nodes of a statement that belong to it, not to statements nested in it."""
    out: list[ast.AST] = []
    todo = [c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        out.append(node)
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))
    return out
