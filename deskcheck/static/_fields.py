"""Every write of an instance field in a class's MRO, and the class a field holds.

``field_writes(model)`` maps a field name to each place any method of the MRO assigns it
(``self.x = v``, ``self.x: T = v``, ``self.x += v``, tuple targets), mutates it in place
(``self.x.append(v)``, ``self.x[k] = v``) or deletes it, with the value expression and the
function holding it. Class-level defaults count as writes too. ``method_functions(model)``
lists every (class, member, def) of the MRO once.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from deskcheck.static._collect import first_param
from deskcheck.static._dataflow import target_positions
from deskcheck.static._members import ClassSource, FunctionNode
from deskcheck.static._model import ClassModel
from deskcheck.static._nodes import subnodes
from deskcheck.static._sources import note_read, note_reads, record_reads

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popleft", "appendleft", "remove",
                       "clear", "add", "discard", "update", "setdefault", "sort", "reverse",
                       "__setitem__", "put", "put_nowait"})
_WRITES: dict[tuple, dict[str, list[FieldWrite]]] = {}
# each class's writes with the bodies read to find them (told again on every use: a cached
# answer still read them, see _sources.record_reads)
_CLASS_WRITES: dict[tuple[str, int], tuple[list[FieldWrite], set[tuple[str, int, str]]]] = {}
# a cheap text test before a hollowed body is parsed: can it write a self field at all?
_MAYBE_WRITE = re.compile(
    r"\bsetattr\(\s*self\b|"
    r"\bself\.\w+[^\n=]*(?<![=!<>])=(?!=)|\bdel\s+self\.|\bself\.\w+(?:\[[^\n]*\])?\.(?:append|extend|insert|pop"
    r"|popleft|appendleft|remove|clear|add|discard|update|setdefault|sort|reverse|put"
    r"|put_nowait|__setitem__|[a-z]\w*[a-z0-9]_)\(")


def _in_place(method: str) -> bool:
    """A tensor's in-place method (torch's trailing underscore: ``fill_``, ``copy_``,
    ``add_``, ``masked_fill_``): it writes the tensor the field holds."""
    return method.endswith("_") and not method.startswith("_") and not method.endswith("__")


@dataclass(frozen=True)
class FieldWrite:
    """One write of ``self.<name>``. ``kind``: assign, augassign, mutate (``.append(v)`` and
    friends: ``method`` names it), item (``self.x[k] = v``), element (``self.x[k].put(v)``:
    an element changed in place), delete, default (class body)."""

    name: str
    kind: str
    file: str
    line: int
    value: ast.expr | None
    function: FunctionNode | None
    klass: ClassSource
    method: str = ""
    index: int | None = None  # a tuple target's position (see _dataflow.target_positions)
    node: ast.AST | None = None  # the assignment statement, or the mutating call
    unpacked: bool = False  # set by a tuple target (``index`` None: no position can be told)


    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def method_functions(model: ClassModel) -> list[tuple[ClassSource, str, FunctionNode]]:
    """Every def of every source class in the MRO (properties' accessors included)."""
    out: list[tuple[ClassSource, str, FunctionNode]] = []
    for klass in model.sources:
        for name, member in klass.members.items():
            for _role, node in member.functions():
                out.append((klass, name, klass.function(node)))
    return out


def field_writes(model: ClassModel) -> dict[str, list[FieldWrite]]:
    """Field name -> every write in the MRO (cached per MRO; each class scanned once)."""
    key = tuple((k.file, k.qualname, id(k.node)) for k in model.sources)
    cached = _WRITES.get(key)
    if cached is not None:
        for klass in model.sources:
            _class_writes(klass)  # tells the reads again
        return cached
    found: dict[str, list[FieldWrite]] = {}
    for klass in model.sources:
        for write in _class_writes(klass):
            found.setdefault(write.name, []).append(write)
    _WRITES[key] = found
    return found


def _class_writes(klass: ClassSource) -> list[FieldWrite]:
    key = (klass.file, id(klass.node))
    cached = _CLASS_WRITES.get(key)
    if cached is None:
        with record_reads() as reads:
            cached = _CLASS_WRITES[key] = (_scan_class(klass), reads)
    else:
        note_reads(cached[1])
    return cached[0]


def _scan_class(klass: ClassSource) -> list[FieldWrite]:
    out: list[FieldWrite] = []
    for stmt in klass.node.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out.append(FieldWrite(target.id, "default", klass.file, stmt.lineno,
                                          stmt.value, None, klass, node=stmt))
    parsed = klass.parsed
    lines: list[str] | None = None
    for member in klass.members.values():
        for _role, hollow_node in member.functions():
            body = parsed.bodies.get(hollow_node.lineno) if parsed is not None else None
            if body is not None and first_param(hollow_node) == "self":
                if lines is None:
                    lines = parsed.data.decode("utf-8", "replace").splitlines()
                note_read(parsed.path, body.def_line, "scan")
                if not _MAYBE_WRITE.search("\n".join(lines[body.def_line - 1:body.end_line])):
                    continue
            node = klass.function(hollow_node)
            self_name = first_param(node)
            if self_name is not None:
                out += _writes_in(node, self_name, klass)
    return out


def _self_field(expr: ast.expr, self_name: str) -> str | None:
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name):
        return expr.attr
    return None


