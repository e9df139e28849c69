"""What a class body defines: methods, properties, static/class methods, class-level defaults."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty"}
_MEMBERS: dict[int, tuple[ast.AST, dict[str, Member]]] = {}


@dataclass(frozen=True)
class Member:
    """One name a class body defines. ``kind``: method, staticmethod, classmethod, property,
    attribute (a class-level default) or annotation (declared, no value)."""

    name: str
    kind: str
    line: int
    fget: FunctionNode | None = None
    fset: FunctionNode | None = None
    fdel: FunctionNode | None = None

    @property
    def is_function(self) -> bool:
        return self.kind in {"method", "staticmethod", "classmethod"}

    def functions(self) -> list[tuple[str, FunctionNode]]:
        """(role, def) pairs: role is ``call``, ``get``, ``set`` or ``delete``."""
        if self.is_function:
            return [("call", self.fget)] if self.fget is not None else []
        pairs = [("get", self.fget), ("set", self.fset), ("delete", self.fdel)]
        return [(role, node) for role, node in pairs if node is not None]


@dataclass
class ClassSource:
    """A class found in source: where it is and what its body defines."""

    module: str
    qualname: str
    file: str
    node: ast.ClassDef
    members: dict[str, Member] = field(default_factory=dict)
    parsed: Any = None  # the ParsedFile, for bodies parsed on first use

    def function(self, node: FunctionNode) -> FunctionNode:
        """``node`` with its real body (hollow parsing leaves bodies out until asked)."""
        return self.parsed.function(node) if self.parsed is not None else node

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _decorated_property(node: ast.expr) -> tuple[str, str] | None:
    """``@x.setter`` -> ("x", "set"); ``@x.deleter`` -> ("x", "delete")."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        role = {"setter": "set", "deleter": "delete", "getter": "get"}.get(node.attr)
        if role:
            return node.value.id, role
    return None


def _function_member(node: FunctionNode, members: dict[str, Member]) -> Member:
    kind = "method"
    for deco in node.decorator_list:
        prop = _decorated_property(deco)
        if prop is not None and prop[0] in members and members[prop[0]].kind == "property":
            old = members[prop[0]]
            slot = {"get": "fget", "set": "fset", "delete": "fdel"}[prop[1]]
            return Member(**{**old.__dict__, slot: node, "name": node.name})
        name = _decorator_name(deco)
        if name in _PROPERTY_DECORATORS:
            kind = "property"
        elif name in {"staticmethod", "classmethod"}:
            kind = name
    return Member(node.name, kind, node.lineno, fget=node)


_ACCESSORS = ("fget", "fset", "fdel")


def _property_call(value: ast.expr, members: dict[str, Member], name: str, line: int) -> Member | None:
    """``x = property(_get_x, _set_x)`` or ``property(fget=_get_x, fdel=_del_x)`` built from
    defs of the same body."""
    if not (isinstance(value, ast.Call) and _decorator_name(value.func) in _PROPERTY_DECORATORS):
        return None
    given = {_ACCESSORS[i]: arg for i, arg in enumerate(value.args[:3])}
    given.update((k.arg, k.value) for k in value.keywords if k.arg in _ACCESSORS)
    nodes: dict[str, FunctionNode | None] = {}
    for slot, arg in given.items():
        ref = members.get(arg.id) if isinstance(arg, ast.Name) else None
        nodes[slot] = ref.fget if ref is not None else None
    return Member(name, "property", line, **nodes)


def class_members(node: ast.ClassDef) -> dict[str, Member]:
    """Members of one class body, cached per parsed node."""
    cached = _MEMBERS.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    members: dict[str, Member] = {}
    for stmt in _flatten(node.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            members[stmt.name] = _function_member(stmt, members)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                value = stmt.value
                if value is None:  # declared only: a def of the same name stays
                    members.setdefault(target.id, Member(target.id, "annotation", stmt.lineno))
                elif isinstance(value, ast.Name) and value.id in members:  # alias: x = other_def
                    members[target.id] = Member(**{**members[value.id].__dict__, "name": target.id})
                else:
                    prop = _property_call(value, members, target.id, stmt.lineno)
                    members[target.id] = prop or Member(target.id, "attribute", stmt.lineno)
        elif isinstance(stmt, ast.ClassDef):
            members[stmt.name] = Member(stmt.name, "attribute", stmt.lineno)
    _MEMBERS[id(node)] = (node, members)  # the node kept: its id is never reused
    return members


def _flatten(body: list[ast.stmt]) -> list[ast.stmt]:
    """Class-body statements, looking inside ``if``/``try`` blocks (first definition wins later)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _flatten(stmt.body) + _flatten(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            out += _flatten(stmt.body) + _flatten(stmt.orelse) + _flatten(stmt.finalbody)
        else:
            out.append(stmt)
    return out


def clear_cache() -> None:
    _MEMBERS.clear()
