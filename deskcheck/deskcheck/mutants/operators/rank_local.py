"""``rank-local``: a value a collective produced replaced by the rank-local value it was made
from, at one read: ``limit = reduced[count_at]`` becomes ``limit = vals[count_at]``.

The collective still runs (no hang, every other reader still agrees); one consumer decides on
this rank's own value, the bug class of "admission used this rank's free slots instead of the
group's". Without ``output``/``local`` the pair comes from the function itself: ``out =
<collective>(local, ...)``. A collective whose result is used in place (not bound to a name)
is itself replaced by its first argument.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    StaleOperator,
    check_occurrence,
    choose,
    parse_expr,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import (
    Produced,
    call_label,
    collective_calls,
    find,
    first_positional,
    produced_values,
)


class RankLocal(Operator):
    name = "rank-local"
    summary = ('[output = "reduced", local = "vals"] [, call = "self._all_reduce_min"] '
               '[, occurrence = N|"all"]')
    optional = {"output": (str,), "local": (str,), "call": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        if ("output" in params) != ("local" in params):
            problems.append(("output" if "output" in params else "local",
                             "rank-local: 'output' and 'local' go together",
                             'give both (output = "reduced", local = "vals") or neither'))
        return problems

    def _pairs(self, func: cst.FunctionDef, where: str) -> list[Produced]:
        if "output" in self.params:
            return [Produced(self.params["output"], self.params["local"], func)]
        call = self.params.get("call")
        pairs = produced_values(func)
        if call:
            calls = {id(c) for c in collective_calls(func, call)}
            pairs = [p for p in pairs if isinstance(p.statement, cst.Assign)
                     and id(_value(p.statement)) in calls]
        return pairs

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        pairs = self._pairs(func, where)
        occurrence = self.params.get("occurrence")
        if not pairs:  # a result used in place: the call itself becomes its input
            calls = [c for c in collective_calls(func, self.params.get("call"))
                     if first_positional(c) is not None]
            sites = choose(calls, occurrence, f"rank-local: {call_label(self.params.get('call'))}"
                           " with an argument", where)
            return replace_nodes(func, {c: first_positional(c).value  # type: ignore[union-attr]
                                        for c in sites})
        outputs = {p.output: p for p in pairs}
        reads: list[tuple[cst.BaseExpression, Produced]] = []
        for node in find(func, lambda n: isinstance(n, cst.Name) and n.value in outputs):
            reads.append((node, outputs[node.value]))  # type: ignore[attr-defined]
        if not reads:
            raise StaleOperator(f"rank-local: {', '.join(outputs)} is never read in {where}")
        names = " or ".join(repr(o) for o in outputs)
        sites = choose([r[0] for r in reads], occurrence, f"rank-local: reads of {names}", where)
        chosen = {id(s) for s in sites}
        return replace_nodes(func, {node: parse_expr(pair.local, "local").with_changes(
            lpar=node.lpar, rpar=node.rpar) if _atomic(pair.local) else parse_expr(
                f"({pair.local})", "local") for node, pair in reads if id(node) in chosen})


def _value(statement: cst.Assign) -> cst.BaseExpression:
    value = statement.value
    return value.expression if isinstance(value, cst.Await) else value


def _atomic(code: str) -> bool:
    return isinstance(cst.parse_expression(code), cst.Name | cst.Attribute | cst.Call
                      | cst.Subscript)

