"""The shape of a forward pass's argument that is an object: the sizes it is built from.

A forward's argument is read for its length (its shape). An object of a class under the roots
without ``__len__`` exists on every rank, so its length alone carries nothing; but a forward
fed ``ModelInput(batch_size=b_seq_len.shape[0], input_ids=input_ids, ...)`` runs at the shape
those arguments have. Found on lightllm's backends: ``model_input, run_reqs =
prepare_decode_inputs(decode_reqs)`` then ``self.model.forward(model_input)`` was a shape
decision with no input at all. This module finds the constructions of such objects a value
may hold, following locals, tuple positions, ternaries and the returns of the functions it
calls (a bounded walk); the tracer then reads each construction's arguments for their length.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

from deskcheck.uniformity.positions import element

_MAX_DEPTH = 8

# (construction, the context it runs in)
Built = tuple[ast.Call, Any]


def constructions(value: ast.expr, ctx: Any, is_record: Callable[[ast.Call, Any], bool],
                  callees: Callable[[Any, ast.Call], list[Any]]) -> list[Built]:
    """The record constructions (``is_record``) ``value`` may hold in ``ctx``: through the
    locals that bind it, a tuple position of what a call returns, either side of a ternary,
    and the returns of the functions a call enters (``callees``)."""
    out: list[Built] = []
    seen: set[tuple[int, int, int | None]] = set()
    for found in _walk(value, ctx, None, 0, is_record, callees, seen):
        if all(found[0] is not c for c, _x in out):
            out.append(found)
    return out


def _walk(value: ast.expr | None, ctx: Any, index: int | None, depth: int,
          is_record: Callable[[ast.Call, Any], bool],
          callees: Callable[[Any, ast.Call], list[Any]],
          seen: set[tuple[int, int, int | None]]) -> Iterator[Built]:
    if value is None or depth > _MAX_DEPTH:
        return
    key = (id(value), id(ctx), index)
    if key in seen:
        return
    seen.add(key)
    if index is not None:
        picked = element(value, index)
        if picked is not None:
            yield from _walk(picked, ctx, None, depth + 1, is_record, callees, seen)
            return
    if isinstance(value, ast.IfExp):
        for side in (value.body, value.orelse):
            yield from _walk(side, ctx, index, depth + 1, is_record, callees, seen)
    elif isinstance(value, ast.Name):
        for d, _facts in ctx.flow.reaching.get(id(value), ()):
            if d.kind == "assign" and d.value is not None:
                position = d.index if d.unpacked else index
                if d.unpacked and d.index is None:
                    continue  # a starred name: no one position
                yield from _walk(d.value, ctx, position, depth + 1, is_record, callees, seen)
    elif isinstance(value, ast.Call):
        if index is None and is_record(value, ctx):
            yield value, ctx
            return
        for callee in callees(ctx, value):
            for returned, _guards in callee.flow.returns:
                yield from _walk(returned, callee, index, depth + 1, is_record, callees, seen)
