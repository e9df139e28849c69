"""What the condition of a path says about the value read at its end (mechanism 1, refined).

A definition reaches a read under guards (``facts``). Each guard, read on the side the path
takes, is decomposed into what it proves:

- *single-rank dimensions*: ``tp_size == 1`` proves the TP group has one rank there, so a
  rank-local value escaping by that path cannot make ranks disagree (TRIVIAL);
- *empty*: ``not x``, ``x is None`` or ``len(x) == 0`` on the value read proves it carries
  nothing there (a falsy builtin value is the same constant on every rank).

Conjunctions add what their parts prove; a disjunction proves only what every disjunct that
does not empty the value proves (``not flags or world_size == 1``: the flags escape only
where the group has one rank). A test held in a name is followed to what binds it: a
local's every assignment, a parameter's argument at the call site (inside a call-site
summary: a marker resolved by :meth:`PathConditions._bind_marks` when the summary is bound)
or at every caller. A mixin of :class:`~deskcheck.uniformity.trace.Tracer`."""

from __future__ import annotations

import ast
from typing import Any

from deskcheck.static import holding_guards
from deskcheck.uniformity.leaves import Leaf, default_of
from deskcheck.uniformity.reach import Ctx, argument_for
from deskcheck.uniformity.rules import single_rank_dim

EMPTY = "empty"  # the path proves the value read is falsy: it carries no source
_MARK = "\x00arg:"  # a summary's single-rank test held in a parameter, bound at the call
_GROUP = "\x00group:"  # a summary's agreed dimension: the group a parameter holds
_DEPTH = 4  # how many names (local -> parameter -> argument ...) a test is followed through
_GUARDS = ("if", "exit")

Proof = frozenset | str | None  # dims proven single-rank, EMPTY, or None (nothing proven)


