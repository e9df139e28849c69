"""Decide a branch condition from known constants, or say why it cannot.

Three answers: ``LIVE`` (the branch is entered), ``DEAD`` (it is not), ``UNKNOWN``; and
:func:`explain` adds the reason an ``UNKNOWN`` stays undecided (which value is unknown, from
where). Two sources of known values: ``constants`` (the stand-in's own fields: ``self.x``,
chains ``self.a.b``, locals aliasing a ``self`` chain) and an :class:`~._constants.Env`
(parameters bound from the call site, literal defaults, literal locals).

Decided forms: ``is`` / ``is not``, ``==`` / ``!=`` against a literal or an enum member
(``Mode.NULL``, compared by class and member name, so nothing is imported), ``<``/``<=``/...
on numbers, ``in`` / ``not in`` a known container, a bare value's truthiness, ``not``,
``and`` / ``or`` (short-circuit: a decided operand decides), ``len(x)``, ``isinstance(x, T)``
with builtin ``T``; a ``for`` body is entered when the iterable's length is known and > 0
(``range(n)``, literal tuples/lists, a known container, ``enumerate``/``zip``/``reversed``/
``sorted``/``list``/``tuple`` of those, ``.items()``/``.keys()``/``.values()`` of a known
dict); a ``case`` is entered when its subject is known and the patterns before it decidedly
do not match (value, singleton, ``|``, wildcard and capture patterns). Pure ``str`` methods
(``startswith``, ``lower``, ...) are evaluated on a known string with literal arguments, and
a grow-only local's growth site under a loop whose variable its tests read is decided pass by
pass over the loop's known items.
"""

from __future__ import annotations

import ast
import copy
import enum
import operator
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deskcheck.static._collect import Cond
from deskcheck.static._constants import EMPTY, Env, Returns, Something, Unknown, attributes
from deskcheck.static._growth import Grows
from deskcheck.static._growth import Guard as GrowthGuard

DEAD, UNKNOWN, LIVE = 0, 1, 2
_SIMPLE = (bool, int, float, str, bytes, type(None), tuple, list, set, frozenset, dict, range)
_BUILTIN_TYPES: dict[str, type | tuple[type, ...]] = {
    "int": int, "float": float, "str": str, "bytes": bytes, "bool": bool, "list": list,
    "tuple": tuple, "dict": dict, "set": (set, frozenset), "frozenset": frozenset,
    "NoneType": type(None)}
# pure methods of str, decided on a known string with literal arguments
_STR_METHODS = frozenset({
    "startswith", "endswith", "lower", "upper", "casefold", "strip", "lstrip", "rstrip",
    "removeprefix", "removesuffix", "isdigit", "isalpha", "isalnum", "isspace", "islower",
    "isupper", "isidentifier", "count", "find", "rfind", "split", "rsplit", "partition",
    "rpartition", "replace"})
_LENGTH_WRAPPERS = {"enumerate", "reversed", "sorted", "list", "tuple", "set", "frozenset"}


@dataclass(frozen=True)
class Decision:
    """A condition's answer; ``why`` names what kept it undecided ("" when decided)."""

    status: int
    why: str = ""


@dataclass(frozen=True)
class _Member:
    """``Cls.NAME`` written in the condition (an enum member, judged by names only)."""

    owner: str
    name: str


def decide(cond: Cond, constants: Mapping[str, Any], env: Env = EMPTY) -> int:
    """``LIVE``, ``DEAD`` or ``UNKNOWN`` for the branch ``cond`` (see the module docstring)."""
    return explain(cond, constants, env).status


def explain(cond: Cond, constants: Mapping[str, Any], env: Env = EMPTY) -> Decision:
    """:func:`decide`, with the reason when the answer is ``UNKNOWN``."""
    if cond.test is None:
        return Decision(UNKNOWN, f"`{cond.text}` is not decided statically")
    ctx = _Context(cond, constants, env)
    if cond.kind == "for" and (grows := ctx.grows(cond.test)) is not None:
        filled = ctx.filled(grows)  # a grow-only local: entered once it holds something
        if isinstance(filled, Unknown):
            return Decision(UNKNOWN, filled.why)
        return Decision(LIVE if filled else DEAD)
    if cond.kind == "for":
        length = ctx.length(cond.test)
        if isinstance(length, Unknown):
            return Decision(UNKNOWN, length.why)
        return Decision(LIVE if length > 0 else DEAD)
    if cond.kind == "case":
        return ctx.case()
    if cond.kind != "if":
        return Decision(UNKNOWN, f"`{cond.text}` is not decided statically")
    truth = ctx.truth(cond.test)
    if isinstance(truth, Unknown):
        return Decision(UNKNOWN, truth.why)
    return Decision(LIVE if truth != cond.negated else DEAD)


