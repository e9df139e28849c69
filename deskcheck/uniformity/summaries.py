"""A call's return value bound to that call's arguments (call-site sensitivity, one level).

Without it a parameter of a callee is the union of every caller's argument, so a helper
called from two places (``_is_fake_transfer(req)``) lends each caller the other's inputs.
The callee's returns are walked once in a *summary* context, where a parameter is a
reference leaf (category ``param``, carrying the mode it is read in); each call site then
replaces those references by the walk of its own argument. A summary that meets an open
member of a cycle is not used (the references could not all be replaced): that call falls
back to every caller's arguments, as before. A mixin of
:class:`~deskcheck.uniformity.trace.Tracer`."""

from __future__ import annotations

import ast
from dataclasses import replace

from deskcheck.uniformity.leaves import Leaf, default_of
from deskcheck.uniformity.reach import Ctx, argument_for

PARAM = "param"  # the category of a parameter reference (never reaches a decision)


class CallSummaries:
    """Return values of calls, their parameters bound at the call site."""

    def _param_ref(self, name: str, mode: str) -> Leaf:
        return Leaf(f"\x00param:{name}\x00{mode}", PARAM, "")

    def _summary_ctx(self, callee: Ctx) -> Ctx:
        if callee.summary:
            return callee
        cache = self.__dict__.setdefault("_summaries", {})
        found = cache.get(callee.key)
        if found is None:
            found = cache[callee.key] = replace(callee, summary=True)
        return found

    def _call_returns(self, callee: Ctx, call: ast.Call, ctx: Ctx, mode: str, depth: int,
                      hop: str) -> list[Leaf]:
        """``callee``'s return value at ``call``: its summary, each parameter reference
        replaced by the walk of this call's argument for it."""
        summary = self._returns(self._summary_ctx(callee), mode, depth, hop)
        if any(leaf.category == "cycle" for leaf in summary):
            return self._returns(callee, mode, depth, hop)
        out: list[Leaf] = []
        for leaf in summary:
            if leaf.category != PARAM:
                out.append(leaf)
                continue
            name, _sep, inner = leaf.name.removeprefix("\x00param:").partition("\x00")
            arg = argument_for(callee.fn, call, name)
            if arg is None:
                arg = default_of(callee.fn.node, name)
                where = callee  # a default is evaluated where the function is defined
            else:
                where = ctx
            if arg is None:
                continue
            bound = self.trace(arg, where, inner, depth + 1)
            head, marks = leaf.witness, leaf.single
            new = tuple.__new__  # Leaf._replace without its Python-level _make
            out += [new(Leaf, (b[0], b[1], b[2], b[3], (*head, *b[4])[:24],
                               b[5] | marks if marks else b[5], b[6])) for b in bound]
        return self._bind_marks(out, callee, call, ctx)
