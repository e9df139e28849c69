"""Context reads: module-level runtime state a function reads besides ``self`` —
``get_x().a.b``, ``mod.get_x().a``, ``envs.UPPER_NAME`` and ``global`` names — recorded with
the conditions they sit under (a mixin of the touch collector)."""

from __future__ import annotations

import ast

from deskcheck.static._facts import Cond, ContextRead


class ContextReads:
    """Needs ``locals``, ``self_names``, ``context``, ``stmt_line`` and ``conds``."""

    locals: set[str]
    self_names: set[str]
    context: list[ContextRead]
    stmt_line: int
    conds: list[Cond]

    def _module_function(self, func: ast.expr) -> str:
        """``get_x`` of ``get_x()`` / ``mod.get_x()``: a module-level function, not a method
        of a local or of ``self`` ("" otherwise)."""
        if isinstance(func, ast.Name) and func.id not in self.locals:
            return func.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id not in self.locals and func.value.id not in self.self_names:
            return func.attr
        return ""

    def _add_context(self, name: str, line: int) -> None:
        self.context.append(ContextRead(name, line, self.stmt_line, tuple(self.conds)))

    def _context(self, node: ast.Attribute) -> bool:
        """``get_x().a.b`` / ``mod.get_x().a`` / ``envs.UPPER_NAME``: recorded whole."""
        attrs: list[str] = []
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            attrs.append(base.attr)
            base = base.value
        attrs.reverse()
        if isinstance(base, ast.Call) and not base.args and not base.keywords:
            fname = self._module_function(base.func)
            if fname.startswith("get_"):
                self._add_context(".".join([f"{fname}()", *attrs]), node.lineno)
                return True
        if isinstance(base, ast.Name) and attrs and _is_env_name(base.id, attrs[0]):
            self._add_context(f"{base.id}.{attrs[0]}", node.lineno)
            return True
        return False


def _is_env_name(base: str, attr: str) -> bool:
    """``envs.SGLANG_X`` / ``env.FOO`` / ``environ``-style config objects with an UPPER name."""
    return (base.lower() in {"envs", "env", "environ", "environment"} or base.endswith("_envs")) \
        and attr.isupper()
