"""``offset``: an expression becomes ``(expression) + k`` (e.g. overshoot a bound by 2)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    check_occurrence,
    choose,
    code_of,
    collect_expressions,
    replace_nodes,
)

_ATOMIC = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


class Offset(Operator):
    name = "offset"
    summary = 'expression = "budget", by = 2 [, occurrence = N]'
    required = {"expression": (str,), "by": (int,)}
    optional = {"occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        if params.get("by") == 0:
            problems.append(("by", "offset: by = 0 is no defect", "use a non-zero offset"))
        return problems

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        by = self.params["by"]
        sites = choose(collect_expressions(func, self.params["expression"]),
                       self.params.get("occurrence"),
                       f"offset: expression {self.params['expression']!r}", where)
        mapping = {}
        for site in sites:
            text = code_of(site.with_changes(lpar=[], rpar=[])) if hasattr(site, "lpar") \
                else code_of(site)
            inner = text if isinstance(site, _ATOMIC) else f"({text})"
            sign = "+" if by > 0 else "-"
            mapping[site] = cst.parse_expression(f"({inner} {sign} {abs(by)})")
        return replace_nodes(func, mapping)