class PathConditions:
    """Single-rank dimensions and emptiness proven by the guards of a path."""

    def _path_marks(self, facts: Any, d: Any, ctx: Ctx, held: tuple = ()
                    ) -> tuple[frozenset, bool]:
        """(dims single-rank on this path, whether the value read is proven empty there);
        ``held``: the early exits the read is past that hold there (``held_exits``)."""
        dims: set[str] = set()
        for g in (*holding_guards(facts), *held):
            if g.kind not in _GUARDS or g.test is None:
                continue
            proof = self._prove(g.test, g.negated, ctx, d, 0)
            if proof == EMPTY:
                return frozenset(), True
            if proof:
                dims |= proof
        return frozenset(dims), False

    def _ruled_out(self, facts: Any, d: Any, ctx: Ctx, held: tuple = ()) -> bool:
        """Whether a guard of the path or an early exit the read is past that holds there
        (``held``: ``assert x is not None``, ``if x is None: return``) holds only where
        ``x`` does not hold the constant definition ``d`` gave it: ``d`` cannot be what the
        read sees."""
        return any(g.kind in _GUARDS and g.test is not None
                   and _rules_out(g.test, g.negated, ctx, d)
                   for g in (*holding_guards(facts), *held))

    def _prove(self, test: ast.expr, negated: bool, ctx: Ctx, d: Any, depth: int) -> Proof:
        """What ``test`` (its negation if ``negated``) proves, for the value of definition
        ``d`` (None: nothing is read, only single-rank dimensions count)."""
        cache = self.__dict__.setdefault("_proofs", {})
        key = (id(test), negated, ctx.key, id(d), depth)
        if key in cache:
            return cache[key]
        cache[key] = None  # a test that reaches itself through names proves nothing
        found = cache[key] = self._prove_uncached(test, negated, ctx, d, depth)
        return found

    def _prove_uncached(self, test: ast.expr, negated: bool, ctx: Ctx, d: Any,
                        depth: int) -> Proof:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._prove(test.operand, not negated, ctx, d, depth)
        if isinstance(test, ast.BoolOp):
            parts = [self._prove(v, negated, ctx, d, depth) for v in test.values]
            if isinstance(test.op, ast.And) != negated:  # every part holds
                if EMPTY in parts:
                    return EMPTY
                return frozenset().union(*(p for p in parts if p)) or None
            return _either(parts)  # one of the parts holds
        if d is not None and _empties(test, negated, ctx, d):
            return EMPTY
        dim = single_rank_dim(test, negated,
                              lambda group: self._group_dim_at(ctx, ast.unparse(group)))
        if dim:
            return frozenset({dim})
        if isinstance(test, ast.Name) and depth < _DEPTH:
            return self._prove_name(test, negated, ctx, depth + 1)
        return None

    def _prove_name(self, test: ast.Name, negated: bool, ctx: Ctx, depth: int) -> Proof:
        """A test held in a name: what every definition reaching it proves."""
        reaching = ctx.flow.reaching.get(id(test), ())
        if not reaching:
            return None
        proofs: list[Proof] = []
        for defn, _facts in reaching:
            if defn.kind == "param":
                proofs.append(self._prove_param(defn.name, negated, ctx, depth))
            elif defn.kind == "assign" and not defn.unpacked and defn.value is not None:
                proofs.append(self._prove(defn.value, negated, ctx, None, depth))
            else:
                return None
        return _all_of(proofs)

    def _prove_param(self, name: str, negated: bool, ctx: Ctx, depth: int) -> Proof:
        fn = ctx.fn
        if ctx.summary:  # bound where the summary is used: one call site
            return frozenset({f"{_MARK}{name}:{int(negated)}"})
        callers = self.reach.callers.get(fn.key, [])
        if not callers:
            return None
        proofs: list[Proof] = []
        for caller, call in callers:
            arg = argument_for(fn, call, name)
            if arg is None:
                default = default_of(fn.node, name)
                proofs.append(None if default is None
                              else self._prove(default, negated, ctx, None, depth))
            else:
                proofs.append(self._prove(arg, negated, caller, None, depth))
        return _all_of(proofs)

    def _bind_marks(self, leaves: list[Leaf], callee: Ctx, call: ast.Call, ctx: Ctx
                    ) -> list[Leaf]:
        """A summary's leaves at one call: each parameter marker replaced by what this call's
        argument for it proves (nothing, if it proves nothing)."""
        out: list[Leaf] = []
        for leaf in leaves:
            if not leaf.single and not leaf.dim:  # most sources: nothing to bind
                out.append(leaf)
                continue
            if leaf.dim.startswith(_GROUP):
                dim = self._bind_group(leaf.dim, callee, call, ctx)
                reason = f"rank id of the {dim} group" if leaf.reason.startswith(
                    "rank id of the group passed as ") and not dim.startswith("\x00") \
                    else leaf.reason
                leaf = leaf._replace(dim=dim, reason=reason)
            groups = [m for m in leaf.single if m.startswith(_GROUP)]
            if groups:  # `get_world_size(group) == 1` on a group held in a parameter
                leaf = leaf._replace(single=frozenset(
                    {m for m in leaf.single if m not in groups}
                    | {self._bind_group(m, callee, call, ctx) for m in groups}))
            marks = [m for m in leaf.single if m.startswith(_MARK)]
            if not marks:
                out.append(leaf)
                continue
            single = set(leaf.single) - set(marks)
            for mark in marks:
                name, _sep, flag = mark.removeprefix(_MARK).rpartition(":")
                arg, where = argument_for(callee.fn, call, name), ctx
                if arg is None:
                    arg, where = default_of(callee.fn.node, name), callee
                proof = self._prove(arg, flag == "1", where, None, 0) if arg is not None else None
                if proof and proof != EMPTY:
                    single |= proof
            out.append(leaf._replace(single=frozenset(single)))
        return out


    def _bind_group(self, mark: str, callee: Ctx, call: ast.Call, ctx: Ctx) -> str:
        """A summary's group marker at one call: the dimension of the group it passes (in a
        summary of its own, a parameter passed on stays a marker, for that call's caller)."""
        name = mark.removeprefix(_GROUP)
        arg, where = argument_for(callee.fn, call, name), ctx  # self: the object called on
        if arg is None:
            arg, where = default_of(callee.fn.node, name), callee
        if arg is None:
            return self._group_dim(callee, name)  # not passed, no default: every caller's
        return self._group_dim_at(where, ast.unparse(arg))


def group_mark(param: str) -> str:
    """The dimension of a group held in parameter ``param`` of a call-site summary."""
    return f"{_GROUP}{param}"