def _writes_in(node: FunctionNode, self_name: str, klass: ClassSource) -> list[FieldWrite]:
    out: list[FieldWrite] = []

    def target(t: ast.expr, value: ast.expr | None, stmt: ast.stmt, kind: str,
               index: int | None = None, unpacked: bool = False) -> None:
        name = _self_field(t, self_name)
        if name is not None:
            out.append(FieldWrite(name, kind, klass.file, stmt.lineno, value, node, klass,
                                  index=index, node=stmt, unpacked=unpacked))
        elif isinstance(t, ast.Tuple | ast.List):
            for leaf, position in target_positions(t):
                target(leaf, value, stmt, kind, position, True)
        elif isinstance(t, ast.Subscript):
            owner = _self_field(t.value, self_name)
            if owner is not None:
                out.append(FieldWrite(owner, "item", klass.file, stmt.lineno, value, node, klass,
                                      node=stmt))

    for sub in subnodes(node):
        if isinstance(sub, ast.Assign):
            for t in sub.targets:
                target(t, sub.value, sub, "assign")
        elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
            target(sub.target, sub.value, sub, "assign")
        elif isinstance(sub, ast.AugAssign):
            target(sub.target, sub.value, sub, "augassign")
        elif isinstance(sub, ast.Delete):
            for t in sub.targets:
                target(t, None, sub, "delete")
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
              and sub.func.id == "setattr" and len(sub.args) == 3
              and isinstance(sub.args[0], ast.Name) and sub.args[0].id == self_name
              and isinstance(sub.args[1], ast.Constant) and isinstance(sub.args[1].value, str)):
            out.append(FieldWrite(sub.args[1].value, "assign", klass.file, sub.lineno,
                                  sub.args[2], node, klass, node=sub))  # setattr(self, "x", v)
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
              and (sub.func.attr in _MUTATORS or _in_place(sub.func.attr))):
            owner = _self_field(sub.func.value, self_name)
            kind = "mutate"
            if owner is None and isinstance(sub.func.value, ast.Subscript):
                owner, kind = _self_field(sub.func.value.value, self_name), "element"
            if owner is not None:  # self.x.append(v); self.x[k].put(v): an element's content
                value = sub.args[-1] if sub.args else None
                out.append(FieldWrite(owner, kind, klass.file, sub.lineno, value, node,
                                      klass, method=sub.func.attr, node=sub))
    return out


class _File:
    """Where a function holding writes through other objects is (a FieldWrite's ``klass``
    names only its file there)."""

    def __init__(self, file: str) -> None:
        self.file = file


def writes_through_others(node: FunctionNode, self_name: str | None, file: str
                          ) -> list[tuple[str, FieldWrite]]:
    """The writes a function makes of another object's attributes, each with the name it
    writes through: ``X.a = v`` (tuple targets too), ``X.a += v``, ``X.a[k] = v``, ``del
    X.a``, ``X.a.append(v)`` and the other mutators, ``setattr(X, "a", v)``, for every name
    ``X`` but ``self_name`` (the function's own fields are its class's writes)."""
    names: dict[str, None] = {}

    def receiver(expr: ast.expr) -> None:
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
                and expr.value.id != self_name:
            names[expr.value.id] = None

    for sub in subnodes(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store | ast.Del):
            receiver(sub)
        elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store | ast.Del):
            receiver(sub.value)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr in _MUTATORS or _in_place(sub.func.attr):
                owner = sub.func.value
                receiver(owner.value if isinstance(owner, ast.Subscript) else owner)
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
              and sub.func.id == "setattr" and sub.args and isinstance(sub.args[0], ast.Name)
              and sub.args[0].id != self_name):
            names[sub.args[0].id] = None
    where = _File(file)
    return [(name, write) for name in names
            for write in _writes_in(node, name, where)]  # type: ignore[arg-type]


def clear_fields_cache() -> None:
    _WRITES.clear()
    _CLASS_WRITES.clear()
