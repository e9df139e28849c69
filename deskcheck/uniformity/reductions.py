"""In-place reductions and the paths they cover: a local reduced by a torch collective or by
a wrapper that reduces its parameter (on every way through it), a field buffer a collective
writes in place, and the proofs that a skipped reduction's group has one rank. A mixin of
:class:`~deskcheck.uniformity.trace.Tracer` (which supplies ``resolver``, ``_fn_ctx``,
``_group_dim``, ``_group_dim_at`` and ``_prove``).

One walk (``ways_through``) answers, for a block of statements, how each way out of it is
left and whether it ran a reduction first: the read side asks it of an ``if``'s arms (a
reduction in each arm, or an arm that leaves), the wrapper side of a function body (a
reduction before every return and the end)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from deskcheck.static import subnodes
from deskcheck.uniformity.buffers import (
    dominates,
    enclosing_blocks,
    follows_every_run,
    self_chain,
    written_between,
)
from deskcheck.uniformity.collectives import (
    classify_call,
    inplace_output,
    written_local,
)
from deskcheck.uniformity.leaves import Leaf, param_group
from deskcheck.uniformity.paths import EMPTY, group_mark
from deskcheck.uniformity.reach import Ctx, argument_for, is_dead

Reduction = tuple  # (call, dim, how): a call that reduces a local in place over a group

_SKIPPING = ("if", "exit")  # guards whose failing path skips a reduction, not a loop's
LEAVES = "leaves"  # no way falls out of the block: each raises, returns or jumps
MIXED = "mixed"  # every way falling out ran a reduction, not all over one group


@dataclass(frozen=True)
class Ways:
    """How a block of statements is left (``ways_through``)."""

    falls: Any  # the reduction each way falling out ran first, LEAVES, MIXED, or None: a
    # way falls out without one
    returns: bool  # every ``return`` ran a reduction first
    jumps: bool  # every ``break`` / ``continue`` ran a reduction first


class Reductions:
    """In-place reductions of locals and field buffers, for the input-set walk."""

    def _inplace_agreed(self, e: ast.Name, ctx: Ctx
                        ) -> tuple[list[Leaf], frozenset, dict | None] | None:
        """``dist.all_reduce(x, group=g)`` (or a wrapper that reduces its parameter in place,
        ``self._all_reduce(x, op)``) on the paths from ``x``'s definitions to this read:
        (agreed leaves, dims, covered). ``covered`` None: a reduction runs on every path from
        each definition, the read is agreed; else the definitions (-> their agreed leaf) a
        reduction follows on every path, the others reaching the read with their own value.
        ``dims``: a reduction skipped only where a group has one rank (``if tp_size > 1:
        all_reduce(x)``) makes the definitions' own values reach on that path only. None:
        some path from each definition skips every reduction."""
        reaching = tuple((d, f) for d, f in ctx.flow.reaching.get(id(e), ())
                         if not is_dead(d.guards, ctx.consts))
        first_def = min((d.line for d, _f in reaching), default=0)
        found = [(call, dim, how) for name, call, dim, how in self._inplace_calls(ctx)
                 if name == e.id and first_def <= call.lineno <= e.lineno
                 and not is_dead(ctx.flow.guards.get(id(call), ()), ctx.consts)]
        if not found:
            return None
        blocks = self._blocks_of(ctx.fn.node)
        covering = _covering(found, e, reaching, ctx, blocks)
        if covering is not None:
            leaf = self._reduced_leaf(covering, found, e, reaching, ctx)
            skips = self._wrapper_single.get(id(covering[0]))
            if skips:  # the wrapper skips it where a group has one rank
                return [leaf], skips, {}
            return [leaf], frozenset(), None
        covered: dict = {}
        for d, facts in reaching:  # one definition at a time
            own = _covering(found, e, ((d, facts),), ctx, blocks)
            if own is not None and id(own[0]) not in self._wrapper_single:
                covered[d] = self._reduced_leaf(own, found, e, ((d, facts),), ctx)
        if covered:
            return [], frozenset(), covered
        single = self._skipped_where_single(found, e, reaching, ctx)
        if single is None:
            return None
        return [self._reduced_leaf(single[0], found, e, reaching, ctx)], single[1], {}

    def _reduced_leaf(self, covering: tuple[ast.Call, str, str], found: list, e: ast.Name,
                      reaching: tuple, ctx: Ctx) -> Leaf:
        """The agreed source an in-place reduction makes of ``e``: over its group, or over
        each group it is reduced over again, on every path from each definition (``covers``)."""
        call, dim, how = covering
        kind = classify_call(call, self.reach.config, "torch.distributed", assumed=True)
        group = param_group(ctx.fn, kind[1], ctx.flow) if kind and not ctx.summary else ""
        then = [(c, d, h) for c, d, h in found if c is not call and d != dim
                and (c.lineno, c.col_offset) > (call.lineno, call.col_offset)
                and _after_every(c, reaching, ctx)]
        dims = sorted({dim, *(d for _c, d, _h in then)})
        if len(dims) > 1 and not any(d.startswith(group_mark("")) or "|" in d for d in dims):
            dim, how, group = "+".join(dims), " then ".join([how, *(h for *_x, h in then)]), ""
        return Leaf(e.id, "agreed", f"reduced in place by {how}", dim,
                    (f"{ctx.fn.file}:{call.lineno} {ast.unparse(call.func)}({e.id}, ...)",),
                    group=group)

    def _skipped_where_single(self, found: list[tuple[ast.Call, str, str]], read: ast.Name,
                              reaching: tuple, ctx: Ctx
                              ) -> tuple[tuple[ast.Call, str, str], frozenset] | None:
        """A reduction after every definition, before the read, that runs whenever each
        definition does except under tests whose failing proves a group single-rank or
        absent (``if self.tp_size > 1:``, ``_skip_proof``): it and the dimensions
        single-rank on the path skipping it."""
        for entry in found:
            call = entry[0]
            guards = set(ctx.flow.guards.get(id(call), ()))
            if not reaching or not _ends_before(call, read):
                continue
            kind = classify_call(call, self.reach.config, "torch.distributed", assumed=True)
            group = kind[1] if kind is not None else ""
            single: frozenset | None = None
            for d, _f in reaching:
                extra = guards - set(d.guards)
                if d.line >= call.lineno or not set(d.guards) <= guards or not extra \
                        or any(g.kind not in _SKIPPING or g.test is None for g in extra):
                    single = None
                    break
                for g in extra:
                    proof = self._skip_proof(g.test, g.negated, ctx, group)
                    if not proof:
                        single = None
                        break
                    single = proof if single is None else single & proof
                if not single:
                    single = None
                    break
            if single:
                return entry, single
        return None

    def _inplace_calls(self, ctx: Ctx) -> list[tuple[str, ast.Call, str, str]]:
        """(local name, call, dim, how) for every call in the function that reduces a local
        in place: a torch collective's output argument, or a wrapper's in-place parameter."""
        key = (id(ctx.fn.node), ctx.fn.model.qualname if ctx.fn.model else "", ctx.summary)
        found = self._inplace.get(key)
        if found is not None:
            return found
        self._inplace[key] = []
        out: list[tuple[str, ast.Call, str, str]] = []
        for call in ctx.flow.calls:
            target = written_local(inplace_output(call))
            kind = classify_call(call, self.reach.config, "torch.distributed", assumed=True)
            if target is not None and kind is not None and kind[0] == "collective":
                out.append((target.id, call, self._group_dim_at(ctx, kind[1]),
                            f"{ast.unparse(call.func)} over {kind[1] or 'WORLD'}"))
                continue
            if not any(written_local(a) is not None
                       for a in (*call.args, *(k.value for k in call.keywords))):
                continue  # nothing a wrapper could reduce in place, by position or keyword
            try:
                callees, _note = self.resolver.resolve(ctx.fn, call)
            except RecursionError:
                callees = []
            for callee in callees[:2]:
                inner = self._fn_ctx(callee)
                reductions: dict[str, list[tuple[ast.Call, str]]] = {}
                for n, c, d, _h in self._inplace_calls(inner):
                    if n in inner.flow.params:
                        reductions.setdefault(n, []).append((c, d))
                for param, calls in reductions.items():
                    arg = written_local(argument_for(callee, call, param))
                    if arg is None:
                        continue
                    single = self._wrapper_skips(inner, calls)
                    if single is None:
                        continue  # some way through the wrapper skips the reduction
                    if single:
                        self._wrapper_single[id(call)] = single
                    out.append((arg.id, call, calls[-1][1],
                                f"{ast.unparse(call.func)} (reduces its {param} in place)"))
        self._inplace[key] = out
        return out

    def _wrapper_skips(self, inner: Ctx, calls: list[tuple[ast.Call, str]]
                       ) -> frozenset | None:
        """Whether a wrapper reduces its parameter on every way through it (every return
        and the end follow one of ``calls``): empty. Else the dimensions single-rank on
        every way that skips them, when each runs only under ``if`` tests whose failing
        proves a group single-rank (``if self.tp_size > 1: all_reduce(t)``); else None."""
        hits = {id(c) for c, _d in calls}
        inherited = frozenset().union(*(self._wrapper_single.get(h, frozenset())
                                        for h in hits))
        if must_run(inner.fn.node.body, hits):
            return inherited
        single: frozenset | None = None
        for c, _d in calls:
            kind = classify_call(c, self.reach.config, "torch.distributed", assumed=True)
            group = kind[1] if kind is not None else ""
            for g in inner.flow.guards.get(id(c), ()):
                proof = self._skip_proof(g.test, g.negated, inner, group) \
                    if g.kind in _SKIPPING and g.test is not None else None
                if not proof:
                    return None
                single = proof if single is None else single & proof
        return (single | inherited) if single else None

    def _skip_proof(self, test: ast.expr, holds: bool, ctx: Ctx, group: str) -> frozenset | None:
        """The dimensions single-rank where ``test`` is ``holds`` and a reduction over
        ``group`` is skipped: what the path proves, or that group being absent (``if
        self.mp_group is None or self.mp_size == 1: pass`` / ``else: all_reduce(t,
        group=self.mp_group)``: no model-parallel group, no model-parallel peers)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._skip_proof(test.operand, not holds, ctx, group)
        if isinstance(test, ast.BoolOp):
            parts = [self._skip_proof(v, holds, ctx, group) for v in test.values]
            if isinstance(test.op, ast.Or) == holds:  # any one part may be what holds
                if not all(parts):
                    return None
                return frozenset.intersection(*parts) or None
            return frozenset().union(*(p for p in parts if p)) or None
        if group and isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], ast.Is if holds else ast.IsNot) \
                and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value is None and ast.unparse(test.left) == group:
            dim = self._group_dim_at(ctx, group)
            return frozenset({dim}) if dim and dim != "world" and "|" not in dim else None
        proof = self._prove(test, not holds, ctx, None, 0)
        return proof if proof and proof != EMPTY else None

    def _blocks_of(self, fn: ast.AST) -> dict:
        """The blocks enclosing each node of ``fn`` (``buffers.enclosing_blocks``), once."""
        blocks = self._blocks.get(id(fn))
        if blocks is None:
            blocks = self._blocks[id(fn)] = enclosing_blocks(fn)
        return blocks

    def _field_collectives(self, ctx: Ctx) -> dict[str, list[tuple[ast.Call, tuple]]]:
        """The function's collectives that write a field in place, by the field's chain
        (``self.buf``): computed once per function."""
        found = self._field_writers.get(id(ctx.fn.node))
        if found is None:
            found = {}
            for call in ctx.flow.calls:
                target = inplace_output(call)
                chain = self_chain(target, ctx.fn.self_name) if target is not None else None
                if chain is None:
                    continue
                kind = classify_call(call, self.reach.config, "torch.distributed",
                                     assumed=True)
                if kind is not None and kind[0] == "collective":
                    found.setdefault(chain, []).append((call, kind))
            self._field_writers[id(ctx.fn.node)] = found
        return found

    def _buffer_agreed(self, chain: str, read: ast.AST, ctx: Ctx) -> Leaf | None:
        """A field buffer (``self.buf``) a collective wrote in place before this read on
        every path, with no write between (``buffers``): agreed over its group."""
        fn = ctx.fn.node
        for call, kind in self._field_collectives(ctx).get(chain, ()):
            blocks = self._blocks_of(fn)
            if dominates(call, read, blocks) and not written_between(fn, chain, call, read,
                                                                     call):
                group = kind[1] or "WORLD"
                return Leaf(chain, "agreed", f"written in place by {ast.unparse(call.func)} "
                            f"over {group}", self._group_dim_at(ctx, kind[1]),
                            (f"{ctx.fn.file}:{call.lineno} {ast.unparse(call.func)}({chain}, "
                             f"...)",))
        return None

    def _buffer_after_write(self, chain: str, write: ast.AST, ctx: Ctx) -> Leaf | None:
        """A field write a collective overwrites in place later in the same function,
        whenever the write runs, with no write after it (``buffers``): what the field holds
        after that function is agreed."""
        fn = ctx.fn.node
        for call, kind in self._field_collectives(ctx).get(chain, ()):
            blocks = self._blocks_of(fn)
            if follows_every_run(call, write, blocks) and not written_between(
                    fn, chain, call, None, call):
                return Leaf(chain, "agreed", f"written in place by {ast.unparse(call.func)} "
                            f"over {kind[1] or 'WORLD'} after this write",
                            self._group_dim_at(ctx, kind[1]),
                            (f"{ctx.fn.file}:{call.lineno} {ast.unparse(call.func)}({chain}, "
                             f"...)",), group=kind[1] or "")
        return None


