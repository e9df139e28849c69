"""Compile a ``def`` into a code object that can replace a live function's ``__code__``.

Shared by the mutants (a mutated def swapped in) and the suites' decision recorder (an
instrumented copy swapped in while it records). The def is compiled inside skeleton scopes
rebuilt from the function's ``co_qualname`` (``class Scheduler:`` for name mangling and the
``__class__`` cell of ``super()``; ``def factory():`` with the free variables bound for
closures), so the new code has exactly the free variables the live closure provides.

A def swapped in from another source than its file (a mutant) is noted here with its source
text, so a later rewrite of the live function starts from what really runs.
"""

from __future__ import annotations
import __future__

import ast
import types

FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_SOURCES: dict[types.CodeType, tuple[str, int, str]] = {}


def skeleton(qualname: str, def_node: ast.stmt, freevars: tuple[str, ...]) -> ast.Module:
    """A module holding ``def_node`` inside the scopes its ``qualname`` names."""
    parts = qualname.split(".")[:-1]
    scopes: list[tuple[str, str]] = []  # (kind, name) outermost first
    index = 0
    while index < len(parts):
        if index + 1 < len(parts) and parts[index + 1] == "<locals>":
            scopes.append(("def", parts[index]))
            index += 2
        else:
            scopes.append(("class", parts[index]))
            index += 1
    body: list[ast.stmt] = [def_node]
    innermost_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=-1)
    for position in range(len(scopes) - 1, -1, -1):
        kind, name = scopes[position]
        if kind == "class":
            body = [ast.ClassDef(name=name, bases=[], keywords=[], body=body,
                                 decorator_list=[], type_params=[])]
        else:
            binds: list[ast.stmt] = []
            if position == innermost_def:
                binds = [ast.Assign(targets=[ast.Name(v, ast.Store())],
                                    value=ast.Constant(None)) for v in freevars]
            body = [ast.FunctionDef(name=name, args=ast.arguments(
                posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                body=binds + body, decorator_list=[], returns=None, type_params=[])]
    module = ast.Module(body=body, type_ignores=[])
    return ast.fix_missing_locations(module)


def find_code(code: types.CodeType, qualname: str) -> types.CodeType | None:
    """The code object named ``qualname`` among the constants of ``code`` (recursively)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname:
                return const
            found = find_code(const, qualname)
            if found is not None:
                return found
    return None


def note_source(code: types.CodeType, text: str, start_line: int, indent: str) -> None:
    """Remember that ``code`` was compiled from ``text`` (a def, dedented by ``indent``,
    whose first line is ``start_line`` of its file), not from the file on disk."""
    _SOURCES[code] = (text, start_line, indent)
    for const in code.co_consts:  # the defs nested in it come from the same text
        if isinstance(const, types.CodeType):
            note_source(const, text, start_line, indent)


def source_of(code: types.CodeType) -> tuple[str, int, str] | None:
    """The ``(text, start_line, indent)`` a swapped-in def was compiled from, or None."""
    return _SOURCES.get(code)
