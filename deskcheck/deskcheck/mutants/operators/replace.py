"""``replace``: an exact snippet, which must occur exactly once in the target, is replaced."""

from __future__ import annotations

from typing import Any

import libcst as cst

from deskcheck.mutants.operators.base import BrokenMutant, Operator, StaleOperator, code_of


class Replace(Operator):
    name = "replace"
    summary = 'old = "exact snippet", new = "replacement"'
    required = {"old": (str,), "new": (str,)}

    @classmethod
    def check(cls, params: dict[str, Any]) -> list[tuple[str | None, str, str]]:
        if isinstance(params.get("old"), str) and not params["old"]:
            return [("old", "replace: 'old' must not be empty", "give the exact snippet")]
        if params.get("old") == params.get("new"):
            return [("new", "replace: 'new' equals 'old' (no defect)", "change 'new'")]
        return []

    def apply(self, func: cst.FunctionDef, where: str) -> cst.FunctionDef:
        old, new = self.params["old"], self.params["new"]
        text = code_of(func)
        count = text.count(old)
        if count != 1:
            found = "not found" if count == 0 else f"found {count} times (must be exactly once)"
            raise StaleOperator(f"replace: snippet {old!r} {found} in {where}")
        mutated = text.replace(old, new, 1)
        try:
            node = cst.parse_statement(mutated)
        except cst.ParserSyntaxError as exc:
            raise BrokenMutant(f"replace: {where} does not parse after replacing {old!r} with "
                               f"{new!r}: {exc.message}") from exc
        if not isinstance(node, cst.FunctionDef):
            raise BrokenMutant(f"replace: {where} is no longer a function after the replace")
        return node