class _Context:
    def __init__(self, cond: Cond, constants: Mapping[str, Any], env: Env) -> None:
        self.cond = cond
        self.selves = cond.selves
        self.aliases = dict(cond.aliases)
        self.bound = dict(cond.bound)  # state = self.states.get(rid): decided from the dict
        self.constants = constants
        self.env = env

    # -- grow-only locals (``_growth``) -------------------------------------------------------
    def grows(self, expr: ast.expr) -> Grows | None:
        """The grow-only local ``expr`` iterates or tests (through ``reversed``, ``sorted``,
        ``enumerate``, ``list``, ...), else None."""
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id in _LENGTH_WRAPPERS and len(expr.args) == 1 \
                and not expr.keywords:
            expr = expr.args[0]
        if not isinstance(expr, ast.Name) or expr.id in self.selves \
                or expr.id in self.aliases or expr.id in self.bound:
            return None
        return self.env.grows.get(expr.id)

    def filled(self, grows: Grows) -> bool | Unknown:
        """Whether the grow-only local holds something where it is read: yes once a
        definite growth site's guards all hold (the first pass of each loop around it), no
        when every site has a guard that cannot hold and nothing else may add to it."""
        if grows.initial:
            return True
        undecided: Unknown | None = None
        for site in grows.sites:
            runs = self._forgetting(site.rebound)._runs(site.guards)
            if runs is True:
                return True
            if runs is False:
                continue
            undecided = undecided or runs
        if undecided is None and not grows.maybe:
            return False
        why = undecided.why if undecided is not None else "another change may add to it"
        return Unknown(f"{grows.why}; whether it grows: {why}")

    def _runs(self, guards: tuple[GrowthGuard, ...]) -> bool | Unknown:
        """Whether a site under ``guards`` (outermost first) runs: every guard holds. A
        ``for`` whose variable a guard inside it reads is taken pass by pass when its items
        are known: the site runs once some pass holds every guard inside, and never when
        every pass fails one."""
        undecided: Unknown | None = None
        for k, guard in enumerate(guards):
            rows = self._rows(guard, guards[k + 1:])
            if rows is not None:
                passes = [self._binding(row)._runs(guards[k + 1:]) for row in rows]
                if all(p is False for p in passes):
                    return False  # no pass (or no item at all) runs it
                if undecided is None and True in passes:
                    return True
                return undecided or next((p for p in passes if isinstance(p, Unknown)),
                                         Unknown("an earlier guard is not decided"))
            state = self._guard(guard)
            if state is False:
                return False
            if isinstance(state, Unknown):
                undecided = undecided or state
        return True if undecided is None else undecided

    def _rows(self, guard: GrowthGuard, inner: tuple[GrowthGuard, ...]
              ) -> list[dict[str, Any]] | None:
        """The names each pass of a ``for`` guard binds, when a guard inside it reads one of
        them and its items are known values; else None (the guard is read by its length)."""
        if guard.kind != "for" or guard.target is None:
            return None
        names = _target_names(guard.target)
        if names is None or not any(isinstance(n, ast.Name) and n.id in names
                                    for g in inner for n in ast.walk(g.test)):
            return None
        items = self.items(guard.test)
        if isinstance(items, Unknown):
            return None
        rows = [_bind(guard.target, item) for item in items]
        return None if any(row is None for row in rows) else rows  # type: ignore[misc]

    def _binding(self, row: dict[str, Any]) -> _Context:
        """This context with the names of one loop pass bound to their values."""
        other = copy.copy(self)
        other.bound = {k: v for k, v in self.bound.items() if k not in row}
        other.aliases = {k: v for k, v in self.aliases.items() if k not in row}
        other.selves = frozenset(self.selves) - set(row)
        other.env = Env({**self.env.values, **row},
                        {k: v for k, v in self.env.unknown.items() if k not in row},
                        {k: v for k, v in self.env.grows.items() if k not in row})
        return other

    def items(self, expr: ast.expr) -> tuple[Any, ...] | Unknown:
        """The values iterating ``expr`` yields, in order, when known: a literal tuple or
        list, a known container, ``enumerate`` / ``reversed`` / ``list`` / ``tuple`` of
        those, ``.items()`` / ``.keys()`` / ``.values()`` of a known dict."""
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id in ("enumerate", "reversed", "list", "tuple") \
                and len(expr.args) == 1 and not expr.keywords:
            inner = self.items(expr.args[0])
            if isinstance(inner, Unknown):
                return inner
            if expr.func.id == "enumerate":
                return tuple(enumerate(inner))
            return tuple(reversed(inner)) if expr.func.id == "reversed" else inner
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and expr.func.attr in ("items", "keys", "values") and not expr.args \
                and not expr.keywords:
            holder = self.value(expr.func.value)
            if isinstance(holder, Unknown):
                return holder
            if isinstance(holder, dict):
                return tuple(getattr(holder, expr.func.attr)())
            return Unknown(f"`{_short(expr)}`: not a known dict")
        value = self.value(expr)
        if isinstance(value, Unknown):
            return value
        if isinstance(value, tuple | list | str | bytes | range):
            return tuple(value)
        if isinstance(value, dict):
            return tuple(value)
        return Unknown(f"`{_short(expr)}` has no known items")

    def _forgetting(self, names: frozenset[str]) -> _Context:
        """This context without what it knows of ``names`` through locals (their value where
        a growth site ran may differ from the one here)."""
        if not names or not (names & (set(self.bound) | set(self.aliases))):
            return self
        other = copy.copy(self)
        other.bound = {k: v for k, v in self.bound.items() if k not in names}
        other.aliases = {k: v for k, v in self.aliases.items() if k not in names}
        return other

    def _guard(self, guard: GrowthGuard) -> bool | Unknown:
        if guard.kind == "for":
            length = self.length(guard.test)
            return length if isinstance(length, Unknown) else length > 0
        truth = self.truth(guard.test)
        return truth if isinstance(truth, Unknown) else truth != guard.negated

    # -- truth -------------------------------------------------------------------------------
    def truth(self, expr: ast.expr) -> bool | Unknown:
        if (grows := self.grows(expr)) is not None and isinstance(expr, ast.Name):
            return self.filled(grows)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self.truth(expr.operand)
            return inner if isinstance(inner, Unknown) else not inner
        if isinstance(expr, ast.BoolOp):
            stop = isinstance(expr.op, ast.Or)  # or: any True decides; and: any False decides
            first: Unknown | None = None
            for value in expr.values:  # short-circuit: left to right
                got = self.truth(value)
                if isinstance(got, Unknown):
                    first = first or got
                elif got == stop:
                    return stop
            return first if first is not None else not stop
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
            left = self.value(expr.left)
            right = self.value(expr.comparators[0])
            for side in (left, right):
                if isinstance(side, Unknown):
                    return side
            return _compare(expr.ops[0], left, right, expr)
        value = self.value(expr)
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Something) and value.truthy is not None:
            return value.truthy
        if isinstance(value, types.SimpleNamespace):
            return True  # a namespace defines no __bool__/__len__
        if not isinstance(value, _SIMPLE):
            return Unknown(f"`{_short(expr)}` has no known truth value")
        return bool(value)

    # -- values ------------------------------------------------------------------------------
    def value(self, expr: ast.expr) -> Any:
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub | ast.UAdd):
            inner = self.value(expr.operand)  # -1, +2: a signed literal
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                return -inner if isinstance(expr.op, ast.USub) else inner
            return inner if isinstance(inner, Unknown) else Unknown(
                f"`{_short(expr)}` is computed at run time")
        if isinstance(expr, ast.Tuple | ast.List | ast.Set):
            if any(isinstance(e, ast.Starred) for e in expr.elts):
                return Unknown(f"`{_short(expr)}` unpacks a value")
            items = [self.value(e) for e in expr.elts]
            bad = next((i for i in items if isinstance(i, Unknown)), None)
            return bad if bad is not None else tuple(items)
        if isinstance(expr, ast.Call):
            return self.call(expr)
        if isinstance(expr, ast.NamedExpr):  # (x := self.limit) is not None
            return self.value(expr.value)
        if isinstance(expr, ast.IfExp):  # None if abort_all else self.states.get(rid)
            truth = self.truth(expr.test)
            if isinstance(truth, Unknown):
                return truth
            return self.value(expr.body if truth else expr.orelse)
        if isinstance(expr, ast.Subscript) and not isinstance(expr.slice, ast.Slice):
            holder, key = self.value(expr.value), self.value(expr.slice)
            for side in (holder, key):
                if isinstance(side, Unknown):
                    return side
            try:
                return holder[key]
            except (KeyError, IndexError, TypeError):
                return Unknown(f"`{_short(expr)}`: no such item in the known value")
        if isinstance(expr, ast.Name) and expr.id in self.bound and expr.id not in self.selves:
            return self.value(self.bound[expr.id])
        attrs: list[str] = []
        base: ast.expr = expr
        while isinstance(base, ast.Attribute):
            attrs.append(base.attr)
            base = base.value
        attrs.reverse()
        if not isinstance(base, ast.Name):
            return Unknown(f"`{_short(expr)}` is computed at run time")
        if base.id in self.selves:
            if not attrs:  # constants[""]: the stand-in itself, when the caller knows it
                return self.constants.get("", Unknown(f"`{base.id}` (the stand-in itself) is "
                                                      "not a constant"))
            return _lookup(attrs, self.constants)
        if base.id in self.aliases:
            return _lookup(self.aliases[base.id].split(".") + attrs, self.constants)
        if base.id in self.env:
            value = self.env.get(base.id)
            for attr in attrs:
                if isinstance(value, Unknown):
                    break
                holder = attributes(value)
                if holder is None or attr not in holder:
                    return Unknown(f"`{_short(expr)}`: `{base.id}` has no known `{attr}`")
                value = holder[attr]
            return value
        if attrs and attrs[-1].isupper() and (base.id[:1].isupper() or len(attrs) > 1):
            owner = attrs[-2] if len(attrs) > 1 else base.id
            return _Member(owner, attrs[-1])
        return Unknown(f"`{_short(expr)}` is not a known constant here")

    def call(self, expr: ast.Call) -> Any:
        name = expr.func.id if isinstance(expr.func, ast.Name) else ""
        if name == "len" and len(expr.args) == 1 and not expr.keywords:
            return self.length(expr.args[0])
        if name == "isinstance" and len(expr.args) == 2:
            value = self.value(expr.args[0])
            if isinstance(value, Unknown):
                return value
            kinds = _types(expr.args[1])
            if isinstance(value, Something) and value.kind == "namespace" \
                    and _class_ref(expr.args[1]) and "Namespace" not in ast.unparse(expr.args[1]):
                return False  # a SimpleNamespace is an instance of no other class
            if kinds is None or isinstance(value, _Member):
                return Unknown(f"`{_short(expr)}`: the type is not a builtin")
            if isinstance(value, enum.Enum):
                return Unknown(f"`{_short(expr)}`: an enum member")
            return isinstance(value, kinds)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
                and 1 <= len(expr.args) <= 2 and not expr.keywords:
            holder = self.value(expr.func.value)  # self.states.get(rid) on a known dict
            if isinstance(holder, dict):
                parts = [self.value(a) for a in expr.args]
                bad = next((p for p in parts if isinstance(p, Unknown)), None)
                if bad is not None:
                    return bad
                try:
                    return holder.get(parts[0], parts[1] if len(parts) == 2 else None)
                except TypeError:
                    return Unknown(f"`{_short(expr)}`: an unhashable key")
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _STR_METHODS \
                and not expr.keywords and not any(isinstance(a, ast.Starred) for a in expr.args):
            holder = self.value(expr.func.value)  # req.rid.startswith(recv_req.rid)
            if isinstance(holder, Unknown):
                return holder
            if isinstance(holder, str):
                parts = [self.value(a) for a in expr.args]
                bad = next((p for p in parts if isinstance(p, Unknown)), None)
                if bad is not None:
                    return bad
                if all(_plain_argument(p) for p in parts):
                    try:
                        return getattr(holder, expr.func.attr)(*parts)
                    except (TypeError, ValueError):  # it raises at run time: not decided
                        pass
                return Unknown(f"`{_short(expr)}`: arguments deskcheck cannot pass")
        if not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute):
            called = self.value(expr.func)  # `self.finished()` where finished = lambda: False
            if isinstance(called, Returns):
                return called.value
        return Unknown(f"`{_short(expr)}` is a call, computed at run time")

    def length(self, expr: ast.expr) -> int | Unknown:
        """The number of items ``expr`` yields when iterated, when known."""
        if isinstance(expr, ast.Tuple | ast.List | ast.Set) \
                and not any(isinstance(e, ast.Starred) for e in expr.elts):
            if isinstance(expr, ast.Set):
                value = self.value(expr)
                return len(set(value)) if not isinstance(value, Unknown) else value
            return len(expr.elts)
        if isinstance(expr, ast.Dict) and None not in expr.keys:
            return len(expr.keys)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            name = expr.func.id
            if name == "range" and 1 <= len(expr.args) <= 3 and not expr.keywords:
                bounds = [self.value(a) for a in expr.args]
                bad = next((b for b in bounds if isinstance(b, Unknown)), None)
                if bad is not None:
                    return bad
                if all(isinstance(b, int) for b in bounds):
                    try:
                        return len(range(*bounds))
                    except ValueError:
                        pass
                return Unknown(f"`{_short(expr)}`: bounds are not integers")
            if name in _LENGTH_WRAPPERS and len(expr.args) == 1 and not expr.keywords:
                return self.length(expr.args[0])
            if name == "zip" and expr.args and not any(k.arg == "strict" for k in expr.keywords):
                lengths = [self.length(a) for a in expr.args]
                bad = next((n for n in lengths if isinstance(n, Unknown)), None)
                return bad if bad is not None else min(lengths)  # type: ignore[type-var]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and expr.func.attr in ("items", "keys", "values") and not expr.args:
            return self.length(expr.func.value)
        value = self.value(expr)
        if isinstance(value, Unknown):
            return value
        if isinstance(value, str | bytes | tuple | list | set | frozenset | dict | range):
            return len(value)
        return Unknown(f"`{_short(expr)}` has no known length")

    # -- match -------------------------------------------------------------------------------
    def case(self) -> Decision:
        subject = self.value(self.cond.test)  # type: ignore[arg-type]
        if isinstance(subject, Unknown):
            return Decision(UNKNOWN, subject.why)
        for pattern, guarded in self.cond.earlier:
            matched = _matches(pattern, subject)
            if matched is None:
                return Decision(UNKNOWN, f"`case {ast.unparse(pattern)}` is not decided")
            if matched and not guarded:
                return Decision(DEAD)
            if matched:
                return Decision(UNKNOWN, f"the guard of `case {ast.unparse(pattern)}`")
        matched = _matches(self.cond.pattern, subject) if self.cond.pattern else None
        if matched is None:
            return Decision(UNKNOWN, f"`{self.cond.text}` is not decided statically")
        return Decision(LIVE if matched else DEAD)


