"""Progress bars are their iterable: ``tqdm(xs, desc=...)`` yields ``xs``'s elements, so a
bar shown on one rank only (``if rank == 0: xs = tqdm(xs)``, or ``tqdm(list(ys)) if rank == 0
else ys``) iterates what every other rank iterates, and the condition that picks the bar is
no input of what the loop does. Found on vLLM's CUDA-graph capture (``gpu_model_runner.py``:
``if is_global_first_rank(): compilation_cases = tqdm(compilation_cases, ...)``) and
SGLang's CPU graph runner (``tqdm.tqdm(list(reversed(bs))) if tp_rank == 0 else
reversed(bs)``)."""

from __future__ import annotations

import ast
from typing import Any

from deskcheck.uniformity.rules import hop_text

_KEEP_ELEMENTS = frozenset({"list", "tuple", "iter"})  # the same elements, in the same order


def progress_bar_iterable(call: ast.Call, imported_of) -> ast.expr | None:
    """The iterable a ``tqdm`` progress bar wraps (``tqdm(xs)``, ``tqdm.tqdm(xs)``,
    ``tqdm.auto.tqdm(xs)``, ``iterable=xs``; the name or module imported from the tqdm
    library), else None. ``imported_of(name)``: the module a bare name was imported from."""
    text = hop_text(call.func)
    if text.rsplit(".", 1)[-1] != "tqdm":
        return None
    head = text.split(".", 1)[0]
    if not (imported_of(head) or "").split(".", 1)[0] == "tqdm":
        return None
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "iterable"), None)


def unwrapped(expr: ast.expr, imported_of) -> ast.expr:
    """``expr`` without the progress bars and element-keeping copies around it
    (``tqdm(list(xs))`` -> ``xs``). ``imported_of(name)``: the module a bare name was
    imported from, else None."""
    while isinstance(expr, ast.Call):
        inner = progress_bar_iterable(expr, imported_of)
        if inner is None and isinstance(expr.func, ast.Name) \
                and imported_of(expr.func.id) is None \
                and expr.func.id in _KEEP_ELEMENTS and len(expr.args) == 1 \
                and not expr.keywords and not isinstance(expr.args[0], ast.Starred):
            inner = expr.args[0]
        if inner is None:
            break
        expr = inner
    return expr


def same_iteration(a: ast.expr, b: ast.expr, imported_of) -> bool:
    """Whether two expressions iterate the same elements, progress bars aside."""
    return ast.dump(unwrapped(a, imported_of)) == ast.dump(unwrapped(b, imported_of))


def one_definition(reaching: tuple, flow: Any, imported_of) -> bool:
    """Whether the definitions reaching a read are one value: every definition either is the
    one the others wrap, or rebinds the name to a progress bar over it (``xs = tqdm(xs)``)."""
    roots: set = set()
    for d, _facts in reaching:
        inner = unwrapped(d.value, imported_of) \
            if d.kind == "assign" and not d.unpacked and d.value is not None else None
        if isinstance(inner, ast.Name) and inner.id == d.name and inner is not d.value:
            roots.update(dd for dd, _f in flow.reaching.get(id(inner), ()))
        else:
            roots.add(d)
    return len(roots) == 1
