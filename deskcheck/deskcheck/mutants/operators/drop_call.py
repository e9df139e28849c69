"""``drop-call``: a call site is removed (a statement call becomes ``pass``; a call inside
an expression becomes ``value``, default ``None``)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    ExpressionCollector,
    Operator,
    check_occurrence,
    choose,
    code_of,
    normalized,
    parse_expr,
    replace_nodes,
)


class DropCall(Operator):
    name = "drop-call"
    summary = 'call = "self._record" (callee or whole call) [, value = "None", occurrence = N]'
    required = {"call": (str,)}
    optional = {"value": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        return check_occurrence(params)

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        want = normalized(self.params["call"])

        def wanted(node: cst.BaseExpression) -> bool:
            return isinstance(node, cst.Call) and (
                normalized(code_of(node.func)) == want or normalized(code_of(node)) == want)

        collector = ExpressionCollector(wanted)
        func.body.visit(collector)
        sites = choose(collector.found, self.params.get("occurrence"),
                       f"drop-call: call {self.params['call']!r}", where)
        chosen = set(map(id, sites))
        statements = _StatementCalls(chosen)
        func.body.visit(statements)
        value = parse_expr(self.params.get("value", "None"), "value")
        mapping: dict[Any, Any] = {}
        for expr_stmt in statements.found:
            mapping[expr_stmt] = cst.Pass(semicolon=expr_stmt.semicolon)
        for site in sites:
            if id(site) not in statements.call_ids:
                mapping[site] = value
        return replace_nodes(func, mapping)


class _StatementCalls(cst.CSTVisitor):
    """``Expr`` statements whose value is one of the chosen calls (or ``await`` of one)."""

    def __init__(self, chosen: set[int]):
        self.chosen = chosen
        self.found: list[cst.Expr] = []
        self.call_ids: set[int] = set()

    def visit_Expr(self, node: cst.Expr) -> None:
        value = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if id(value) in self.chosen:
            self.found.append(node)
            self.call_ids.add(id(value))
