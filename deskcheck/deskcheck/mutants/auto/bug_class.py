"""Bug-class mutants on changed lines that touch a collective, its inputs or its outputs.

mutmut's operators know nothing of collectives; the defects TP schedulers ship are ranks that
stop agreeing. For a function with collectives (``deskcheck.mutants.operators.collectives``),
a changed line gets the catalog's bug-class operators, applied with the occurrence of the site
it touches:

- the collective's own line: the reduce op swapped (``REDOP``), the collective run on rank 0
  only (``SKIP``), run over the default group (``GROUP``), dropped (``DROPC``);
- a line that reads a value the collective produced: that read made rank-local (``LOCAL``),
  a packed slot read at the next index (``SLOT``);
- a line that writes the collective's input: the collective run on rank 0 only, or dropped;
- a line that writes a slot index (``count_at = len(vals)``): the slots read by it shifted;
- a line that reads a group size: the size read as 1 (``SIZE1``).

They rank before every mutmut family (``operators.BUG_CLASS_RANK``), within the same caps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from deskcheck.mutants.operators import operator_class
from deskcheck.mutants.operators.base import StaleOperator, code_of
from deskcheck.mutants.operators.collectives import (
    collective_calls,
    dotted,
    find,
    first_positional,
    in_place_outputs,
    is_size_expression,
    keyword,
    produced_values,
)
from deskcheck.mutants.operators.reduce_op import op_of, reducing_calls

# family -> the catalog operator that makes it
FAMILY_OPERATOR = {"LOCAL": "rank-local", "REDOP": "reduce-op", "SKIP": "skip-on-rank",
                   "SLOT": "slot-shift", "SIZE1": "group-size-one", "GROUP": "swap-group",
                   "DROPC": "drop-collective"}
_FLIP = {"MIN": "MAX", "MAX": "MIN", "SUM": "MAX", "AVG": "MAX", "PRODUCT": "SUM"}

Span = Callable[[cst.CSTNode], tuple[int, int, int]]  # node -> (start line, end line, column)


@dataclass(frozen=True)
class BugClassSite:
    """One bug-class mutation: which family, its operator's params, and the line it is for."""

    family: str
    params: dict[str, Any]
    line: int  # the changed line it is generated for
    column: int
    site_lines: tuple[int, ...]  # the lines of the site it mutates (coverage)

    @property
    def operator(self) -> str:
        return FAMILY_OPERATOR[self.family]


def _lines(span: Span, node: cst.CSTNode) -> tuple[int, ...]:
    start, end, _ = span(node)
    return tuple(range(start, end + 1))


def _first_changed(lines: tuple[int, ...], changed: frozenset[int]) -> int | None:
    return next((line for line in lines if line in changed), None)


