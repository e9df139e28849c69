"""Every write of an instance field in a class's MRO, and the class a field holds.

``field_writes(model)`` maps a field name to each place any method of the MRO assigns it
(``self.x = v``, ``self.x: T = v``, ``self.x += v``, tuple targets), mutates it in place
(``self.x.append(v)``, ``self.x[k] = v``) or deletes it, with the value expression and the
function holding it. Class-level defaults count as writes too. ``method_functions(model)``
lists every (class, member, def) of the MRO once.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from deskcheck.static._collect import first_param
from deskcheck.static._members import ClassSource, FunctionNode
from deskcheck.static._model import ClassModel

_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popleft", "appendleft", "remove",
                       "clear", "add", "discard", "update", "setdefault", "sort", "reverse",
                       "__setitem__", "put", "put_nowait"})
_WRITES: dict[int, dict[str, list[FieldWrite]]] = {}


@dataclass(frozen=True)
class FieldWrite:
    """One write of ``self.<name>``. ``kind``: assign, augassign, mutate (``.append(v)`` and
    friends: ``method`` names it), item (``self.x[k] = v``), delete, default (class body)."""

    name: str
    kind: str
    file: str
    line: int
    value: ast.expr | None
    function: FunctionNode | None
    klass: ClassSource
    method: str = ""
    index: int | None = None

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
    """Field name -> every write in the MRO (cached per model)."""
    cached = _WRITES.get(id(model))
    if cached is not None:
        return cached
    found: dict[str, list[FieldWrite]] = {}
    for klass in model.sources:
        for stmt in klass.node.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(FieldWrite(
                            target.id, "default", klass.file, stmt.lineno, stmt.value, None,
                            klass))
    for klass, _name, node in method_functions(model):
        self_name = first_param(node)
        if self_name is None:
            continue
        for write in _writes_in(node, self_name, klass):
            found.setdefault(write.name, []).append(write)
    _WRITES[id(model)] = found
    return found


def _self_field(expr: ast.expr, self_name: str) -> str | None:
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name):
        return expr.attr
    return None


def _writes_in(node: FunctionNode, self_name: str, klass: ClassSource) -> list[FieldWrite]:
    out: list[FieldWrite] = []

    def target(t: ast.expr, value: ast.expr | None, line: int, kind: str,
               index: int | None = None) -> None:
        name = _self_field(t, self_name)
        if name is not None:
            out.append(FieldWrite(name, kind, klass.file, line, value, node, klass, index=index))
        elif isinstance(t, ast.Tuple | ast.List):
            for i, elt in enumerate(t.elts):
                target(elt, value, line, kind, i)
        elif isinstance(t, ast.Subscript):
            owner = _self_field(t.value, self_name)
            if owner is not None:
                out.append(FieldWrite(owner, "item", klass.file, line, value, node, klass))

    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign):
            for t in sub.targets:
                target(t, sub.value, sub.lineno, "assign")
        elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
            target(sub.target, sub.value, sub.lineno, "assign")
        elif isinstance(sub, ast.AugAssign):
            target(sub.target, sub.value, sub.lineno, "augassign")
        elif isinstance(sub, ast.Delete):
            for t in sub.targets:
                target(t, None, sub.lineno, "delete")
        elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
              and sub.func.attr in _MUTATORS):
            owner = _self_field(sub.func.value, self_name)
            if owner is not None:
                value = sub.args[-1] if sub.args else None
                out.append(FieldWrite(owner, "mutate", klass.file, sub.lineno, value, node,
                                      klass, method=sub.func.attr))
    return out


def clear_fields_cache() -> None:
    _WRITES.clear()
