"""Call-site constants: the values a call passes, bound to the callee's parameters.

Three providers, each computed once per parsed node and asked for on demand:

- :func:`function_constants` — what one ``def`` knows by itself: its parameters, their literal
  defaults, the parameters its body rebinds, and the locals bound exactly once to a literal (a
  list, dict or set literal only while nothing changes it: ``changed`` says where it does).
- :func:`call_args` — the values one call passes (literal arguments, names the caller's
  :class:`Env` knows), each unknown value saying why.
- :func:`~deskcheck.static._binding.bind` (in ``_binding``) — a call's values on the callee's
  parameters (defaults filled in), as the callee's :class:`Env`; ``signature_problems`` says
  where the call no longer fits.

An :class:`Env` maps a local name to a value, or to :class:`Unknown` with the reason (which
value, from where). Nothing is imported; values are Python literals (and tuples of them).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from deskcheck.static._growth import Grows, grow_only

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


class Unknown:
    """A value not known statically; ``why`` names it and where it came from."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why

    def __repr__(self) -> str:
        return f"Unknown({self.why!r})"


@dataclass(frozen=True)
class Returns:
    """A callable that always returns ``value`` (``lambda: False`` set on a stand-in): a call
    of it in a condition is decided."""

    value: Any


@dataclass(frozen=True)
class Something:
    """An object known to exist but not by value (a ``SimpleNamespace``, a ``Mock``, an
    instance a constructor returns): never ``None``; truthy when ``truthy`` is True, else its
    truth is unknown (a class may define ``__len__``/``__bool__``)."""

    truthy: bool | None = None
    kind: str = ""  # "namespace": a SimpleNamespace, an instance of no production class
    # the attributes known by value (a test class's __init__ setting literals): (name, value)
    fields: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    def __repr__(self) -> str:  # shown in `standins --json` values: no empty `fields=()`
        known = f", fields={self.fields!r}" if self.fields else ""
        return f"Something(truthy={self.truthy!r}, kind={self.kind!r}{known})"


def attributes(value: Any) -> Mapping[str, Any] | None:
    """The attributes of a known value that a condition may read by name: a
    :class:`Something`'s known fields, a namespace's ``__dict__``; None for other values."""
    if isinstance(value, Something):
        return dict(value.fields)
    holder = getattr(value, "__dict__", None)
    return holder if isinstance(holder, dict) else None


def is_known(value: Any) -> bool:
    return not isinstance(value, Unknown)


@dataclass(frozen=True)
class Env:
    """Local names with known values (``values``) and the ones known to be unknown, with why
    (``unknown``). A name in neither is not a parameter or literal local of the function."""

    values: Mapping[str, Any] = field(default_factory=dict)
    unknown: Mapping[str, str] = field(default_factory=dict)
    # grow-only locals (``_growth``): unknown as values, decided only as empty or not
    grows: Mapping[str, Grows] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        return Unknown(self.unknown.get(name, f"`{name}` is computed at run time"))

    def __contains__(self, name: str) -> bool:
        return name in self.values or name in self.unknown

    def key(self) -> tuple:
        """A hashable summary (two envs with the same key decide alike)."""
        return tuple(sorted((k, repr(v)) for k, v in self.values.items()))

    def with_locals(self, facts: FunctionConstants) -> Env:
        """This env (a function's bound parameters) with the parameters its body rebinds
        dropped and its literal locals added."""
        values = {k: v for k, v in self.values.items() if k not in facts.rebound}
        unknown = {k: v for k, v in self.unknown.items() if k not in facts.rebound}
        for name in facts.rebound & set(self.values):
            unknown[name] = f"`{name}` is reassigned in the body"
        values.update(facts.locals)
        for name, why in facts.changed.items():
            unknown.setdefault(name, why)
        return Env(values, unknown, dict(facts.grows))


EMPTY = Env()


@dataclass(frozen=True)
class CallArgs:
    """What one call passes: positional values, keyword values, whether ``*args`` /
    ``**kwargs`` hide more, and the call's ``file:line``."""

    positional: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()
    star: bool = False
    double_star: bool = False
    where: str = ""

    def env_key(self) -> tuple:
        return (tuple(repr(v) for v in self.positional),
                tuple((k, repr(v)) for k, v in self.keywords), self.star, self.double_star)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # positional-only | positional | keyword-only
    default: Any = None  # the literal default, Unknown when not a literal
    has_default: bool = False


@dataclass(frozen=True)
class FunctionConstants:
    """What a ``def`` knows by itself (see the module docstring)."""

    params: tuple[Param, ...]
    vararg: bool
    kwarg: bool
    rebound: frozenset[str]
    locals: Mapping[str, Any]
    # a list, dict or set literal local changed after it is bound: why it is not known
    changed: Mapping[str, str] = field(default_factory=dict)
    # of those, the ones only ever added to: whether they are empty follows where they grow
    grows: Mapping[str, Grows] = field(default_factory=dict)