def _plain_argument(value: Any) -> bool:
    """A literal a str method may be called with: a string, an int, None, or a tuple of
    strings (``startswith(("a", "b"))``)."""
    if isinstance(value, tuple):
        return all(isinstance(v, str) for v in value)
    return value is None or isinstance(value, str) or (
        isinstance(value, int) and not isinstance(value, bool))


def _target_names(target: ast.expr) -> set[str] | None:
    """The names a ``for`` target binds: a name or a (nested) tuple of names."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        names: set[str] = set()
        for elt in target.elts:
            inner = _target_names(elt)
            if inner is None:
                return None
            names |= inner
        return names
    return None


def _bind(target: ast.expr, value: Any) -> dict[str, Any] | None:
    """The names ``target`` binds to ``value`` (unpacked as Python would), or None when it
    cannot be unpacked here (an unknown or wrongly sized value)."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if not isinstance(target, ast.Tuple | ast.List) or not isinstance(value, tuple | list) \
            or len(value) != len(target.elts):
        return None
    out: dict[str, Any] = {}
    for elt, item in zip(target.elts, value, strict=True):
        inner = _bind(elt, item)
        if inner is None:
            return None
        out.update(inner)
    return out


def _matches(pattern: ast.pattern, subject: Any) -> bool | None:
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
        return True  # `case _` / `case name`
    if isinstance(pattern, ast.MatchAs):
        return _matches(pattern.pattern, subject)
    if isinstance(pattern, ast.MatchSingleton):
        return subject is pattern.value
    if isinstance(pattern, ast.MatchValue):
        value = _pattern_value(pattern.value)
        if value is None:
            return None
        return _equal(subject, value)
    if isinstance(pattern, ast.MatchOr):
        results = [_matches(p, subject) for p in pattern.patterns]
        if True in results:
            return True
        return None if None in results else False
    return None


