"""``drop-collective``: a collective no rank calls any more. A statement (``dist.all_reduce(t)``,
``dist.barrier()``) becomes ``pass``, so every rank keeps its own tensor; a call whose result is
used becomes its first argument (the rank-local value it was made from), or ``value``."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    check_occurrence,
    choose,
    parse_expr,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import (
    call_label,
    collective_calls,
    first_positional,
    statement_lines,
)


class DropCollective(Operator):
    name = "drop-collective"
    summary = '[call = "dist.all_reduce", value = "vals", occurrence = N|"all"]'
    optional = {"call": (str,), "value": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        return check_occurrence(params)

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        calls = collective_calls(func, self.params.get("call"))
        sites = choose(calls, self.params.get("occurrence"),
                       f"drop-collective: {call_label(self.params.get('call'))}", where)
        lines = statement_lines(func, sites)
        mapping: dict[Any, Any] = {}
        for call in sites:
            line = lines.get(id(call))
            if line is not None:
                mapping[line] = line.with_changes(body=[cst.Pass()])
                continue
            if "value" in self.params:
                mapping[call] = parse_expr(self.params["value"], "value")
                continue
            arg = first_positional(call)
            mapping[call] = arg.value if arg is not None else cst.Name("None")
        return replace_nodes(func, mapping)
