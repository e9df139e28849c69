"""Decorator wrappers: the code that runs around a decorated method, with the same ``self``.

``@scheduler_stage_method("x")`` on ``Scheduler.get_next_batch_to_run`` replaces the method by
``wrapper(self, *args, **kwargs)``, which reads ``self.scheduler_stage_metrics`` before the
real body runs. Those reads belong to the method's surface. Found from source alone: the
decorator's name is resolved in the method's module (a def there, or an import followed under
the same source root), and every function nested in the decorator that is marked
``@functools.wraps`` or takes ``*args`` is a wrapper; its first parameter is ``self``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from deskcheck.static._members import ClassSource, FunctionNode
from deskcheck.static._nodes import subnodes
from deskcheck.static._sources import ParsedFile, Sources
from deskcheck.static._static import StaticIndex

_SKIP = {"property", "staticmethod", "classmethod", "abstractmethod", "cached_property",
         "overload", "override", "wraps", "setter", "getter", "deleter", "final"}


def source_root(klass: ClassSource) -> Path:
    """The folder above ``klass``'s top-level package (module ``a.b.c`` in ``.../a/b/c.py``)."""
    path = Path(klass.file)
    depth = len(klass.module.split("."))
    return path.parents[depth] if path.name == "__init__.py" else path.parents[depth - 1]


def wrapper_functions(klass: ClassSource, node: FunctionNode,
                      cache: dict[str, StaticIndex] | None = None
                      ) -> list[tuple[str, FunctionNode, str]]:
    """(file, wrapper def, label) for each decorator of ``node`` whose source is found
    (``node`` as the class body declares it: a body parsed alone has no decorators)."""
    out: list[tuple[str, FunctionNode, str]] = []
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        dotted = _dotted(target)
        if not dotted or dotted[-1] in _SKIP:
            continue
        found = _resolve(klass, dotted, cache if cache is not None else {})
        if found is None:
            continue
        parsed, fdef = found
        full = parsed.function(fdef)
        for inner in _wrappers_in(full):
            if inner.args.posonlyargs + inner.args.args:
                out.append((parsed.path, inner, f"@{'.'.join(dotted)} wrapper"))
    return out


def _dotted(expr: ast.expr) -> list[str]:
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return []
    parts.append(expr.id)
    return parts[::-1]


def _resolve(klass: ClassSource, dotted: list[str],
             cache: dict[str, StaticIndex]) -> tuple[ParsedFile, FunctionNode] | None:
    tree = klass.parsed.tree if klass.parsed is not None else None
    if tree is None:
        return None
    if len(dotted) == 1:
        local = next((s for s in tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                      and s.name == dotted[0]), None)
        if local is not None:
            return klass.parsed, local
    try:
        root = source_root(klass)
    except IndexError:
        return None
    index = cache.get(str(root))
    if index is None:
        index = cache[str(root)] = StaticIndex([root], Sources())
    module: str | None = klass.module
    for part in dotted[:-1]:
        info = index.module(module) if module else None
        binding = info.bindings.get(part) if info is not None else None
        if binding is None or binding.kind not in ("import", "from"):
            return None
        module = binding.module if binding.kind == "import" else f"{binding.module}.{binding.name}"
    return _function_in(index, module or "", dotted[-1], 0)


def _function_in(index: StaticIndex, module: str, name: str,
                 depth: int) -> tuple[ParsedFile, FunctionNode] | None:
    info = index.module(module)
    if info is None or info.parsed is None or depth > 10:
        return None
    binding = info.bindings.get(name)
    if binding is None:
        return None
    if isinstance(binding.node, ast.FunctionDef | ast.AsyncFunctionDef):
        return info.parsed, binding.node
    if binding.kind == "from" and binding.module and binding.name:
        return _function_in(index, binding.module, binding.name, depth + 1)
    return None


def _wrappers_in(fdef: FunctionNode) -> list[FunctionNode]:
    found: list[FunctionNode] = []
    for sub in subnodes(fdef):
        if sub is fdef or not isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        marked = any(_dotted(d.func if isinstance(d, ast.Call) else d)[-1:] == ["wraps"]
                     for d in sub.decorator_list)
        if marked or sub.args.vararg is not None:
            found.append(sub)
    return found
