"""``group-size-one``: a group size read as 1 (``self.tp_size``, ``world_size``,
``dist.get_world_size(group)``): the code takes the world-of-one path (no reduce, floors
off, rank-local decisions) in a real group."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import (
    Operator,
    check_occurrence,
    choose,
    collect_expressions,
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import find, is_size_expression


class GroupSizeOne(Operator):
    name = "group-size-one"
    summary = '[size = "self.tp_size" (default: any group-size read), occurrence = N|"all"]'
    optional = {"size": (str,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        return check_occurrence(params)

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        size = self.params.get("size")
        if size:
            found = collect_expressions(func, size)
        else:
            found = find(func, is_size_expression)
        what = f"group-size-one: {size!r}" if size else "group-size-one: a group-size read"
        sites = choose(found, self.params.get("occurrence"), what, where)
        return replace_nodes(func, {site: cst.Integer("1", lpar=getattr(site, "lpar", ()),
                                                      rpar=getattr(site, "rpar", ()))
                                    for site in sites})

