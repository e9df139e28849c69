"""Decide a branch condition from a stand-in's own constant state, or say it cannot.

Three answers: ``LIVE`` (the branch is entered), ``DEAD`` (it is not), ``UNKNOWN``. Decided
forms: ``self.x is None`` / ``is not None`` / ``is`` another known value (locals bound to a
``self`` chain count: ``req = self.pending; if req is None``), ``==`` / ``!=`` against a literal or an enum
member (``Mode.NULL``, compared by class and member name, so nothing is imported),
``in`` / ``not in`` a literal tuple/list/set, a bare field (truthiness of a bool/int/str/
container/None value), ``not``, ``and`` / ``or``; a ``for`` body over a known container is
entered when it is non-empty. Anything else is ``UNKNOWN``.
"""

from __future__ import annotations

import ast
import enum
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deskcheck.static._collect import Cond

DEAD, UNKNOWN, LIVE = 0, 1, 2
_NOTHING = object()
_SIMPLE = (bool, int, float, str, bytes, type(None), tuple, list, set, frozenset, dict)


@dataclass(frozen=True)
class _Member:
    """``Cls.NAME`` written in the condition (an enum member, judged by names only)."""

    owner: str
    name: str


def decide(cond: Cond, constants: Mapping[str, Any]) -> int:
    if cond.test is None:
        return UNKNOWN
    if cond.kind == "for":
        if cond.aliases:
            constants = _Aliased(constants, dict(cond.aliases))
        value = _value(cond.test, cond.selves, constants)
        if value is _NOTHING or not isinstance(value, _SIMPLE):
            return UNKNOWN
        try:
            entered = len(value) > 0  # type: ignore[arg-type]
        except TypeError:
            return UNKNOWN
        return LIVE if entered else DEAD
    if cond.kind != "if":
        return UNKNOWN
    if cond.aliases:
        constants = _Aliased(constants, dict(cond.aliases))
    truth = _truth(cond.test, cond.selves, constants)
    if truth is None:
        return UNKNOWN
    return LIVE if truth != cond.negated else DEAD


def _truth(expr: ast.expr, selves: frozenset[str], constants: Mapping[str, Any]) -> bool | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = _truth(expr.operand, selves, constants)
        return None if inner is None else not inner
    if isinstance(expr, ast.BoolOp):
        values = [_truth(v, selves, constants) for v in expr.values]
        stop = isinstance(expr.op, ast.Or)  # or: any True decides; and: any False decides
        if stop in values:
            return stop
        return None if None in values else not stop
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left = _value(expr.left, selves, constants)
        right = _value(expr.comparators[0], selves, constants)
        if left is _NOTHING or right is _NOTHING:
            return None
        return _compare(expr.ops[0], left, right)
    value = _value(expr, selves, constants)
    if value is _NOTHING or not isinstance(value, _SIMPLE):
        return None
    return bool(value)


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool | None:
    if isinstance(op, ast.Is | ast.IsNot):
        if isinstance(left, _Member) or isinstance(right, _Member):
            return None
        same = left is right  # both are the stand-in's own values: identity is exact
        return same if isinstance(op, ast.Is) else not same
    if isinstance(op, ast.Eq | ast.NotEq):
        same = _equal(left, right)
        if same is None:
            return None
        return same if isinstance(op, ast.Eq) else not same
    if isinstance(op, ast.In | ast.NotIn):
        if not isinstance(right, tuple | list | set | frozenset):
            return None
        found = [_equal(left, item) for item in right]
        if True in found:
            inside = True
        elif None in found:
            return None
        else:
            inside = False
        return inside if isinstance(op, ast.In) else not inside
    fn = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
          ast.GtE: operator.ge}.get(type(op))
    if fn is not None and isinstance(left, int | float) and isinstance(right, int | float):
        return bool(fn(left, right))
    return None


def _equal(left: Any, right: Any) -> bool | None:
    if isinstance(right, _Member) and not isinstance(left, _Member):
        left, right = right, left
    if isinstance(left, _Member):
        if isinstance(right, enum.Enum):
            return type(right).__name__ == left.owner and right.name == left.name
        if isinstance(right, _Member):
            return left == right
        return None
    if isinstance(left, _SIMPLE + (enum.Enum,)) and isinstance(right, _SIMPLE + (enum.Enum,)):
        return left == right
    return None


def _value(expr: ast.expr, selves: frozenset[str], constants: Mapping[str, Any]) -> Any:
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Tuple | ast.List | ast.Set):
        items = [_value(e, selves, constants) for e in expr.elts]
        return _NOTHING if any(i is _NOTHING for i in items) else tuple(items)
    attrs: list[str] = []
    base: ast.expr = expr
    while isinstance(base, ast.Attribute):
        attrs.append(base.attr)
        base = base.value
    attrs.reverse()
    if not isinstance(base, ast.Name):
        return _NOTHING
    if base.id in selves:
        return _lookup(attrs, constants) if attrs else _NOTHING
    if isinstance(constants, _Aliased) and base.id in constants.aliases:
        return _lookup(constants.aliases[base.id].split(".") + attrs, constants)
    if len(attrs) >= 1 and attrs[-1].isupper() and (base.id[:1].isupper() or len(attrs) > 1):
        owner = attrs[-2] if len(attrs) > 1 else base.id
        return _Member(owner, attrs[-1])
    return _NOTHING


class _Aliased(dict):
    """The constants, plus the locals that alias a ``self`` chain where the branch stands."""

    def __init__(self, constants: Mapping[str, Any], aliases: dict[str, str]) -> None:
        super().__init__(constants)
        self.aliases = aliases


def _lookup(attrs: list[str], constants: Mapping[str, Any]) -> Any:
    dotted = ".".join(attrs)
    if dotted in constants:
        return constants[dotted]
    if attrs[0] not in constants:
        return _NOTHING
    value = constants[attrs[0]]
    for attr in attrs[1:]:
        holder = getattr(value, "__dict__", None)
        if not isinstance(holder, dict) or attr not in holder:
            return _NOTHING
        value = holder[attr]
    return value
