"""``skip-on-rank``: a collective guarded so only one rank runs it (``if self.tp_rank == 0:``);
the others skip it, so the group hangs in it (the most typical TP hang).

A collective that is a whole statement is wrapped in the ``if``; one whose result is used
becomes ``(call if rank == 0 else <its first argument>)``, so a skipping rank goes on with its
rank-local value. ``rank`` defaults to the first rank name the function reads
(``self.tp_rank``, ``rank``), else a ``get_*rank()`` call, else torch's default group rank.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    check_occurrence,
    choose,
    code_of,
    parse_expr,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import (
    call_label,
    collective_calls,
    first_positional,
    rank_expression,
    statement_lines,
)


class SkipOnRank(Operator):
    name = "skip-on-rank"
    summary = '[call = "dist.all_reduce", rank = "self.tp_rank", runs_on = 0, occurrence = N]'
    optional = {"call": (str,), "rank": (str,), "runs_on": (int,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        if isinstance(params.get("runs_on"), int) and params["runs_on"] < 0:
            problems.append(("runs_on", "skip-on-rank: runs_on must be a rank (0 or more)",
                             "runs_on = 0"))
        return problems

    def guard(self, func: cst.FunctionDef) -> str:
        rank = self.params.get("rank") or rank_expression(func)
        return f"{rank} == {self.params.get('runs_on', 0)}"

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        calls = collective_calls(func, self.params.get("call"))
        sites = choose(calls, self.params.get("occurrence"),
                       f"skip-on-rank: {call_label(self.params.get('call'))}", where)
        guard = self.guard(func)
        test = parse_expr(guard, "rank")
        lines = statement_lines(func, sites)
        mapping: dict[Any, Any] = {}
        for call in sites:
            line = lines.get(id(call))
            if line is not None:
                mapping[line] = cst.If(test=test, leading_lines=line.leading_lines,
                                       body=cst.IndentedBlock(body=[line.with_changes(
                                           leading_lines=())]))
                continue
            arg = first_positional(call)
            local = code_of(arg.value) if arg is not None else "None"
            mapping[call] = cst.parse_expression(f"({code_of(call)} if {guard} else {local})")
        return replace_nodes(func, mapping)
