"""Recognise the ways tests build stand-ins, and read literal values statically."""

from __future__ import annotations

import ast
import types
from typing import Any

from deskcheck.drift_guard.standins.module import TestModule, dotted
from deskcheck.drift_guard.standins.records import (
    MOCK,
    NAMESPACE,
    NEW,
    NONE,
    PLAIN,
    UNKNOWN,
    Construction,
    Problem,
    SetName,
    Symbol,
)
from deskcheck.static import Something, Unknown
from deskcheck.static import literal as static_literal

NAMESPACES = {"types.SimpleNamespace", "argparse.Namespace"}
MOCKS = {f"{base}.{name}" for base in ("unittest.mock", "mock")
         for name in ("Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock",
                      "AsyncMock")}
AUTOSPEC = {"unittest.mock.create_autospec", "mock.create_autospec"}
# keyword arguments of Mock(...) that configure the mock itself, not an attribute
MOCK_OWN = {"spec", "spec_set", "side_effect", "return_value", "wraps", "name", "unsafe",
            "parent", "new_callable", "instance", "_spec_class"}


def literal(node: ast.AST | None, module: TestModule) -> Any:
    """The value of a literal expression (``None``, numbers, strings, containers, ``-1``),
    a :class:`Symbol` for an imported name such as an enum member, else ``UNKNOWN``."""
    if node is None:
        return UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Lambda):  # lambda: False -> a callable known to return False
        value = static_literal(node)
        return UNKNOWN if isinstance(value, Unknown) else value
    qualified = module.qualify(dotted(node))
    if qualified is not None and isinstance(node, ast.Attribute):
        return Symbol(qualified)
    return UNKNOWN


class Forms:
    """Construction recognition for one test module; problems go to ``problems``."""

    def __init__(self, module: TestModule, rel: str, problems: list[Problem]):
        self.module = module
        self.rel = rel
        self.problems = problems
        self.created: list[Construction] = []
        self._objects: dict[int, Something] = {}

    def something(self, cons: Construction) -> Something:
        """The one value standing for the objects ``cons`` builds (never None; a namespace or
        a mock is truthy)."""
        if id(cons) not in self._objects:
            truthy = cons.kind in (NAMESPACE, MOCK) or cons.kind == PLAIN and not (
                {"__bool__", "__len__"} & set(cons.class_names))  # a class without either
            self._objects[id(cons)] = Something(
                True if truthy else None, cons.kind,
                tuple(sorted(cons.fields.items(), key=lambda item: item[0])))
        return self._objects[id(cons)]

    def instance(self, node: ast.expr) -> Any:
        """``Cls(...)`` / ``SimpleNamespace(...)`` / ``Mock()`` / ``object()``: an object that
        is never None (truthy for namespaces, mocks and ``object()``), else ``UNKNOWN``."""
        if not isinstance(node, ast.Call):
            return UNKNOWN
        name = dotted(node.func) or ""
        qualified = self.module.qualify(name) or name
        if qualified in NAMESPACES and not node.args:
            # SimpleNamespace(a=1, b=SimpleNamespace(c=False)): its literal fields are known
            # (a field that is not a literal is left out: reading it stays undecided)
            fields = {}
            for kw in node.keywords:
                if kw.arg is None:
                    return Something(True, NAMESPACE)
                value = literal(kw.value, self.module)
                if value is UNKNOWN:
                    value = self.instance(kw.value)
                if value is not UNKNOWN and not isinstance(value, Something):
                    fields[kw.arg] = value
            return types.SimpleNamespace(**fields)
        if qualified in NAMESPACES:
            return Something(True, NAMESPACE)
        if qualified in MOCKS or name == "object":
            return Something(True)
        if name.split(".")[-1][:1].isupper():
            return Something(None)
        return UNKNOWN

    def _qualified(self, node: ast.AST) -> str:
        name = dotted(node)
        return self.module.qualify(name) or name or ""

    def is_namespace(self, call: ast.Call) -> bool:
        """``SimpleNamespace(...)`` (however it was imported)."""
        return self._qualified(call.func) in NAMESPACES

    def is_real_instance(self, call: ast.Call) -> bool:
        """``Cls(...)`` of an imported class: a real object built by ``__init__``."""
        name = dotted(call.func)
        return bool(name and self.module.qualify(name) and name.split(".")[-1][:1].isupper())

    def construction(self, call: ast.Call, scope: str) -> Construction | None:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "__new__":
            return self._new(call, scope)
        qualified = self._qualified(func)
        if qualified in NAMESPACES:
            cons = self._make(call, NAMESPACE, None, scope)
            self._keywords(cons, call, skip=set())
            return cons
        if qualified in MOCKS or qualified in AUTOSPEC:
            spec = next((k.value for k in call.keywords if k.arg in ("spec", "spec_set")), None)
            if spec is None and call.args:
                spec = call.args[0]
            model = dotted(spec) if spec is not None else None
            if model is not None and not model.split(".")[-1][:1].isupper():
                model = None  # spec=some_instance / a list of names: no class to judge
            cons = self._make(call, MOCK, model, scope)
            self._keywords(cons, call, skip=MOCK_OWN)
            return cons
        if isinstance(func, ast.Name) and func.id in self.module.plain_classes:
            cons = self._make(call, PLAIN, None, scope)
            cons.class_names = self.module.plain_classes[func.id]
            return cons
        return None

    def bare_object(self, call: ast.Call, scope: str) -> Construction:
        """``object()`` as an element of a container of stand-ins: provides no name."""
        return self._make(call, PLAIN, None, scope)

    def none_as_self(self, call: ast.Call, model: str, scope: str) -> Construction:
        """``Cls.method(None, ...)``: ``None`` stands in for ``self`` and provides nothing."""
        return self._make(call, NONE, model, scope)

    def _new(self, call: ast.Call, scope: str) -> Construction | None:
        func = call.func
        assert isinstance(func, ast.Attribute)
        owner = dotted(func.value)
        if owner is None:  # super().__new__(cls), factory().__new__(...)
            return None
        cls_node = call.args[0] if owner == "object" and call.args else func.value
        model = dotted(cls_node)
        if model is None or (model.split(".")[0] not in self.module.imports
                             and model.split(".")[0] not in _module_classes(self.module)):
            self.problems.append(Problem(
                "too-dynamic", self.rel, call.lineno,
                f"stand-in built from a class chosen at run time: `{ast.unparse(call)}` "
                f"(in {scope})",
                "build it from an imported class (`Scheduler.__new__(Scheduler)`), or guard "
                "it inside the test with deskcheck.drift_guard.assert_faithful"))
            return None
        return self._make(call, NEW, model, scope)

    def _make(self, call: ast.Call, kind: str, model: str | None, scope: str) -> Construction:
        form = ast.unparse(call).replace("\n", " ")
        if len(form) > 60:
            form = form[:59] + "…"
        cons = Construction(self.rel, call.lineno, kind, form, model, scope)
        self.created.append(cons)
        return cons

    def _keywords(self, cons: Construction, call: ast.Call, skip: set[str]) -> None:
        for kw in call.keywords:
            if kw.arg is None:
                cons.dynamic.append(f"**{ast.unparse(kw.value)} at {self.rel}:{call.lineno}")
            elif kw.arg not in skip:
                text = ast.unparse(kw.value).replace("\n", " ")
                cons.sets[kw.arg] = SetName(kw.arg, kw.value.lineno, text[:60],
                                            literal(kw.value, self.module))


def _module_classes(module: TestModule) -> set[str]:
    return {s.name for s in module.tree.body if isinstance(s, ast.ClassDef)}
