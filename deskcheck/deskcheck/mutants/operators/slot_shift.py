"""``slot-shift``: a slot of a packed collective payload read at the wrong index:
``reduced[count_at]`` becomes ``reduced[count_at + 1]`` (a slice moves both ends).

``packed`` defaults to every value a collective produced in the function (``reduced =
<collective>(...)``, or the tensor an in-place collective reduced)."""

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
    replace_nodes,
)
from deskcheck.mutants.operators.collectives import find, in_place_outputs, produced_values


def _shifted(expr: cst.BaseExpression, by: int) -> cst.BaseExpression:
    text = code_of(expr.with_changes(lpar=[], rpar=[])) if hasattr(expr, "lpar") else \
        code_of(expr)
    inner = text if isinstance(expr, cst.Name | cst.Attribute | cst.Integer | cst.Call) \
        else f"({text})"
    sign = "+" if by > 0 else "-"
    return cst.parse_expression(f"{inner} {sign} {abs(by)}")


class SlotShift(Operator):
    name = "slot-shift"
    summary = '[packed = "reduced", index = "count_at", by = 1, occurrence = N|"all"]'
    optional = {"packed": (str,), "index": (str,), "by": (int,), "occurrence": (int, str)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        problems = check_occurrence(params)
        if params.get("by") == 0:
            problems.append(("by", "slot-shift: by = 0 is no defect", "by = 1 (or -1)"))
        return problems

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        packed = self.params.get("packed")
        written = [packed] if packed else [p.output for p in produced_values(func)] + \
            in_place_outputs(func)
        names = {normalized(n) for n in written}  # compared formatting-blind, said as written
        if not names:
            raise StaleOperator(f"slot-shift: no collective result to read slots of in {where}; "
                                "name it: packed = \"reduced\"")
        index = normalized(self.params["index"]) if "index" in self.params else None

        def wanted(node: cst.BaseExpression) -> bool:
            if not isinstance(node, cst.Subscript) or normalized(code_of(node.value)) not in names:
                return False
            if len(node.slice) != 1:
                return False
            inner = node.slice[0].slice
            if index is None:
                return True
            if isinstance(inner, cst.Index):
                return normalized(code_of(inner.value)) == index
            return False

        what = f"slot-shift: a slot read of {' or '.join(sorted(set(written)))}"
        if index is not None:
            what += f" at {self.params['index']!r}"
        sites = choose(find(func, wanted), self.params.get("occurrence"), what, where)
        by = self.params.get("by", 1)
        mapping: dict[Any, Any] = {}
        for site in sites:
            assert isinstance(site, cst.Subscript)
            element = site.slice[0]
            inner = element.slice
            if isinstance(inner, cst.Index):
                new_inner: cst.BaseSlice = inner.with_changes(value=_shifted(inner.value, by))
            else:
                assert isinstance(inner, cst.Slice)
                new_inner = inner.with_changes(
                    lower=_shifted(inner.lower, by) if inner.lower is not None
                    else cst.Integer(str(by)) if by > 0 else None,
                    upper=_shifted(inner.upper, by) if inner.upper is not None else None)
            mapping[site] = site.with_changes(slice=[element.with_changes(slice=new_inner)])
        return replace_nodes(func, mapping)
