"""Every ``self.X`` one function touches, including inside its closures, lambdas and
comprehensions. Results are cached per parsed function node."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from deskcheck.drift_guard._members import FunctionNode

READ, WRITE, RMW, CALL, GUARDED, DELETE = "read", "write", "rmw", "call", "guarded", "delete"
_FACTS: dict[int, FunctionFacts] = {}
_SWALLOWING = {"AttributeError", "Exception", "BaseException", "LookupError"}


@dataclass(frozen=True)
class Access:
    """One touch of ``self.<name>`` (``name`` may be a chain such as ``ps.tp_rank``)."""

    name: str
    kind: str
    line: int
    after_write: bool = False
    swallowed: bool = False  # inside a try whose handler would catch an AttributeError


@dataclass(frozen=True)
class FunctionFacts:
    accesses: tuple[Access, ...]
    super_uses: tuple[tuple[str, str, int], ...]  # (name, kind, line) of super().name
    dynamic_lines: tuple[int, ...]  # getattr(self, <not a literal>)


def function_facts(node: FunctionNode, self_name: str | None) -> FunctionFacts:
    key = id(node)
    cached = _FACTS.get(key)
    if cached is None:
        cached = _Collector(node, self_name).facts()
        _FACTS[key] = cached
    return cached


def first_param(node: FunctionNode) -> str | None:
    params = node.args.posonlyargs + node.args.args
    return params[0].arg if params else None


def _bound_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return names


class _Collector:
    def __init__(self, node: FunctionNode, self_name: str | None) -> None:
        self.node = node
        self.accesses: list[Access] = []
        self.super_uses: list[tuple[str, str, int]] = []
        self.dynamic: list[int] = []
        self.top_writes: dict[str, int] = {}
        self.self_names = {self_name} if self_name else set()
        self.swallowing = 0  # depth of enclosing try bodies that catch AttributeError

    def facts(self) -> FunctionFacts:
        if self.self_names:
            for stmt in self.node.body:
                self._top_level_writes(stmt)
                self.visit(stmt, self.self_names)
        out = []
        for acc in self.accesses:
            parts = acc.name.split(".")
            writes = [self.top_writes.get(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
            late = acc.kind in (READ, CALL) and any(w is not None and acc.line > w for w in writes)
            out.append(Access(acc.name, acc.kind, acc.line, late, acc.swallowed))
        return FunctionFacts(tuple(out), tuple(self.super_uses), tuple(self.dynamic))

    def _top_level_writes(self, stmt: ast.stmt) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else (
            [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else [])
        for target in targets:
            for sub in ast.walk(target):
                chain = self._chain(sub, self.self_names)
                if chain is not None and isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    self.top_writes.setdefault(".".join(chain), stmt.lineno)

    # -- helpers -------------------------------------------------------------------------
    def _is_self(self, node: ast.expr, selves: set[str]) -> bool:
        if isinstance(node, ast.Name) and node.id in selves:
            return True
        # type(self).X and self.__class__.X read class attributes of the same object
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "type" and len(node.args) == 1
                and isinstance(node.args[0], ast.Name) and node.args[0].id in selves)

    def _chain(self, node: ast.expr, selves: set[str]) -> list[str] | None:
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not attrs or not self._is_self(node, selves):
            return None
        attrs.reverse()
        if attrs[0] == "__class__":
            attrs = attrs[1:]
        return attrs or None

    def _record(self, chain: list[str], last_kind: str, line: int) -> None:
        for i in range(1, len(chain) + 1):
            kind = last_kind if i == len(chain) else READ
            self.accesses.append(Access(".".join(chain[:i]), kind, line,
                                        swallowed=self.swallowing > 0))

    def _super_name(self, node: ast.expr) -> str | None:
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "super"):
            return node.attr
        return None

    # -- traversal -----------------------------------------------------------------------
    def visit(self, node: ast.AST, selves: set[str]) -> None:
        if isinstance(node, ast.Try | ast.TryStar) and any(_swallows(h) for h in node.handlers):
            self.swallowing += 1
            for stmt in node.body:
                self.visit(stmt, selves)
            self.swallowing -= 1
            for stmt in [*node.handlers, *node.orelse, *node.finalbody]:
                self.visit(stmt, selves)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = selves - _bound_names(node.args)
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d]:
                self.visit(default, selves)
            if isinstance(node, ast.Lambda):
                self.visit(node.body, inner)
            else:
                for deco in node.decorator_list:
                    self.visit(deco, selves)
                for stmt in node.body:
                    self.visit(stmt, inner)
            return
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in selves:
            for target in node.targets:  # alias = self
                if isinstance(target, ast.Name):
                    selves.add(target.id)
        if isinstance(node, ast.AugAssign):
            chain = self._chain(node.target, selves)
            if chain is not None:
                self._record(chain, RMW, node.lineno)
                self.visit(node.value, selves)
                return
        if isinstance(node, ast.Call) and self._visit_call(node, selves):
            return
        if isinstance(node, ast.Attribute):
            chain = self._chain(node, selves)
            if chain is not None:
                kind = {ast.Store: WRITE, ast.Del: DELETE}.get(type(node.ctx), READ)
                self._record(chain, kind, node.lineno)
                return
            name = self._super_name(node)
            if name is not None:
                kind = {ast.Store: WRITE, ast.Del: DELETE}.get(type(node.ctx), READ)
                self.super_uses.append((name, kind, node.lineno))
                return
        for child in ast.iter_child_nodes(node):
            self.visit(child, selves)

    def _visit_call(self, node: ast.Call, selves: set[str]) -> bool:
        func = node.func
        chain = self._chain(func, selves) if isinstance(func, ast.Attribute) else None
        if chain is not None:
            self._record(chain, CALL, node.lineno)
        elif (name := self._super_name(func)) is not None:
            self.super_uses.append((name, CALL, node.lineno))
        elif (isinstance(func, ast.Name) and func.id in {"getattr", "hasattr", "setattr", "delattr"}
              and len(node.args) >= 2 and self._is_self(node.args[0], selves)):
            key = node.args[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                kind = {"setattr": WRITE, "delattr": DELETE, "hasattr": GUARDED}.get(func.id, READ)
                if func.id == "getattr" and (len(node.args) > 2 or node.keywords):
                    kind = GUARDED
                self._record([key.value], kind, node.lineno)
            else:
                self.dynamic.append(node.lineno)
            for arg in node.args[1:]:
                self.visit(arg, selves)
            return True
        else:
            return False
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(arg, selves)
        return True


def _swallows(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")) in _SWALLOWING
               for n in names)


def clear_cache() -> None:
    _FACTS.clear()
