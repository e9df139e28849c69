"""Parts of a value a mode reads. Tuple positions: the modes that read one element of a
tuple value (``a, b = f()`` reads ``b`` as element 1 of ``f()``'s returns), and the element
of a tuple display they pick. Element attributes: ``for r in reqs: r.rid`` reads attribute
``rid`` of every element of ``reqs`` (``eattr:rid``; ``leattr:`` its length), so what is
put in (``reqs.append(Req(rid=..., gen=...))``) is read for that attribute only."""

from __future__ import annotations

import ast


def position(mode: str) -> tuple[int, str] | None:
    """(index, mode of that element) when ``mode`` reads one element of a tuple: ``elt:N``
    its value, ``lelt:N`` its length (``a, b = f()`` reads ``b`` as ``elt:1`` of the call)."""
    if mode.startswith(("elt:", "lelt:")):
        kind, index = mode.split(":", 1)
        return int(index), "length" if kind == "lelt" else "value"
    return None


def whole(mode: str) -> str:
    """The mode that reads a whole value where one element's position cannot be followed."""
    return "value" if position(mode) is not None else mode


def at(mode: str, index: int) -> str:
    """The mode that reads element ``index`` of a value read in ``mode`` (value or length;
    any other mode reads the whole value, as before)."""
    if mode == "value":
        return f"elt:{index}"
    if mode == "length":
        return f"lelt:{index}"
    return whole(mode)


def element(literal: ast.expr, index: int) -> ast.expr | None:
    """Element ``index`` of a tuple/list display, None where a star hides the positions."""
    if not isinstance(literal, ast.Tuple | ast.List) \
            or any(isinstance(e, ast.Starred) for e in literal.elts):
        return None
    return literal.elts[index] if -len(literal.elts) <= index < len(literal.elts) else None


def unpacked(value: ast.expr | None, index: int | None, mode: str) -> tuple[ast.expr | None, str]:
    """(what to read, how) for a name or field bound at ``index`` of a tuple target from
    ``value``: the display's element, or the element a call returns (``a, b = f()``: b is
    ``f()``'s element 1); the whole value where no position holds (a starred name, a star in
    the display)."""
    mode = whole(mode)
    if index is None or value is None:
        return value, mode
    literal = element(value, index)
    if literal is not None:
        return literal, mode
    if isinstance(value, ast.Tuple | ast.List):
        return value, mode
    return value, at(mode, index)


_SEQUENCE_KEEP = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})


def elementwise(mode: str) -> str | None:
    """The mode that reads an attribute of every element of a container, when a loop
    variable is read in ``mode`` for one attribute (``attr:x`` -> ``eattr:x``); else None."""
    if mode.startswith(("attr:", "lattr:")):
        kind, chain = mode.split(":", 1)
        if "." in chain:  # `r.a.b`: all of `r.a` (a chain through elements costs more
            return f"eattr:{chain.split('.', 1)[0]}"  # walking than it saves)
        return f"eattr:{chain}" if kind == "attr" else f"leattr:{chain}"
    return None


EACH_LENGTH = "elen"  # a container read for the length (and kind) of each of its elements
# an index read for how many entries each of its parts selects (``x[tuple(slc)]``): a slice
# object's width (``slice_width``), any other part's value
EACH_WIDTH = "ewidth"


def each_element(mode: str) -> str | None:
    """The mode that reads a container when one of its elements (a loop variable) is read
    in ``mode``: an attribute of each (``attr:x`` -> ``eattr:x``), or each one's length or
    kind (``length`` -> ``elen``); else None (the container read whole)."""
    if mode == "length":
        return EACH_LENGTH
    return elementwise(mode)


def of_element(mode: str) -> str | None:
    """The mode for one element when its container is read in ``mode`` (``eattr:x`` ->
    ``attr:x``, ``elen`` -> ``length``); None for any other mode."""
    if mode == EACH_LENGTH:
        return "length"
    if mode == EACH_WIDTH:
        return "width"
    if mode.startswith("eattr:"):
        return mode[1:]
    if mode.startswith("leattr:"):
        return "l" + mode[2:]
    return None


def keeps_elements(builtin: str) -> bool:
    """Whether the builtin's result holds its argument's elements unchanged (``sorted(xs)``),
    so an element-attribute read passes through it."""
    return builtin in _SEQUENCE_KEEP


def slice_width(part: ast.Slice) -> ast.expr | None:
    """The width of a slice whose bounds differ by it alone, whatever the offset: ``a:a + w``
    (``w + a``) and ``r * w:(r + 1) * w`` (either factor order) -> ``w``; the length of
    ``x[...]`` is then ``x``'s and ``w``'s, not the offset's (each rank's own shard of a
    common width). None for any other slice, or one with a step."""
    lower, upper = part.lower, part.upper
    if lower is None or upper is None or part.step is not None \
            or not isinstance(upper, ast.BinOp):
        return None
    same = ast.dump(lower)
    if isinstance(upper.op, ast.Add):  # a:a + w
        if ast.dump(upper.left) == same:
            return upper.right
        if ast.dump(upper.right) == same:
            return upper.left
        return None
    if not (isinstance(upper.op, ast.Mult) and isinstance(lower, ast.BinOp)
            and isinstance(lower.op, ast.Mult)):
        return None
    for offset, width in ((lower.left, lower.right), (lower.right, lower.left)):
        for next_one, other in ((upper.left, upper.right), (upper.right, upper.left)):
            if ast.dump(other) == ast.dump(width) and _plus_one(next_one, offset):
                return width  # r * w:(r + 1) * w
    return None


def _plus_one(expr: ast.expr, base: ast.expr) -> bool:
    """``base + 1`` or ``1 + base``."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add)):
        return False
    one = [p for p in (expr.left, expr.right) if isinstance(p, ast.Constant) and p.value == 1]
    rest = [p for p in (expr.left, expr.right) if p not in one]
    return len(one) == 1 and len(rest) == 1 and ast.dump(rest[0]) == ast.dump(base)
