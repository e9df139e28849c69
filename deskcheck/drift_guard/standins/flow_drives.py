"""Drives and sets inside one expression of a test body: ``Cls.method(obj, ...)`` (``None``
as ``obj`` included), ``loop(obj)`` with ``loop`` holding production methods
(:mod:`.flow_refs`), ``obj.method()`` / ``obj.prop`` on a ``__new__`` instance,
``types.MethodType(Cls.method, obj)``, ``Cls.prop.fget(obj)``, and the names a statement
sets on a stand-in through ``setattr`` or ``configure_mock`` (mixed into :class:`~.flow.Flow`)."""

from __future__ import annotations

import ast

from deskcheck.drift_guard.standins.flow_state import Obj, PendingDrive, Scope, Unfollowed
from deskcheck.drift_guard.standins.flow_values import Values
from deskcheck.drift_guard.standins.forms import literal
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule, dotted
from deskcheck.drift_guard.standins.records import NEW, SetName
from deskcheck.static import CallArgs


class Drives(Values):
    """Mixed into :class:`~.flow.Flow`, which provides ``_held`` and ``_callee``."""

    def _held(self, node: ast.AST, scope: Scope) -> list[Obj]:
        raise NotImplementedError

    def _callee(self, node: ast.Call, scope: Scope | None = None
                ) -> tuple[TestModule, FunctionNode, bool, object] | None:
        raise NotImplementedError

    def _spoil(self, node: ast.AST, scope: Scope) -> None:
        raise NotImplementedError

    def _expr(self, node: ast.AST, scope: Scope) -> None:
        called: set[int] = set()
        for sub in _walk(node):
            if isinstance(sub, ast.Call):
                called.add(id(sub.func))
                self._call(sub, scope)
        for sub in _walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load) \
                    and id(sub) not in called:
                for obj in self._held(sub.value, scope):
                    if obj.cons.kind == NEW and not obj.has(sub.attr) and obj.cons.model_expr:
                        self._drive(scope, obj, sub.attr, obj.cons.model_expr, "property", sub)

    def _call(self, node: ast.Call, scope: Scope) -> None:
        func = node.func
        name = dotted(func)
        qualified = self.module.qualify(name) or name or ""
        if qualified in ("types.MethodType", "MethodType") and len(node.args) == 2:
            owner, obj_node = node.args
            if isinstance(owner, ast.Name):  # MethodType(loop, obj): loop holds methods
                for model, method in scope.callables.get(owner.id, ()):
                    for obj in self._eval(obj_node, scope):
                        self._drive(scope, obj, method, model, "MethodType", node)
            elif isinstance(owner, ast.Attribute):
                model = dotted(owner.value)
                for obj in self._eval(obj_node, scope):
                    if model:
                        self._drive(scope, obj, owner.attr, model, "MethodType", node)
            return
        if qualified == "setattr" and len(node.args) >= 2:
            for obj in self._held(node.args[0], scope):
                attr = node.args[1]
                if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                    value = node.args[2] if len(node.args) > 2 else None
                    obj.record(SetName(attr.value, node.lineno, short(value),
                                       literal(value, self.module) if value is not None
                                       else None))
                else:
                    obj.cons.dynamic.append(f"setattr(…, {short(attr)}) at {self.rel}:{node.lineno}")
            return
        if isinstance(func, ast.Name) and func.id in scope.callables and node.args \
                and self._callee(node, scope) is None:
            receivers = self._eval(node.args[0], scope)  # loop(obj): loop holds methods
            for model, method in scope.callables[func.id]:
                for obj in receivers:
                    self._drive(scope, obj, method, model, "Cls.method(obj)", node,
                                self.call_values(node, 1, scope))
                self._arguments(node, 1, method, model, scope,
                                receivers[0] if receivers else None)
            return
        if isinstance(func, ast.Attribute) and func.attr in ("fget", "__get__") \
                and isinstance(func.value, ast.Attribute) and node.args:
            model = dotted(func.value.value)  # Cls.prop.fget(obj) / Cls.method.__get__(obj)
            for obj in self._eval(node.args[0], scope):
                if model:
                    how = "property" if func.attr == "fget" else "MethodType"
                    self._drive(scope, obj, func.value.attr, model, how, node)
            return
        if isinstance(func, ast.Attribute):
            if func.attr in _GROWS:  # obj.queue.append(x): its elements are no longer known
                self._spoil(func.value, scope)
            held = self._held(func.value, scope)
            if func.attr == "configure_mock":
                for obj in held:
                    for kw in node.keywords:
                        if kw.arg:
                            obj.record(SetName(kw.arg.split(".")[0], node.lineno,
                                               short(kw.value), literal(kw.value, self.module)))
                return
            for obj in held:  # obj.method(): a real method of a __new__ instance
                if obj.cons.kind == NEW and not obj.has(func.attr) and obj.cons.model_expr:
                    self._drive(scope, obj, func.attr, obj.cons.model_expr, "obj.method()", node,
                                self.call_values(node, 0, scope))
                    self._arguments(node, 0, func.attr, obj.cons.model_expr, scope, obj)
            model = dotted(func.value)
            if not held and model and node.args and self._callee(node, scope) is None:
                first = node.args[0]
                for obj in self._eval(first, scope) or self._none_self(node, model, scope):
                    self._drive(scope, obj, func.attr, model, "Cls.method(obj)", node,
                                self.call_values(node, 1, scope))
                if self.module.qualify(model):
                    receivers = self._eval(first, scope)
                    self._arguments(node, 1, func.attr, model, scope,
                                    receivers[0] if receivers else None)
                key = self._key(first)
                if key and key in scope.opaque and self.module.qualify(model):
                    scope.result.unfollowed.append(Unfollowed(
                        model, func.attr, key, scope.opaque[key], self.rel, node.lineno))
        if self._callee(node, scope) is not None:
            self._call_result(node, scope)

    def _none_self(self, node: ast.Call, model: str, scope: Scope) -> list[Obj]:
        """``Cls.method(None, ...)`` of a production class: None stands in for self (one
        stand-in per call site and scope)."""
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and first.value is None
                and self.module.qualify(model)):
            return []
        found = scope.calls.get(id(first))
        if found is None:
            cons = self.forms.none_as_self(node, model, scope.name)
            found = scope.calls[id(first)] = [Obj(cons, cons.sets)]
        return found

    def _drive(self, scope: Scope, obj: Obj, method: str, model: str, how: str,
               node: ast.AST, args: CallArgs | None = None, argument: str = "",
               receiver: tuple[SetName, ...] = ()) -> None:
        sets = {**obj.nested(), **obj.cons.sets, **obj.extra}
        if how == "property":
            args = CallArgs(where=f"{self.rel}:{getattr(node, 'lineno', 0)}")
        scope.result.drives.append(PendingDrive(
            obj.cons, tuple(sets.values()), method, model, how, self.rel,
            getattr(node, "lineno", 0), args, argument, receiver))


_GROWS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "__setitem__",
                    "appendleft", "extendleft"})


def _walk(node: ast.AST):
    """``ast.walk`` that does not enter nested defs or classes."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, FunctionNode | ast.ClassDef):
                todo.append(child)


def short(node: ast.AST | None, limit: int = 60) -> str:
    """``node`` as source on one line, cut to ``limit`` characters."""
    if node is None:
        return ""
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