def _pattern_value(expr: ast.expr) -> Any:
    if isinstance(expr, ast.Constant):
        return expr.value
    attrs: list[str] = []
    while isinstance(expr, ast.Attribute):
        attrs.append(expr.attr)
        expr = expr.value
    if attrs and isinstance(expr, ast.Name):
        return _Member(attrs[1] if len(attrs) > 1 else expr.id, attrs[0])
    return None


def _class_ref(expr: ast.expr) -> bool:
    """``Cls`` / ``mod.Cls`` / a tuple of them."""
    if isinstance(expr, ast.Tuple):
        return bool(expr.elts) and all(_class_ref(e) for e in expr.elts)
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _types(expr: ast.expr) -> type | tuple[type, ...] | None:
    if isinstance(expr, ast.Name) and expr.id in _BUILTIN_TYPES:
        return _BUILTIN_TYPES[expr.id]
    if isinstance(expr, ast.Tuple):
        found = [_types(e) for e in expr.elts]
        if any(f is None for f in found):
            return None
        flat: list[type] = []
        for f in found:
            flat += list(f) if isinstance(f, tuple) else [f]  # type: ignore[list-item]
        return tuple(flat)
    return None


def _compare(op: ast.cmpop, left: Any, right: Any, expr: ast.expr) -> bool | Unknown:
    undecided = Unknown(f"`{_short(expr)}` compares values deskcheck cannot equate")
    if isinstance(op, ast.Is | ast.IsNot):
        if isinstance(left, _Member) or isinstance(right, _Member):
            if left is None or right is None:  # an enum member is never None
                return isinstance(op, ast.IsNot)
            return undecided
        if isinstance(left, Something) or isinstance(right, Something):
            if left is right:  # one construction may build several objects: not decided
                return undecided
            return isinstance(op, ast.IsNot)  # different objects (or an object and None)
        same = left is right  # the stand-in's own values and singletons: identity is exact
        return same if isinstance(op, ast.Is) else not same
    if isinstance(op, ast.Eq | ast.NotEq):
        same = _equal(left, right)
        if same is None:
            return undecided
        return same if isinstance(op, ast.Eq) else not same
    if isinstance(op, ast.In | ast.NotIn):
        if isinstance(right, str | bytes) and isinstance(left, str | bytes):
            inside = left in right
        elif isinstance(right, dict | tuple | list | set | frozenset | range):
            found = [_equal(left, item) for item in right]
            if True in found:
                inside = True
            elif None in found:
                return undecided
            else:
                inside = False
        else:
            return undecided
        return inside if isinstance(op, ast.In) else not inside
    fn = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
          ast.GtE: operator.ge}.get(type(op))
    if fn is not None and isinstance(left, int | float) and isinstance(right, int | float):
        return bool(fn(left, right))
    return undecided


