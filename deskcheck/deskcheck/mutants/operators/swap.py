"""``swap``: an operator token or an expression is exchanged for another.

``old``/``new`` are either two operator tokens of the same kind (``<``/``<=``, ``and``/``or``,
``+``/``-``) or two expressions (``ReduceOp.MIN``/``ReduceOp.MAX``, ``min``/``max``).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    ExpressionCollector,
    Operator,
    check_occurrence,
    choose,
    collect_expressions,
    parse_expr,
    replace_nodes,
)

_BINARY = "+ - * / // % ** << >> & | ^ @".split()
_COMPARE = ["<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"]
_BOOLEAN = ["and", "or"]


def _token_kind(token: str) -> str | None:
    token = " ".join(token.split())
    for kind, tokens in (("binary", _BINARY), ("compare", _COMPARE), ("boolean", _BOOLEAN)):
        if token in tokens:
            return kind
    return None


def _operator_node(token: str, kind: str) -> cst.CSTNode:
    expr = cst.parse_expression(f"a {token} b")
    if kind == "compare":
        assert isinstance(expr, cst.Comparison)
        return expr.comparisons[0].operator
    assert isinstance(expr, cst.BinaryOperation | cst.BooleanOperation)
    return expr.operator


class Swap(Operator):
    name = "swap"
    summary = 'old = "ReduceOp.MIN" / "<", new = "ReduceOp.MAX" / "<=" [, occurrence = N|"all"]'
    required = {"old": (str,), "new": (str,)}
    optional = {"occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        old, new = params.get("old"), params.get("new")
        if isinstance(old, str) and isinstance(new, str):
            if _token_kind(old) != _token_kind(new):
                problems.append(("new", f"swap: {old!r} and {new!r} are not the same kind of "
                                 "token/expression", "swap an operator for an operator of the "
                                 "same kind, or an expression for an expression"))
            elif " ".join(old.split()) == " ".join(new.split()):
                problems.append(("new", "swap: 'new' equals 'old' (no defect)", "change 'new'"))
        return problems

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        old, new = self.params["old"], self.params["new"]
        occurrence = self.params.get("occurrence")
        kind = _token_kind(old)
        if kind is None:
            new_expr = parse_expr(new, "new")
            sites = choose(collect_expressions(func, old), occurrence,
                           f"swap: expression {old!r}", where)
            return replace_nodes(func, {site: new_expr.with_changes(
                lpar=site.lpar, rpar=site.rpar) if hasattr(site, "lpar") else new_expr
                for site in sites})
        old_op, new_op = _operator_node(old, kind), _operator_node(new, kind)
        found = self._operator_sites(func, type(old_op))
        sites = choose(found, occurrence, f"swap: operator {old!r}", where)
        mapping = {}
        for site in sites:
            changes = {k: getattr(site, k) for k in ("whitespace_before", "whitespace_after")
                       if hasattr(site, k) and hasattr(new_op, k)}
            mapping[site] = new_op.with_changes(**changes)
        return replace_nodes(func, mapping)

    @staticmethod
    def _operator_sites(func: cst.FunctionDef, op_type: type) -> list[cst.CSTNode]:
        sites: list[cst.CSTNode] = []

        def wanted(node: cst.BaseExpression) -> bool:
            if isinstance(node, cst.BinaryOperation | cst.BooleanOperation):
                if type(node.operator) is op_type:
                    sites.append(node.operator)
            elif isinstance(node, cst.Comparison):
                sites.extend(c.operator for c in node.comparisons
                             if type(c.operator) is op_type)
            return False

        func.body.visit(ExpressionCollector(wanted))
        return sites
