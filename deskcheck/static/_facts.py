"""What one function's touches are: a touch of ``self.X`` (:class:`Access`) with the chain of
branch conditions it sits under (:class:`Cond`), a context read (:class:`ContextRead`), and
the facts of one function (:class:`FunctionFacts`). Records only; the traversal that finds
them is :mod:`deskcheck.static._collector`."""

from __future__ import annotations

import ast
from dataclasses import dataclass

READ, WRITE, RMW, CALL, GUARDED, DELETE = "read", "write", "rmw", "call", "guarded", "delete"


# the pseudo-field of a container's elements: `self.queue[0].rid`, `req = self.states.get(rid);
# req.rid` and `for req in self.queue: req.rid` read `queue.[].rid`
ELEMENT = "[]"
# the root of a touch through a parameter: `def release(self, req): req.session` touches
# `@req.session`; a caller that passes `self.queue.pop()` as `req` makes it `queue.[].session`
PARAM = "@"

@dataclass(frozen=True, eq=False)
class Cond:
    """One branch a touch sits under. ``kind``: if (also elif/while/ternary/and-or operand),
    for (loop body: entered when the iterable is non-empty), except, case, nested (inside a
    nested def/lambda), for-else. ``negated``: the else side (or the code after an early
    ``if ...: return``). ``selves``: the names bound to ``self`` where it stands."""

    kind: str
    line: int
    test: ast.expr | None = None
    negated: bool = False
    selves: frozenset[str] = frozenset()
    label: str = ""
    aliases: tuple[tuple[str, str], ...] = ()  # local = self.a.b bound before the branch
    pattern: ast.pattern | None = None  # case: its pattern (``test`` is the match subject)
    earlier: tuple[tuple[ast.pattern, bool], ...] = ()  # case: (pattern, has a guard) before
    # local = the element expression it was bound to (``state = self.states.get(rid)``)
    bound: tuple[tuple[str, ast.expr], ...] = ()

    @property
    def text(self) -> str:
        """The condition as written, e.g. ``if self.x is None`` / ``else of if self.x``."""
        if self.kind == "if" and self.test is not None:
            shown = f"if {ast.unparse(self.test)}"
            if self.negated:
                return self.label.format(shown) if self.label else f"else of `{shown}`"
            return shown
        if self.kind == "for" and self.test is not None:
            return f"for ... in {ast.unparse(self.test)}"
        return self.label or self.kind


@dataclass(frozen=True)
class Access:
    """One touch of ``self.<name>`` (``name`` may be a chain such as ``ps.tp_rank``)."""

    name: str
    kind: str
    line: int
    after_write: bool = False
    swallowed: bool = False  # inside a try whose handler would catch an AttributeError
    stmt_line: int = 0  # first line of the enclosing statement (coverage.py's line)
    conds: tuple[Cond, ...] = ()
    call: ast.Call | None = None  # CALL: the call node (its arguments flow into the callee)
    # CALL of self.m(...): (position or keyword, the self chain passed there: `queue.[]`, or
    # `@p...` for this function's own parameter p)
    args: tuple[tuple[int | str, str], ...] = ()


@dataclass(frozen=True)
class ContextRead:
    """Module-level runtime state read besides ``self``: ``get_parallel().pp_size``,
    ``envs.SGLANG_X``, a ``global`` name."""

    name: str
    line: int
    stmt_line: int = 0
    conds: tuple[Cond, ...] = ()


@dataclass(frozen=True)
class FunctionFacts:
    accesses: tuple[Access, ...]
    super_uses: tuple[tuple[str, str, int], ...]  # (name, kind, line) of super().name
    dynamic_lines: tuple[int, ...]  # getattr(self, <not a literal>)
    super_conds: tuple[tuple[Cond, ...], ...] = ()  # parallel to super_uses
    context: tuple[ContextRead, ...] = ()
    super_swallowed: tuple[bool, ...] = ()  # parallel to super_uses: inside a swallowing try
    # touches through a parameter (``@req.session``), named from its root
    param_accesses: tuple[Access, ...] = ()