def _covering(found: list[tuple[ast.Call, str, str]], read: ast.Name, reaching: tuple,
              ctx: Ctx, blocks: dict[int, Any]) -> tuple[ast.Call, str, str] | None:
    """The in-place reduction (call, dim, how) that runs on every path from each reaching
    definition to ``read``: one after every definition, in its block or an enclosing one,
    or one after every definition that runs before the read whenever it runs (in a block
    enclosing the read, ending before it: a call's own argument is read before it runs);
    else an ``if`` after every definition and ending before the read whose arms each reduce
    over one group or leave the function. None when some path skips every reduction."""
    for entry in found:
        call = entry[0]
        if _after_every(call, reaching, ctx) or reaching and all(
                d.line < call.lineno for d, _f in reaching) and _ends_before(call, read) \
                and dominates(call, read, blocks):
            return entry
    by_call = {id(c): (c, d, h) for c, d, h in found}
    first = min(c.lineno for c, _d, _h in found)
    branches = (n for n in subnodes(ctx.fn.node) if isinstance(n, ast.If))
    for stmt in branches:  # an if holding a reduction, ending before the read
        if stmt.lineno > read.lineno or (stmt.end_lineno or 0) < first \
                or not _ends_before(stmt, read) or not _after_every(stmt, reaching, ctx):
            continue
        ways = ways_through([stmt], by_call)
        if ways.jumps and ways.falls not in (None, LEAVES, MIXED):
            return ways.falls  # a jump out of a loop before the reduction may reach the read
    return None