def _equal(left: Any, right: Any) -> bool | None:
    if isinstance(left, Something) or isinstance(right, Something):
        return False if left is None or right is None else None
    if isinstance(right, _Member) and not isinstance(left, _Member):
        left, right = right, left
    if isinstance(left, _Member):
        if isinstance(right, enum.Enum):
            return type(right).__name__ == left.owner and right.name == left.name
        if isinstance(right, _Member):
            return left == right
        if right is None or isinstance(right, bool | int | float | str | bytes):
            return False if right is None else None
        return None
    if isinstance(left, _SIMPLE + (enum.Enum,)) and isinstance(right, _SIMPLE + (enum.Enum,)):
        return left == right
    return None


def _lookup(attrs: list[str], constants: Mapping[str, Any]) -> Any:
    dotted = ".".join(attrs)
    if dotted in constants:
        return constants[dotted]
    if attrs[0] not in constants:
        return Unknown(f"`self.{attrs[0]}` is not a known constant of the stand-in")
    value = constants[attrs[0]]
    for i, attr in enumerate(attrs[1:], start=1):
        holder = attributes(value)
        if holder is None or attr not in holder:
            return Unknown(f"`self.{'.'.join(attrs[:i + 1])}` is not a known constant of the "
                           "stand-in")
        value = holder[attr]
    return value


def _short(node: ast.AST, limit: int = 50) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