def _written_names(func: cst.FunctionDef, span: Span) -> dict[int, set[str]]:
    """line -> names a statement on it writes (``x = ``, ``x[i] = ``, ``x += ``,
    ``x.append(...)``/``x.extend(...)``)."""
    written: dict[int, set[str]] = {}

    def root(node: cst.BaseExpression) -> str:
        while isinstance(node, cst.Subscript | cst.Attribute):
            node = node.value
        return node.value if isinstance(node, cst.Name) else ""

    class Writes(cst.CSTVisitor):
        def _add(self, stmt: cst.CSTNode, name: str) -> None:
            if name:
                for line in _lines(span, stmt):
                    written.setdefault(line, set()).add(name)

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._add(node, root(target.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._add(node, root(node.target))

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
                    "append", "extend", "insert", "copy_", "fill_", "add_"):
                self._add(node, root(node.func.value))

    func.body.visit(Writes())
    return written


def bug_class_sites(func: cst.FunctionDef, changed: frozenset[int], span: Span
                    ) -> list[BugClassSite]:
    """Every bug-class mutation a changed line of ``func`` touches (see the module doc)."""
    calls = collective_calls(func)
    if not calls:
        return _sizes(func, changed, span)
    sites: list[BugClassSite] = []
    reducing = [id(c) for c in reducing_calls(calls)]
    grouped = [id(c) for c in calls if keyword(c, "group") is not None]
    inputs: dict[str, list[int]] = {}
    for number, call in enumerate(calls, 1):
        arg = first_positional(call)
        if arg is not None and dotted(arg.value):
            inputs.setdefault(dotted(arg.value), []).append(number)
        lines = _lines(span, call)
        line = _first_changed(lines, changed)
        if line is None:
            continue
        column = span(call)[2]
        if id(call) in reducing:
            op = op_of(call)
            old = dotted(op).rpartition(".")[2] if op is not None else "SUM"
            sites.append(BugClassSite("REDOP", {"to": _FLIP.get(old, "MIN"),
                                                "occurrence": reducing.index(id(call)) + 1},
                                      line, column, lines))
        sites.append(BugClassSite("SKIP", {"occurrence": number}, line, column, lines))
        if id(call) in grouped:
            sites.append(BugClassSite("GROUP", {"occurrence": grouped.index(id(call)) + 1}, line,
                                      column, lines))
        sites.append(BugClassSite("DROPC", {"occurrence": number}, line, column, lines))
    written = _written_names(func, span)
    for line, names in sorted(written.items()):
        if line not in changed:
            continue
        for name in sorted(names & set(inputs)):
            for number in inputs[name]:
                target = _lines(span, calls[number - 1])
                sites.append(BugClassSite("SKIP", {"occurrence": number}, line, 0, target))
                sites.append(BugClassSite("DROPC", {"occurrence": number}, line, 0, target))
    sites += _outputs(func, changed, span, written)
    sites += _sizes(func, changed, span)
    return sites


def _names_in(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

    node.visit(Names())
    return names


def _outputs(func: cst.FunctionDef, changed: frozenset[int], span: Span,
             written: dict[int, set[str]]) -> list[BugClassSite]:
    produced = produced_values(func)
    outputs = {p.output for p in produced}
    packed = outputs | set(in_place_outputs(func))
    sites: list[BugClassSite] = []
    reads = find(func, lambda n: isinstance(n, cst.Name) and n.value in outputs)
    for number, node in enumerate(reads, 1):
        line = _first_changed(_lines(span, node), changed)
        if line is not None:
            sites.append(BugClassSite("LOCAL", {"occurrence": number}, line, span(node)[2],
                                      _lines(span, node)))
    slots = find(func, lambda n: isinstance(n, cst.Subscript) and len(n.slice) == 1
                 and code_of(n.value) in packed)
    indices = {line: names for line, names in written.items() if line in changed}
    for number, node in enumerate(slots, 1):
        assert isinstance(node, cst.Subscript)
        line = _first_changed(_lines(span, node), changed)
        if line is not None:
            sites.append(BugClassSite("SLOT", {"occurrence": number}, line, span(node)[2],
                                      _lines(span, node)))
        used = _names_in(node.slice[0])
        for index_line, names in sorted(indices.items()):
            if names & used and index_line != line:  # the index's own definition changed
                sites.append(BugClassSite("SLOT", {"occurrence": number}, index_line, 0,
                                          _lines(span, node)))
    return sites


def _sizes(func: cst.FunctionDef, changed: frozenset[int], span: Span) -> list[BugClassSite]:
    sites = []
    for number, node in enumerate(find(func, is_size_expression), 1):
        line = _first_changed(_lines(span, node), changed)
        if line is not None:
            sites.append(BugClassSite("SIZE1", {"occurrence": number}, line, span(node)[2],
                                      _lines(span, node)))
    return sites


def apply_site(func: cst.FunctionDef, site: BugClassSite, where: str) -> cst.FunctionDef | None:
    """``func`` with the site's operator applied, or None when it changes nothing."""
    try:
        mutated = operator_class(site.operator)(site.params).apply(func, where)
    except StaleOperator:
        return None
    return None if mutated.deep_equals(func) else mutated