_FUNCTIONS: dict[int, tuple[FunctionNode, FunctionConstants]] = {}
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def literal(expr: ast.expr | None, env: Env = EMPTY, where: str = "") -> Any:
    """The value of ``expr`` when it is a literal (numbers, strings, ``None``, ``True``,
    tuples/lists/sets/dicts of literals, ``-n``, ``a + b`` of known numbers or strings) or a
    name ``env`` knows; :class:`Unknown` otherwise."""
    at = f" at {where}" if where else ""
    if expr is None:
        return Unknown(f"no value{at}")
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Lambda) and not (expr.args.args or expr.args.posonlyargs
                                             or expr.args.vararg or expr.args.kwonlyargs):
        inner = literal(expr.body, env, where)
        return inner if isinstance(inner, Unknown) else Returns(inner)
    if isinstance(expr, ast.Name):
        if expr.id in env:
            return env.get(expr.id)
        return Unknown(f"`{expr.id}` is not a literal{at}")
    if isinstance(expr, ast.Tuple | ast.List | ast.Set):
        if any(isinstance(e, ast.Starred) for e in expr.elts):
            return Unknown(f"`{_short(expr)}` unpacks a value{at}")
        items = [literal(e, env, where) for e in expr.elts]
        bad = next((i for i in items if isinstance(i, Unknown)), None)
        if bad is not None:
            return bad
        kind = {ast.Tuple: tuple, ast.List: list, ast.Set: frozenset}[type(expr)]
        try:
            return kind(items)
        except TypeError:
            return Unknown(f"`{_short(expr)}` holds unhashable items{at}")
    if isinstance(expr, ast.Dict):
        if any(k is None for k in expr.keys):
            return Unknown(f"`{_short(expr)}` unpacks a mapping{at}")
        keys = [literal(k, env, where) for k in expr.keys]
        vals = [literal(v, env, where) for v in expr.values]
        bad = next((i for i in keys + vals if isinstance(i, Unknown)), None)
        if bad is not None:
            return bad
        try:
            return dict(zip(keys, vals, strict=True))
        except TypeError:
            return Unknown(f"`{_short(expr)}` has unhashable keys{at}")
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub | ast.Not):
        inner = literal(expr.operand, env, where)
        if isinstance(inner, Unknown):
            return inner
        if isinstance(expr.op, ast.Not):
            return not inner
        return -inner if isinstance(inner, int | float) and not isinstance(inner, bool) \
            else Unknown(f"`{_short(expr)}`{at}")
    if isinstance(expr, ast.BinOp) and type(expr.op) in _BINOPS:
        left, right = literal(expr.left, env, where), literal(expr.right, env, where)
        for side in (left, right):
            if isinstance(side, Unknown):
                return side
        if isinstance(left, int | float | str) and isinstance(right, int | float | str):
            try:
                return _BINOPS[type(expr.op)](left, right)
            except (TypeError, ZeroDivisionError, ValueError):
                pass
        return Unknown(f"`{_short(expr)}` is computed{at}")
    return Unknown(f"`{_short(expr)}` is computed at run time{at}")


def call_args(call: ast.Call, env: Env = EMPTY, where: str = "", *,
              skip: int = 0) -> CallArgs:
    """The values ``call`` passes, evaluated in the caller's ``env`` (``skip``: leading
    positional arguments that are not the callee's, e.g. the stand-in of
    ``Cls.method(obj, ...)``)."""
    positional: list[Any] = []
    star = False
    for arg in call.args[skip:]:
        if isinstance(arg, ast.Starred):
            star = True
            break
        positional.append(literal(arg, env, where))
    keywords: list[tuple[str, Any]] = []
    double = False
    for kw in call.keywords:
        if kw.arg is None:
            double = True
            continue
        keywords.append((kw.arg, literal(kw.value, env, where)))
    return CallArgs(tuple(positional), tuple(keywords), star, double, where)


