"""Writes of a field through another object (``req.to_finish = FINISH_ABORT()`` in the
scheduler, ``sched.budget = v`` in a helper given the scheduler), found in every function the
roots reach, for ``outside_writes = true`` (docs/uniformity.md "Writes through another
object"). Field-based: a write of ``X.f`` counts for the field ``f`` of every object the audit
reads it of; the class of ``X`` is not asked. A write through a function's own ``self`` is
that class's field, read with the class's MRO, and is not one of these."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from deskcheck.static import FieldWrite, writes_through_others
from deskcheck.uniformity.reach import Ctx, is_dead


def outside_writes(ctxs: Iterable[Ctx]) -> dict[str, list[tuple[Ctx, FieldWrite, str]]]:
    """Field name -> (the writer's context, the write, the name written through), over the
    functions of ``ctxs`` (each function once, in its first context; a write its constants
    make dead there is left out)."""
    index: dict[str, list[tuple[Ctx, FieldWrite, str]]] = {}
    seen: set[int] = set()
    for ctx in ctxs:
        node = ctx.fn.node
        if id(node) in seen or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        seen.add(id(node))
        for name, write in writes_through_others(node, ctx.fn.self_name, ctx.fn.file):
            if write.node is not None and is_dead(ctx.flow.guards.get(id(write.node), ()),
                                                  ctx.consts):
                continue
            index.setdefault(write.name, []).append((ctx, write, name))
    return index
