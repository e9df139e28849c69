"""Helpers of the project named like a source. A default rank-local rule names a source by
its call (``*get_available_gpu_memory*``, ``*get_num_allocatable*``); when such a call
resolves to a function under the roots whose body *shows* where its value comes from -- it
calls a collective, or a call a default rule or a declaration names -- the body is read
instead: a reduction inside it makes the value agreed, a declared replica it reads makes it
sanctioned, and an unreduced probe is reported by its own name. Where the body shows no
such call (a pool's ``available_size`` returning ``len(self.free)``) the rule stands: the
name says what the model of the body cannot. A mixin of
:class:`~deskcheck.uniformity.trace.Tracer`."""

from __future__ import annotations

import ast

from deskcheck.uniformity.collectives import classify_call
from deskcheck.uniformity.leaves import Leaf
from deskcheck.uniformity.reach import Ctx
from deskcheck.uniformity.rules import RANK_LOCAL_RULES, hop_text, matches, rank_local_reason

_RULE_REASONS = {reason for _pattern, reason in RANK_LOCAL_RULES}


class NamedHelpers:
    """Whether a call classified by a default rule is a helper to read instead."""

    def _read_helper(self, leaf: Leaf, e: ast.Call, ctx: Ctx) -> bool:
        """``leaf``: the call's classification. True when it came from a default rule (not a
        configured pattern, not a declaration) and the call resolves to a function whose
        body shows its source."""
        if leaf.category != "rank_local" or leaf.reason not in _RULE_REASONS \
                or matches(leaf.name, self.rank_local):
            return False
        callees = [t.fn for c, t in ctx.edges if c is e]
        if not callees:
            try:
                callees, note = self.resolver.resolve(ctx.fn, e)
            except RecursionError:
                return False
            if note:
                return False
        return any(self._shows_source(fn) for fn in callees[:6])

    def _shows_source(self, fn) -> bool:
        cache = self.__dict__.setdefault("_helper_bodies", {})
        found = cache.get(fn.key)
        if found is None:
            inner = self._fn_ctx(fn)
            found = cache[fn.key] = fn.node is not None and any(
                self._names_source(call, inner) for call in inner.flow.calls)
        return found

    def _names_source(self, call: ast.Call, ctx: Ctx) -> bool:
        kind = classify_call(call, self.reach.config, None)
        if kind is not None and kind[0] == "collective":
            return True
        text = hop_text(call.func)
        return rank_local_reason(text, []) is not None \
            or self._declared(text, ctx, call) is not None