def function_constants(node: FunctionNode) -> FunctionConstants:
    """The :class:`FunctionConstants` of ``node``, cached per parsed node."""
    cached = _FUNCTIONS.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    args = node.args
    params: list[Param] = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = "positional-only" if i < len(args.posonlyargs) else "positional"
        params.append(Param(arg.arg, kind, literal(default) if default is not None else None,
                            default is not None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(Param(arg.arg, "keyword-only",
                            literal(default) if default is not None else None,
                            default is not None))
    stores: dict[str, list[ast.AST]] = {}
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    nodes = list(_walk_own(body))
    simple = {id(n.targets[0]) for n in nodes if isinstance(n, ast.Assign)
              and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    simple |= {id(n.target) for n in nodes if isinstance(n, ast.AnnAssign)}
    for sub in nodes:
        if id(sub) in simple:
            continue  # counted with its Assign, which holds the value
        for name, value in _stored(sub):
            stores.setdefault(name, []).append(value)
    names = {p.name for p in params} | {a.arg for a in (args.vararg, args.kwarg) if a}
    rebound = frozenset(n for n in stores if n in names)
    local_values: dict[str, Any] = {}
    changed: dict[str, str] = {}
    grows: dict[str, Grows] = {}
    for name, values in stores.items():
        if name in names or len(values) != 1 or not isinstance(values[0], ast.expr):
            continue
        value = literal(values[0])
        if isinstance(value, Unknown):
            continue
        mutable = isinstance(values[0], ast.List | ast.Dict | ast.Set)
        loads, parents = _loads(name, body) if mutable else ([], {})
        change = _changed(loads, parents) if mutable else None
        if change is None:
            local_values[name] = value
        else:
            changed[name] = why = (f"`{name}` = {_short(values[0])} changes after it is bound "
                                   f"(`{_short(change)}` at line {change.lineno})")
            kind = "list" if isinstance(value, list) else "dict" if isinstance(value, dict) \
                else "set"
            found = grow_only(name, kind, len(value), loads, parents, _only_read, why, stores)
            if found is not None:
                grows[name] = found
    facts = FunctionConstants(tuple(params), args.vararg is not None, args.kwarg is not None,
                              rebound, local_values, changed, grows)
    _FUNCTIONS[id(node)] = (node, facts)  # the node is kept: its id is never reused
    return facts


# where a load of a name only reads it: ``for x in n``, ``len(n)``, ``n[0]``, ``x in n``
_READERS = frozenset({"len", "bool", "reversed", "sorted", "list", "tuple", "set", "frozenset",
                      "enumerate", "any", "all", "sum", "min", "max", "iter", "print"})


def _loads(name: str, body: Iterable[ast.AST]) -> tuple[list[ast.Name], dict[int, ast.AST]]:
    """Every load of ``name`` in ``body`` (nested defs included: a closure can change it), in
    source order, and each node's parent."""
    parents: dict[int, ast.AST] = {}
    loads: list[ast.Name] = []
    for top in body:
        for node in ast.walk(top):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                loads.append(node)
    return sorted(loads, key=lambda n: (n.lineno, n.col_offset)), parents


def _changed(loads: list[ast.Name], parents: dict[int, ast.AST]) -> ast.AST | None:
    """Where a mutable literal may change after it is bound (None: never): a load of it
    outside a plain read (a method call such as ``.append``, an item store, an argument to a
    function that is not a known reader, an alias), shown as the expression around that
    load."""
    for load in loads:
        if not _only_read(load, parents):
            return _around(load, parents)
    return None


def _around(load: ast.Name, parents: dict[int, ast.AST]) -> ast.AST:
    """The expression that changes or hands on ``load`` (``to_del.append(i)``), else the
    statement holding it."""
    node: ast.AST = load
    while isinstance(parents.get(id(node)), ast.expr):
        node = parents[id(node)]
    if node is load or isinstance(getattr(node, "ctx", None), ast.Store | ast.Del):
        return parents.get(id(node), node)  # `other = to_del`, `to_del[0] = x`: the statement
    return node


def _only_read(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return parent.iter is node
    if isinstance(parent, ast.Subscript):
        return parent.value is node and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Call):
        return node in parent.args and isinstance(parent.func, ast.Name) \
            and parent.func.id in _READERS
    if isinstance(parent, ast.IfExp | ast.If | ast.While | ast.Assert):
        return parent.test is node
    if isinstance(parent, ast.BoolOp):  # `n or []` hands the list on, `if n and x` does not
        return _only_read(parent, parents) or _truth_test(parent, parents)
    return isinstance(parent, ast.Compare | ast.UnaryOp | ast.FormattedValue)


def _truth_test(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.BoolOp):
        return _truth_test(parent, parents)
    return isinstance(parent, ast.UnaryOp) or isinstance(
        parent, ast.IfExp | ast.If | ast.While | ast.Assert) and parent.test is node


def _walk_own(body: Iterable[ast.AST]):
    """Nodes of a body, not entering nested defs, lambdas or classes."""
    todo = list(body)
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                              | ast.ClassDef):
                todo.append(child)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield from _named(child)


def _named(node: ast.AST):
    """A nested def/class binds its name in the enclosing function."""
    yield ast.Name(id=node.name, ctx=ast.Store())  # type: ignore[attr-defined]


def _stored(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """(name, assigned value or the storing node) for each plain name ``node`` binds."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            and isinstance(node.targets[0], ast.Name):
        return [(node.targets[0].id, node.value)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [(node.target.id, node.value if node.value is not None else node)]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [(node.id, node)]
    if isinstance(node, ast.alias):
        return [((node.asname or node.name).split(".")[0], node)]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [(node.name, node)]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return [(n, node) for n in node.names]
    if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        return [(node.name, node)]
    return []


def _short(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clear_cache() -> None:
    _FUNCTIONS.clear()
