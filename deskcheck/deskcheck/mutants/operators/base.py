"""The operator base class, its errors and the expression-matching helpers they share.

An operator is one small class: it validates its catalog keys (``required``/``optional``)
and rewrites a libcst ``FunctionDef`` (formatting kept). It never touches a file.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import libcst as cst

from deskcheck.mutants.mutated import BrokenMutant, OccurrenceOutOfRange, StaleOperator

_EMPTY = cst.Module(body=[])


LINE_KEYS = ("line", "lineno", "line_number", "lines")


def line_key_hint(key: str) -> str:
    """Why a line-number key is refused (mutants are never located by line)."""
    return ("; mutants are located by qualified name and snippet, never by line"
            if key in LINE_KEYS else "")


class OperatorParamError(Exception):
    """Catalog keys wrong for an operator: ``problems`` is [(key, message, fix)]."""

    def __init__(self, problems: list[tuple[str | None, str, str]]):
        self.problems = problems
        super().__init__("; ".join(p[1] for p in problems))


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def normalized(code: str) -> str:
    """A formatting-blind form of an expression (whitespace, parens and comments ignored)."""
    text = code.strip()
    try:
        return ast.dump(ast.parse(text, mode="eval").body)
    except SyntaxError:
        return " ".join(text.split())


class Operator:
    """Base class: subclasses set ``name``, ``required``, ``optional`` and ``apply``."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    required: ClassVar[dict[str, tuple[type, ...]]] = {}
    optional: ClassVar[dict[str, tuple[type, ...]]] = {}
    # False for operators a tool builds in memory (``auto-source``): never written in a catalog
    in_catalogs: ClassVar[bool] = True

    def __init__(self, params: dict[str, Any]):
        self.params = params

    @classmethod
    def validate(cls, params: dict[str, Any]) -> None:
        problems: list[tuple[str | None, str, str]] = []
        allowed = {**cls.required, **cls.optional}
        for key in cls.required:
            if key not in params:
                problems.append((None, f"operator {cls.name!r} needs key {key!r}",
                                 f"add {key} = ... ({cls.summary})"))
        for key, value in params.items():
            if key not in allowed:
                hint = line_key_hint(key)
                problems.append((key, f"unknown key {key!r} for operator {cls.name!r}{hint}",
                                 f"allowed keys: {', '.join(allowed) or 'none'}"))
                continue
            types = allowed[key]
            if isinstance(value, bool) and bool not in types:
                ok = False
            else:
                ok = isinstance(value, types)
            if not ok:
                names = " or ".join(t.__name__ for t in types)
                problems.append((key, f"{cls.name}: {key!r} must be {names}, got {value!r}",
                                 f"write {key} as {names}"))
        problems.extend(cls.check(params))
        if problems:
            raise OperatorParamError(problems)

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        """Operator-specific checks beyond key types (override)."""
        return []

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.name} " + ", ".join(f"{k}={v!r}" for k, v in self.params.items())


def parse_expr(code: str, key: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(code)
    except cst.ParserSyntaxError as exc:
        raise BrokenMutant(f"{key} = {code!r} is not a Python expression: {exc.message}") from exc


def choose(matches: Sequence[Any], occurrence: Any, what: str, where: str) -> list[Any]:
    """Pick the site(s): exactly one match, or ``occurrence`` (1-based, or "all")."""
    if not matches:
        raise StaleOperator(f"{what} not found in {where}")
    if occurrence == "all":
        return list(matches)
    if occurrence is None:
        if len(matches) > 1:
            raise StaleOperator(f"{what} matches {len(matches)} sites in {where}; "
                                f"add occurrence = 1..{len(matches)} (or \"all\")")
        return [matches[0]]
    if not 1 <= occurrence <= len(matches):
        raise OccurrenceOutOfRange(f"{what}: occurrence {occurrence} requested but {where} has "
                                   f"{len(matches)} site(s)")
    return [matches[occurrence - 1]]


def check_occurrence(params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    occ = params.get("occurrence")
    if occ is None or occ == "all" or (isinstance(occ, int) and not isinstance(occ, bool)
                                      and occ >= 1):
        return []
    return [("occurrence", f"occurrence must be a positive integer or \"all\", got {occ!r}",
             "occurrence = 1")]


class ExpressionCollector(cst.CSTVisitor):
    """Collect expressions in load position (not assignment targets, attribute names,
    keyword names or parameter names) that satisfy ``wanted``, in source order."""

    def __init__(self, wanted: Callable[[cst.BaseExpression], bool]):
        self.wanted = wanted
        self.found: list[cst.BaseExpression] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression) and self.wanted(node):
            self.found.append(node)
        if isinstance(node, cst.Attribute):
            node.value.visit(self)
            return False
        if isinstance(node, cst.Arg):
            node.value.visit(self)
            return False
        if isinstance(node, (cst.AssignTarget, cst.Param, cst.Parameters, cst.Decorator)):
            return False
        if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            if node.value is not None:
                node.value.visit(self)
            return False
        if isinstance(node, cst.NamedExpr):
            node.value.visit(self)
            return False
        if isinstance(node, (cst.For, cst.CompFor)):
            node.iter.visit(self)
            for child in node.children:
                if child is not node.target and child is not node.iter:
                    child.visit(self)
            return False
        return True


def collect_expressions(func: cst.FunctionDef, snippet: str,
                        node_type: type | None = None) -> list[cst.BaseExpression]:
    """Expressions in ``func``'s body whose code equals ``snippet`` (formatting-blind)."""
    want = normalized(snippet)

    def wanted(node: cst.BaseExpression) -> bool:
        if node_type is not None and not isinstance(node, node_type):
            return False
        return normalized(code_of(node)) == want

    collector = ExpressionCollector(wanted)
    func.body.visit(collector)
    return collector.found


class _Replacer(cst.CSTTransformer):
    def __init__(self, mapping: dict[cst.CSTNode, cst.CSTNode]):
        self.mapping = mapping

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        return self.mapping.get(original_node, updated_node)


def replace_nodes(func: cst.FunctionDef, mapping: dict[Any, Any]) -> cst.FunctionDef:
    """Replace nodes (by identity) in ``func``; the mapping's keys are original nodes."""
    result = func.visit(_Replacer(mapping))
    assert isinstance(result, cst.FunctionDef)
    return result
