"""Names a test binds to one literal per row: a loop over a literal tuple or list (``for fast
in (True, False)``, rows unpacked: ``for mode, fast in [("a", True), ...]``) and the columns
of a parametrized test's tables (``pytest.mark.parametrize``, ``parameterized.expand``). A call
passing such a name to a driven method binds its parameter once per row (:class:`Choices`)."""

from __future__ import annotations

import ast
from itertools import product
from typing import Any

from deskcheck.drift_guard.standins.flow_refs import _target_names, tables
from deskcheck.drift_guard.standins.forms import literal
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule
from deskcheck.drift_guard.standins.records import UNKNOWN, Choices
from deskcheck.static import CallArgs, Unknown

MAX_ROWS = 8  # a call whose rows combine to more than this binds nothing known


def loop_choices(target: ast.AST, iterated: Any, source: int) -> dict[str, Choices]:
    """``for x in VALUE`` where VALUE is a known literal tuple, list or set: each name the
    target binds, with its value in each row (nothing when a row does not unpack)."""
    if not isinstance(iterated, tuple | list | frozenset | set) or not iterated:
        return {}
    names = _target_names(target)
    rows: list[tuple[Any, ...]] = []
    for item in iterated:
        if len(names) == 1:
            rows.append((item,))
        elif isinstance(item, tuple | list) and len(item) == len(names):
            rows.append(tuple(item))
        else:
            return {}
    return {name: Choices(source, tuple(r[i] for r in rows))
            for i, name in enumerate(names) if name is not None}


def parametrized_choices(func: FunctionNode, module: TestModule, is_method: bool
                         ) -> dict[str, Choices]:
    """The literal columns of a parametrized test's tables: each parameter whose value is a
    literal in every row of its table (one table per decorator, combined as pytest does)."""
    out: dict[str, Choices] = {}
    for decorator, names, rows in tables(func, module, is_method):
        if any(r is None or len(r) != len(names) for r in rows):
            continue
        for i, param in enumerate(names):
            values = [literal(row[i], module) for row in rows if row is not None]
            if all(v is not UNKNOWN for v in values):
                out[param] = Choices(id(decorator), tuple(values))
    return out


def expand(values: list[Any]) -> list[list[Any]] | None:
    """Each way ``values`` can be, row by row: a :class:`Choices` takes its value in one row,
    two from one source always the same row. None when the rows combine to more than
    :data:`MAX_ROWS`; ``[values]`` when none is a choice."""
    sources: dict[int, int] = {}
    for value in values:
        if isinstance(value, Choices):
            sources.setdefault(value.source, len(value.row))
    total = 1
    for count in sources.values():
        total *= count
    if total > MAX_ROWS:
        return None
    out: list[list[Any]] = []
    order = list(sources)
    for picks in product(*(range(sources[s]) for s in order)):
        row = dict(zip(order, picks, strict=True))
        out.append([v.row[row[v.source]] if isinstance(v, Choices) else v for v in values])
    return out


def call_rows(args: CallArgs) -> list[CallArgs]:
    """What a test's call passes, once per row of the loops and tables its values come from
    (:func:`expand`); past :data:`MAX_ROWS` those values are unknown, saying why."""
    passed = [*args.positional, *(v for _k, v in args.keywords)]
    rows = expand(passed)
    if rows is None:
        rows = [[Unknown(f"a value passed at {args.where} takes more than {MAX_ROWS} "
                         "combinations of rows") if isinstance(v, Choices) else v
                 for v in passed]]
    count = len(args.positional)
    return [CallArgs(tuple(row[:count]),
                     tuple((k, v) for (k, _old), v in zip(args.keywords, row[count:],
                                                          strict=True)),
                     args.star, args.double_star, args.where) for row in rows]

