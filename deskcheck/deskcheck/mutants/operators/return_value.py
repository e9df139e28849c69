"""``return``: the target's body becomes ``return <value>`` (its docstring kept)."""

from __future__ import annotations

import libcst as cst

from deskcheck.mutants.operators.base import Operator, parse_expr


class ReturnValue(Operator):
    name = "return"
    summary = 'value = "expression the function returns instead"'
    required = {"value": (str,)}

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        statement = cst.SimpleStatementLine([cst.Return(parse_expr(self.params["value"],
                                                                   "value"))])
        body = func.body
        if isinstance(body, cst.SimpleStatementSuite):
            return func.with_changes(body=body.with_changes(body=[statement.body[0]]))
        keep = []
        first = body.body[0] if body.body else None
        if (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                and isinstance(first.body[0], cst.Expr)
                and isinstance(first.body[0].value, cst.SimpleString | cst.ConcatenatedString)):
            keep.append(first)
        return func.with_changes(body=body.with_changes(body=[*keep, statement]))
