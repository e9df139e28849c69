"""The attributes an instance of a plain test-file class holds by value: ``FakeReq("r1")``,
whose ``__init__`` runs ``self.rid = rid``, holds ``rid == "r1"``, so a production condition
over it (``req.rid.startswith(recv_req.rid)``) can be decided."""

from __future__ import annotations

import ast
import types

from deskcheck.drift_guard.standins.flow_state import Scope
from deskcheck.drift_guard.standins.forms import Forms, literal
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule, dotted
from deskcheck.drift_guard.standins.records import UNKNOWN


class Instances:
    """Mixed into :class:`~.flow.Flow` (which provides ``literal_value``, ``forms`` and
    ``module``)."""

    module: TestModule
    forms: Forms

    def literal_value(self, node: ast.expr, scope: Scope, *, choices: bool = False) -> object:
        raise NotImplementedError

    def instance_fields(self, call: ast.Call, scope: Scope) -> dict[str, object]:
        """The attributes ``call`` (a plain class of the test file) sets to known values: a
        literal in the class body or in ``__init__``'s own statements (``self.x = 0``), an
        ``__init__`` parameter the call passes a literal (or leaves at a literal default),
        or a ``SimpleNamespace`` of literals. An attribute stored anywhere else (another
        method, a branch or loop of ``__init__``, twice) is not known; neither is any
        attribute of a class using ``setattr`` or ``__dict__``."""
        klass = self.module.plain_class_nodes.get(dotted(call.func) or "")
        if klass is None or _dynamic(klass):
            return {}
        init = next((s for s in klass.body
                     if isinstance(s, FunctionNode) and s.name == "__init__"), None)
        once = _stored_once(klass, init)
        fields: dict[str, object] = {}
        for stmt in klass.body:  # class-level literals: `kind = "fake"`
            target, value = _assigned(stmt)
            if isinstance(target, ast.Name) and target.id in once \
                    and (known := literal(value, self.module)) is not UNKNOWN:
                fields[target.id] = known
        if init is None or not init.args.args:
            return fields
        self_name = init.args.args[0].arg
        bound = self._init_arguments(init, call, scope)
        for stmt in init.body:
            target, value = _assigned(stmt)
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == self_name and target.attr in once):
                continue
            fields.pop(target.attr, None)
            if isinstance(value, ast.Name) and value.id in bound:
                known = bound[value.id]
            else:
                known = literal(value, self.module)
                if known is UNKNOWN and isinstance(value, ast.Call):
                    known = self.forms.instance(value)  # SimpleNamespace(holds_kv=True)
                    known = known if _plain_value(known) else UNKNOWN
            if known is not UNKNOWN:
                fields[target.attr] = known
        return fields

    def _init_arguments(self, init: FunctionNode, call: ast.Call, scope: Scope
                        ) -> dict[str, object]:
        """``__init__``'s parameters with the literal each gets from ``call`` (or its literal
        default); none when the call unpacks ``*args`` or ``**kwargs``."""
        if any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return {}
        args = init.args
        positional = [a.arg for a in args.posonlyargs + args.args][1:]
        if len(call.args) > len(positional):
            return {}  # a call that does not fit: it raises, nothing is known
        bound: dict[str, object] = {}
        defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults,
                            strict=True)) if args.defaults else {}
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults,
                                                  strict=True) if d is not None})
        passed = dict(zip(positional, call.args, strict=False))
        passed.update({k.arg: k.value for k in call.keywords if k.arg})
        for name in positional + [a.arg for a in args.kwonlyargs]:
            if name in passed:
                bound[name] = self.literal_value(passed[name], scope)
            elif name in defaults:
                bound[name] = literal(defaults[name], self.module)
        return {k: v for k, v in bound.items() if v is not UNKNOWN}


def _assigned(stmt: ast.stmt) -> tuple[ast.expr | None, ast.expr | None]:
    """(target, value) of ``x = v`` with one target, or an annotated ``x: T = v``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return stmt.targets[0], stmt.value
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return stmt.target, stmt.value
    return None, None


def _stored_once(klass: ast.ClassDef, init: FunctionNode | None) -> set[str]:
    """The names the class stores exactly once, as a statement of the class body or of
    ``__init__``'s own body (never in another method, a branch, a loop, a nested def)."""
    counts: dict[str, int] = {}
    top: set[int] = set()
    for stmt in klass.body:
        target, _value = _assigned(stmt)
        if isinstance(target, ast.Name):
            counts[target.id] = counts.get(target.id, 0) + 1
            top.add(id(target))
        elif isinstance(stmt, FunctionNode | ast.ClassDef):
            counts[stmt.name] = counts.get(stmt.name, 0) + 2  # a method: never a value
    if init is not None:
        for stmt in init.body:
            target, _value = _assigned(stmt)
            if isinstance(target, ast.Attribute):
                top.add(id(target))
    for method in (s for s in klass.body if isinstance(s, FunctionNode)):
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
                counts[node.attr] = counts.get(node.attr, 0) + (1 if id(node) in top else 2)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
                counts[node.target.attr] = counts.get(node.target.attr, 0) + 2
    return {name for name, count in counts.items() if count == 1}


def _dynamic(klass: ast.ClassDef) -> bool:
    """Whether the class sets attributes by name (``setattr``, ``__dict__``,
    ``__setattr__``, ``__slots__`` tricks aside)."""
    for node in ast.walk(klass):
        if isinstance(node, ast.Name) and node.id == "setattr":
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__setattr__"):
            return True
        if isinstance(node, FunctionNode) and node.name in ("__setattr__", "__getattr__",
                                                            "__getattribute__"):
            return True
    return False


def _plain_value(value: object) -> bool:
    return isinstance(value, types.SimpleNamespace)
