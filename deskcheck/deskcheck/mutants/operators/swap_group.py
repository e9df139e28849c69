"""``swap-group``: a collective runs over another group than the one its caller means: its
``group`` argument becomes ``to``, or is removed (``to`` unset: torch's default group, the
whole world instead of the TP group)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    StaleOperator,
    check_occurrence,
    choose,
    code_of,
    normalized,
    parse_expr,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import call_label, collective_calls, keyword


class SwapGroup(Operator):
    name = "swap-group"
    summary = '[to = "self.world_group" (unset: the default group), call = ..., occurrence = N]'
    optional = {"to": (str,), "call": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        return check_occurrence(params)

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        calls = [c for c in collective_calls(func, self.params.get("call"))
                 if keyword(c, "group") is not None]
        sites = choose(calls, self.params.get("occurrence"),
                       f"swap-group: {call_label(self.params.get('call'))} with group=...", where)
        to = self.params.get("to")
        mapping: dict[Any, Any] = {}
        for call in sites:
            arg = keyword(call, "group")
            assert arg is not None
            if to is None:
                args = [a for a in call.args if a is not arg]
                if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT and arg is \
                        call.args[-1]:
                    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                mapping[call] = call.with_changes(args=args)
            else:
                if normalized(code_of(arg.value)) == normalized(to):
                    raise StaleOperator(f"swap-group: the group is already {to!r} in {where}")
                mapping[arg] = arg.with_changes(value=parse_expr(to, "to"))
        return replace_nodes(func, mapping)
