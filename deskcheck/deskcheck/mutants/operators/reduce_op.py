"""``reduce-op``: a collective's reduce op swapped (``MIN`` -> ``MAX``, ``SUM``): the group
agrees, on the wrong value."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    StaleOperator,
    check_occurrence,
    choose,
    code_of,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import (
    DIST_PREFIXES,
    REDUCE_OPS,
    call_label,
    collective_calls,
    dotted,
    keyword,
)


def op_of(call: cst.Call) -> cst.BaseExpression | None:
    """The ``op=`` argument, or a positional ``ReduceOp.X`` one."""
    arg = keyword(call, "op")
    if arg is not None:
        return arg.value
    return next((a.value for a in call.args if a.keyword is None
                 and dotted(a.value).rpartition(".")[2] in REDUCE_OPS
                 and "ReduceOp" in dotted(a.value)), None)


def reducing_calls(calls: list[cst.Call]) -> list[cst.Call]:
    """The calls whose reduce op can be swapped: an explicit op, or a torch.distributed
    reduce (whose default op is SUM); a wrapper without an op has none to swap."""
    found = []
    for call in calls:
        prefix, _, last = dotted(call.func).rpartition(".")
        if op_of(call) is not None or (prefix in DIST_PREFIXES and "reduce" in last):
            found.append(call)
    return found


class ReduceOpSwap(Operator):
    name = "reduce-op"
    summary = 'to = "MAX" (MIN, SUM, ...) [, call = "dist.all_reduce", occurrence = N]'
    required = {"to": (str,)}
    optional = {"call": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        to = params.get("to")
        if isinstance(to, str) and to.upper() not in REDUCE_OPS:
            problems.append(("to", f"reduce-op: {to!r} is not a reduce op",
                             f"to = one of {', '.join(REDUCE_OPS)}"))
        return problems

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        to = self.params["to"].upper()
        calls = reducing_calls(collective_calls(func, self.params.get("call")))
        sites = choose(calls, self.params.get("occurrence"),
                       f"reduce-op: {call_label(self.params.get('call'))} with a reduce op", where)
        mapping: dict[Any, Any] = {}
        for call in sites:
            op = op_of(call)
            if op is None:  # torch's default op is SUM: name the new one explicitly
                if to == "SUM":
                    raise StaleOperator(f"reduce-op: {code_of(call)} already reduces with SUM "
                                        f"(the default) in {where}")
                base = dotted(call.func).rpartition(".")[0] or "torch.distributed"
                new_arg = cst.Arg(keyword=cst.Name("op"), value=cst.parse_expression(
                    f"{base}.ReduceOp.{to}"), equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace("")))
                args = list(call.args)
                if args:
                    args[-1] = args[-1].with_changes(comma=cst.Comma(
                        whitespace_after=cst.SimpleWhitespace(" ")))
                mapping[call] = call.with_changes(args=[*args, new_arg])
                continue
            old = dotted(op).rpartition(".")[2] if isinstance(op, cst.Attribute) else ""
            if old.upper() == to:
                raise StaleOperator(f"reduce-op: {code_of(call)} already reduces with {to} in "
                                    f"{where}")
            if isinstance(op, cst.Attribute):
                mapping[op] = op.with_changes(attr=cst.Name(to))
            else:
                mapping[op] = cst.parse_expression(f"torch.distributed.ReduceOp.{to}")
        return replace_nodes(func, mapping)