def _either(parts: list[Proof]) -> Proof:
    """One of the parts holds: what every part that does not empty the value proves."""
    kept = [p for p in parts if p != EMPTY]
    if not kept:
        return EMPTY
    if any(not p for p in kept):
        return None
    common = frozenset.intersection(*kept)
    return common or None


def _all_of(proofs: list[Proof]) -> Proof:
    """Whichever of the proofs holds (definitions, callers): what they all prove."""
    if not proofs or any(not p or p == EMPTY for p in proofs):
        return None
    common = frozenset.intersection(*proofs)
    return common or None


def _rules_out(test: ast.expr, negated: bool, ctx: Ctx, d: Any) -> bool:
    """Does ``test`` (negated if ``negated``) hold only where the name it tests does not hold
    ``d``'s constant: ``x is not None`` / ``x`` for ``x = None`` (or ``x = 0``), ``x is
    None`` / ``not x`` for ``x = 3``; a conjunction where one part does."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _rules_out(test.operand, not negated, ctx, d)
    if isinstance(test, ast.BoolOp):  # every part holds: any one may rule it out
        every = isinstance(test.op, ast.And) != negated
        return every and any(_rules_out(v, negated, ctx, d) for v in test.values)
    if d.kind != "assign" or d.unpacked or not isinstance(d.value, ast.Constant):
        return False
    said = _claim(test, negated, ctx)
    if said is None or not _reaching(said[0], ctx, d, alone=False):
        return False
    value = d.value.value
    return {_TRUTHY: not value, _FALSY: bool(value),
            _NONE: value is not None, _NOT_NONE: value is None}.get(said[1], False)


def _empties(test: ast.expr, negated: bool, ctx: Ctx, d: Any) -> bool:
    """Does ``test`` (negated if ``negated``) prove the value of definition ``d`` falsy:
    ``not x``, ``x is None``, ``len(x) == 0`` (``x`` read from ``d`` alone)?"""
    said = _claim(test, negated, ctx)
    return said is not None and said[1] in (_FALSY, _NONE, _NO_LENGTH) \
        and _reaching(said[0], ctx, d, alone=True)


_TRUTHY, _FALSY, _NONE, _NOT_NONE = "truthy", "falsy", "none", "not none"
_NO_LENGTH, _LENGTH = "len 0", "len > 0"  # ``len(x) == 0`` / ``len(x) > 0``


def _claim(test: ast.expr, negated: bool, ctx: Ctx) -> tuple[ast.Name, str] | None:
    """What ``test`` (negated if ``negated``) says of the one name it tests, if it is one of
    ``x``, ``x is None``, ``x is not None``, ``len(x) <op> n`` (``len`` not rebound here):
    ``(x, truthy | falsy | none | not none | len 0 | len > 0)``."""
    if isinstance(test, ast.Name):
        return test, _FALSY if negated else _TRUTHY
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if not isinstance(right, ast.Constant):
        return None
    if right.value is None and isinstance(left, ast.Name) and isinstance(op, ast.Is | ast.IsNot):
        return left, _NONE if isinstance(op, ast.Is) != negated else _NOT_NONE
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name)
            and left.func.id == "len" and len(left.args) == 1 and not left.keywords
            and isinstance(left.args[0], ast.Name) and type(right.value) is int
            and not ctx.flow.reaching.get(id(left.func))):
        return None
    n = right.value
    zero = {ast.Eq: n == 0, ast.LtE: n == 0, ast.Lt: n == 1}.get(type(op), False)
    nonzero = {ast.NotEq: n == 0, ast.Gt: n == 0, ast.GtE: n == 1}.get(type(op), False)
    if zero or nonzero:
        return left.args[0], _NO_LENGTH if zero != negated else _LENGTH
    return None


def _reaching(name: ast.Name, ctx: Ctx, d: Any, *, alone: bool) -> bool:
    """Is ``name`` (a read in a test) the value of definition ``d``: of ``d`` and no other
    definition (``alone``), or of ``d`` among others?"""
    reaching = ctx.flow.reaching.get(id(name), ())
    if alone:
        return len(reaching) == 1 and reaching[0][0] is d
    return any(r is d for r, _f in reaching)
