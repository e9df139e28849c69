"""Catalog validation of ``occurrence``: applied statically to the target's source (read, not
imported), an ``occurrence`` the function does not have is a catalog error at its line.

A target that cannot be found statically (inherited through a base class in another module, or
bound by an assignment) is checked when the sweep resolves it, with the same message."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import libcst as cst

from deskcheck.mutants.catalog_checks import module_file
from deskcheck.mutants.mutated import OccurrenceOutOfRange

OCCURRENCE_FIX = ("count the operator's sites in the target's source (in source order, from 1) "
                  "and set occurrence to one of them, or \"all\" where the operator allows it")


def _function_node(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef
                                                    | ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None


def static_function_text(target: str, roots: Iterable[Path]) -> tuple[str, str] | None:
    """(the dedented ``def`` text, ``path:line``) of ``target`` read from its module's source,
    or None when it cannot be found without importing."""
    module, _, qualname = target.partition(":")
    path = module_file(module, roots)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
        node = _function_node(ast.parse(text), qualname)
    except (OSError, SyntaxError, ValueError):
        return None
    if node is None or node.end_lineno is None:
        return None
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = text.splitlines(keepends=True)[first - 1: node.end_lineno]
    return textwrap.dedent("".join(lines)), f"{path}:{node.lineno}"


def static_occurrence_problem(target: str, operator: str, params: dict[str, Any],
                              roots: Iterable[Path]) -> tuple[str, str] | None:
    """``(message, fix)`` when ``occurrence`` names a site ``target`` does not have."""
    occurrence = params.get("occurrence")
    if not isinstance(occurrence, int) or isinstance(occurrence, bool):
        return None
    found = static_function_text(target, roots)
    if found is None:
        return None
    text, where = found
    from deskcheck.mutants.operators import operator_class

    try:
        func = next(s for s in cst.parse_module(text).body if isinstance(s, cst.FunctionDef))
        operator_class(operator)(params).apply(func, f"function {target} ({where})")
    except OccurrenceOutOfRange as exc:
        return str(exc), OCCURRENCE_FIX
    except Exception:  # noqa: BLE001 - anything else is the sweep's to judge (STALE, BROKEN)
        return None
    return None
