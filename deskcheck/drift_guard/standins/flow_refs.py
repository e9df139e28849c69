"""Production methods held in names of a test: ``loop = Scheduler.event_loop_normal``, a loop
over a literal tuple of them, a helper's parameter, or a parametrized test's parameter
(``pytest.mark.parametrize``, ``parameterized.expand``). Calling such a name with a stand-in
first (``loop(scheduler)``) drives each method it may hold."""

from __future__ import annotations

import ast

from deskcheck.drift_guard.standins.flow_state import Ref, Scope
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule, dotted

_PARAMETRIZE = ("pytest.mark.parametrize",)
_PARAMETERIZED = ("parameterized.expand", "parameterized.parameterized.expand",
                  "parameterized", "parameterized.parameterized")
_PARAM_CALLS = ("pytest.param", "parameterized.param", "parameterized.parameterized.param")


def refs(node: ast.AST | None, scope: Scope, module: TestModule) -> list[Ref]:
    """The production methods ``node`` names: ``Cls.method`` with ``Cls`` imported, or a name
    holding some."""
    if isinstance(node, ast.Name):
        return list(scope.callables.get(node.id, ()))
    if isinstance(node, ast.Attribute):
        model = dotted(node.value)
        if model and model.split(".")[0] not in ("self", "cls") \
                and model.split(".")[-1][:1].isupper() and module.qualify(model):
            return [(model, node.attr)]
    return []


def loop_refs(target: ast.AST, iterated: ast.AST, scope: Scope, module: TestModule
              ) -> dict[str, list[Ref]]:
    """``for loop in (A.run, B.run)`` / ``for name, loop in [("a", A.run), ...]``: the methods
    each loop variable may hold, when the iterated value is a literal tuple or list."""
    if not isinstance(iterated, ast.Tuple | ast.List | ast.Set):
        return {}
    return bind_rows(_target_names(target), [_row(e) for e in iterated.elts], scope, module)


def bind_rows(names: list[str | None], rows: list[list[ast.expr] | None], scope: Scope,
              module: TestModule) -> dict[str, list[Ref]]:
    """Per name, the union over ``rows`` of the methods its position holds; a name whose
    position holds something else in any row holds nothing known."""
    out: dict[str, list[Ref]] = {}
    spoiled: set[str] = set()
    for row in rows:
        if row is None or len(row) != len(names):
            return {}
        for name, value in zip(names, row, strict=True):
            if name is None or name in spoiled:
                continue
            found = refs(value, scope, module)
            if not found:
                spoiled.add(name)
                out.pop(name, None)
                continue
            held = out.setdefault(name, [])
            held += [r for r in found if r not in held]
    return out


def tables(func: FunctionNode, module: TestModule, is_method: bool
           ) -> list[tuple[ast.Call, list[str], list[list[ast.expr] | None]]]:
    """A parametrized test's tables, one per decorator (``pytest.mark.parametrize``,
    ``parameterized.expand``): the decorator, the parameters it fills, its rows."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if is_method and params:
        params = params[1:]
    out: list[tuple[ast.Call, list[str], list[list[ast.expr] | None]]] = []
    for decorator in func.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        name = module.qualify(dotted(decorator.func)) or dotted(decorator.func) or ""
        if name in _PARAMETRIZE and len(decorator.args) >= 2:
            names = _argnames(decorator.args[0])
            rows = _rows(decorator.args[1], module, single=len(names) == 1)
        elif name in _PARAMETERIZED and decorator.args:
            rows = _rows(decorator.args[0], module, single=False)
            width = {len(r) for r in rows if r is not None}
            names = list(params[: width.pop()]) if len(width) == 1 else []
        else:
            continue
        if names and rows:
            out.append((decorator, list(names), rows))
    return out


def parametrized(func: FunctionNode, module: TestModule, is_method: bool
                 ) -> dict[str, list[Ref]]:
    """The production methods a parametrized test's parameters may hold, from its
    ``pytest.mark.parametrize`` and ``parameterized.expand`` decorators."""
    out: dict[str, list[Ref]] = {}
    empty = Scope(func.name)
    for _decorator, names, rows in tables(func, module, is_method):
        out.update(bind_rows(names, rows, empty, module))
    return out


def _argnames(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, ast.Tuple | ast.List):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _rows(node: ast.expr, module: TestModule, *, single: bool) -> list[list[ast.expr] | None]:
    """The rows of a parametrize table: a literal list/tuple, or a module-level name bound to
    one; ``pytest.param(...)``/``param(...)`` rows give their positional values."""
    if isinstance(node, ast.Name):
        node = _module_value(node.id, module) or node
    if not isinstance(node, ast.Tuple | ast.List):
        return []
    out: list[list[ast.expr] | None] = []
    for element in node.elts:
        if isinstance(element, ast.Call):
            called = module.qualify(dotted(element.func)) or dotted(element.func) or ""
            if called in _PARAM_CALLS or called.split(".")[-1] == "param":
                out.append([a for a in element.args if not isinstance(a, ast.Starred)])
                continue
        out.append([element] if single else _row(element))
    return out


def _row(element: ast.expr) -> list[ast.expr] | None:
    if isinstance(element, ast.Tuple | ast.List):
        if any(isinstance(e, ast.Starred) for e in element.elts):
            return None
        return list(element.elts)
    return [element]


def _target_names(target: ast.AST) -> list[str | None]:
    if isinstance(target, ast.Tuple | ast.List):
        return [e.id if isinstance(e, ast.Name) else None for e in target.elts]
    return [target.id if isinstance(target, ast.Name) else None]


def _module_value(name: str, module: TestModule) -> ast.expr | None:
    """The value a module-level ``NAME = [...]`` binds (the last such assignment)."""
    found: ast.expr | None = None
    for stmt in module.tree.body:
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == name and stmt.value is not None:
            found = stmt.value
    return found