def _after_every(call: ast.AST, reaching: tuple, ctx: Ctx) -> bool:
    """``call`` runs after each reaching definition whenever it does: it sits after it, in
    its block or one enclosing it."""
    guards = set(ctx.flow.guards.get(id(call), ()))
    return bool(reaching) and all(guards <= set(d.guards) and call.lineno > d.line
                                  for d, _f in reaching)


def _ends_before(node: ast.AST, read: ast.AST) -> bool:
    """Whether ``node`` ends before ``read`` starts (an argument of a call is read before
    the call runs)."""
    return (node.end_lineno or 0, node.end_col_offset or 0) <= (read.lineno, read.col_offset)


def must_run(body: list[ast.stmt], hits: set[int]) -> bool:
    """Whether every way through a function body (each ``return`` and its end) runs one of
    the calls ``hits`` first: a statement holding one unconditionally, an ``if`` whose arms
    each do or leave by ``raise``. A loop's body may run no time; a ``try`` is not followed."""
    ways = ways_through(body, dict.fromkeys(hits, (None, "", "")))
    return ways.returns and ways.falls is not None


def ways_through(stmts: list[ast.stmt], hits: dict[int, Reduction]) -> Ways:
    """How ``stmts`` are left, and the reduction (``hits``: call id -> its reduction) each way
    ran first: a statement that runs one whenever it runs, an ``if`` whose arms each run one
    or leave (a ``with`` is entered); a loop's or ``try``'s body is not followed, and a
    ``return`` or jump in it before a reduction counts as one that skips it."""
    returns = jumps = True
    for stmt in stmts:
        if isinstance(stmt, ast.Raise):
            return Ways(LEAVES, returns, jumps)
        if isinstance(stmt, ast.If):
            arms = [ways_through(arm, hits) for arm in (stmt.body, stmt.orelse)]
            returns = returns and all(a.returns for a in arms)
            jumps = jumps and all(a.jumps for a in arms)
            falls = [a.falls for a in arms if a.falls != LEAVES]
            if not falls:
                return Ways(LEAVES, returns, jumps)
            if all(f is not None for f in falls):
                return Ways(_either(falls), returns, jumps)
            continue
        if isinstance(stmt, ast.With | ast.AsyncWith):
            inner = ways_through(stmt.body, hits)
            returns, jumps = returns and inner.returns, jumps and inner.jumps
            if inner.falls is not None:
                return Ways(inner.falls, returns, jumps)
            continue
        hit = _hit_in(stmt, hits)
        if isinstance(stmt, ast.Return):
            return Ways(LEAVES, returns and hit is not None, jumps)
        if hit is not None:
            return Ways(hit, returns, jumps)
        if isinstance(stmt, ast.Break | ast.Continue):
            return Ways(LEAVES, returns, False)
        for node in _own_nodes(stmt):  # a loop or try: a way out of it before any reduction
            returns = returns and not isinstance(node, ast.Return)
            jumps = jumps and not isinstance(node, ast.Break | ast.Continue)
    return Ways(None, returns, jumps)


def _either(falls: list) -> Any:
    """The reduction of an ``if`` whose every arm falling out ran one: theirs, when over one
    group (the arms' ways named together), else MIXED."""
    if MIXED in falls or len({dim for _c, dim, _h in falls}) != 1:
        return MIXED
    call, dim, _how = falls[0]
    return call, dim, " or ".join(dict.fromkeys(h for _c, _d, h in falls))


def _hit_in(stmt: ast.stmt, hits: dict[int, Reduction]) -> Reduction | None:
    """The reduction a simple statement runs whenever it runs (not under ``and``/``or``, a
    ternary, a comprehension or a lambda)."""
    if not isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
        return None
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if id(node) in hits:
            return hits[id(node)]
        if isinstance(node, ast.BoolOp | ast.IfExp | ast.Lambda | ast.ListComp | ast.SetComp
                      | ast.DictComp | ast.GeneratorExp):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return None


def _own_nodes(stmt: ast.stmt):
    """The nodes of a statement, not those of functions or classes defined in it."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(n for n in ast.iter_child_nodes(node) if not isinstance(
            n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda))
