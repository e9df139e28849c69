"""``force-branch``: the test of an ``if``/``elif`` (or a conditional expression) is forced to
``True`` or ``False``."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    check_occurrence,
    choose,
    code_of,
    normalized,
    replace_nodes,
)


class ForceBranch(Operator):
    name = "force-branch"
    summary = 'condition = "streak >= limit", to = true|false [, occurrence = N]'
    required = {"condition": (str,), "to": (bool,)}
    optional = {"occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        return check_occurrence(params)

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        finder = _Conditions(normalized(self.params["condition"]))
        func.body.visit(finder)
        sites = choose(finder.found, self.params.get("occurrence"),
                       f"force-branch: condition {self.params['condition']!r}", where)
        forced = cst.Name("True" if self.params["to"] else "False")
        return replace_nodes(func, {site: forced.with_changes(
            lpar=site.lpar, rpar=site.rpar) for site in sites})


class _Conditions(cst.CSTVisitor):
    def __init__(self, want: str):
        self.want = want
        self.found: list[cst.BaseExpression] = []

    def _check(self, test: cst.BaseExpression) -> None:
        if normalized(code_of(test)) == self.want:
            self.found.append(test)

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test)
