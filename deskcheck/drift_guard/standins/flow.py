"""Follow stand-ins through one function body, statement by statement (``ast`` only).

A stand-in is an object bound to a name (or ``self.name``) from a construction
(:mod:`.forms`), a helper factory or a fixture. The walk records the names each statement
sets on it (``obj.x = ...``, ``setattr``, ``configure_mock``), and every place it is driven:
``Cls.method(obj, ...)``, ``obj.method()`` / ``obj.prop`` on a ``__new__`` instance, and
``types.MethodType(Cls.method, obj)``, with the values the test's call passes. Calls of
helper functions of the test file (and of test-class methods through ``self``) are followed,
with stand-in arguments bound to their parameters; what a helper returns flows back to the
caller, a returned tuple position by position. A def nested in a test is walked where it is
called (``asyncio.run(main())``, ``loop.run_until_complete(main())``), closing over the
test's names.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from deskcheck.drift_guard.standins.flow_choices import loop_choices
from deskcheck.drift_guard.standins.flow_drives import Drives, short
from deskcheck.drift_guard.standins.flow_instances import Instances
from deskcheck.drift_guard.standins.flow_refs import _module_value, loop_refs, refs
from deskcheck.drift_guard.standins.flow_state import (
    Container,
    Items,
    Obj,
    PendingDrive,
    Ref,
    Result,
    Scope,
    Unfollowed,
)
from deskcheck.drift_guard.standins.forms import Forms, literal
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule, is_staticmethod
from deskcheck.drift_guard.standins.records import (
    MOCK,
    NAMESPACE,
    PLAIN,
    UNKNOWN,
    Problem,
    SetName,
)

MAX_DEPTH = 6
__all__ = ["Flow", "Items", "Obj", "PendingDrive", "Result", "Scope", "Unfollowed"]


class Flow(Drives, Instances):
    """Walks bodies of one test module. ``locate`` finds helper modules imported from the
    test's own folder (sibling test helpers) so their factories can be followed too."""

    def __init__(self, module: TestModule, rel: str, problems: list[Problem],
                 locate: Callable[[str], tuple[TestModule, str, Flow] | None] | None = None):
        self.module = module
        self.rel = rel
        self.forms = Forms(module, rel, problems)
        self.locate = locate
        self._cache: dict[int, Result] = {}
        self._stack: list[int] = []
        self._methods: dict[str, FunctionNode] = {}

    # -- entry points ----------------------------------------------------------------------
    def run(self, func: FunctionNode, *, klass_methods: dict[str, FunctionNode] | None = None,
            bound: dict[str, list[Obj]] | None = None, label: str | None = None,
            tuples: dict[str, Items] | None = None,
            enclosing: Scope | None = None, literals: dict[str, object] | None = None,
            callables: dict[str, list[Ref]] | None = None,
            containers: dict[str, Container] | None = None) -> Result:
        """Walk ``func`` with ``bound`` names already holding stand-ins (``tuples``: names
        holding tuples of them; ``enclosing``: the scope a nested def closes over;
        ``callables``: names holding production methods; ``containers``: names holding
        containers of stand-ins). Unbound runs are cached: a factory is analysed once however
        many tests call it."""
        key = id(func)
        plain = not bound and not tuples and enclosing is None and not literals \
            and not callables and not containers
        if plain and key in self._cache:
            return self._cache[key]
        if key in self._stack or len(self._stack) >= MAX_DEPTH:
            return Result()
        scope = Scope(label or func.name, bindings=dict(bound or {}), tuples=dict(tuples or {}))
        if enclosing is not None:  # a closure sees the enclosing scope's names
            scope.bindings = {**enclosing.bindings, **scope.bindings}
            scope.tuples = {**enclosing.tuples, **scope.tuples}
            scope.literals = dict(enclosing.literals)
            scope.nested = dict(enclosing.nested)
            scope.callables = dict(enclosing.callables)
            scope.containers = dict(enclosing.containers)
        scope.literals.update(literals or {})  # the literals the caller passed
        scope.callables.update(callables or {})
        scope.containers.update(containers or {})
        self._stack.append(key)
        saved, self._methods = self._methods, klass_methods or {}
        try:
            self._block(func.body, scope)
        finally:
            self._stack.pop()
            self._methods = saved
        scope.result.bindings = scope.bindings
        scope.result.tuples = scope.tuples
        if plain:
            self._cache[key] = scope.result
        return scope.result

    # -- statements ------------------------------------------------------------------------
    def _iterated_literal(self, node: ast.expr, scope: Scope) -> object:
        """What a test's ``for`` loops over, when it is a literal: as written, a local bound to
        one, a module-level ``NAME = [...]``, or the rows a generator helper yields."""
        value = self.literal_value(node, scope)
        if value is UNKNOWN and isinstance(node, ast.Call):
            return self.yielded_rows(node, scope)
        if value is UNKNOWN and isinstance(node, ast.Name) and node.id not in scope.bindings:
            bound = _module_value(node.id, self.module)
            if bound is not None:
                value = self.literal_value(bound, Scope(scope.name))
        return value

    def _block(self, body: list[ast.stmt], scope: Scope) -> None:
        for stmt in body:
            self._stmt(stmt, scope)

    def _stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        for part in _own_parts(stmt):
            self._escapes(part, scope)
        if isinstance(stmt, FunctionNode):
            scope.nested[stmt.name] = stmt  # walked where it is called (asyncio.run(main()))
            return
        if isinstance(stmt, ast.ClassDef):
            return
        if isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self._expr(stmt.value, scope)
                scope.result.returned.extend(self._eval(stmt.value, scope))
                items = self._items(stmt.value, scope)
                if items is not None:
                    scope.result.returned_items.append(items)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield | ast.YieldFrom):
            if stmt.value.value is not None:
                self._expr(stmt.value.value, scope)
                scope.result.returned.extend(self._eval(stmt.value.value, scope))
        elif isinstance(stmt, ast.Assign):
            self._expr(stmt.value, scope)
            objs = self._eval(stmt.value, scope)
            for target in stmt.targets:
                self._assign(target, objs, stmt.value, scope)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._expr(stmt.value, scope)
                self._assign(stmt.target, self._eval(stmt.value, scope), stmt.value, scope)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                self._expr(item.context_expr, scope)
                if item.optional_vars is not None:
                    self._assign(item.optional_vars, self._eval(item.context_expr, scope),
                                 item.context_expr, scope)
            self._block(stmt.body, scope)
        elif isinstance(stmt, ast.If | ast.While):
            self._expr(stmt.test, scope)
            self._block(stmt.body, scope)
            self._block(stmt.orelse, scope)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            self._expr(stmt.iter, scope)
            self._unbind(stmt.target, scope)
            scope.callables.update(loop_refs(stmt.target, stmt.iter, scope, self.module))
            rows = loop_choices(stmt.target, self._iterated_literal(stmt.iter, scope), id(stmt))
            scope.literals.update(rows)
            self._block(stmt.body, scope)
            for name in rows:  # after the loop: its last row, or unbound; not known here
                scope.literals.pop(name, None)
            self._block(stmt.orelse, scope)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            self._block(stmt.body, scope)
            for handler in stmt.handlers:
                self._block(handler.body, scope)
            self._block(stmt.orelse, scope)
            self._block(stmt.finalbody, scope)
        else:
            self._expr(stmt, scope)

    # -- bindings --------------------------------------------------------------------------
    def _key(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("self", "cls"):
            return f"self.{node.attr}"
        return None

    def _held(self, node: ast.AST, scope: Scope) -> list[Obj]:
        key = self._key(node)
        return scope.bindings.get(key, []) if key else []

    def _linked(self, node: ast.AST | None, scope: Scope) -> list[Obj]:
        """The stand-ins ``node`` names: a name holding one, or a field of one that holds
        a namespace stand-in (``obj.req``, ``obj.req.kv``)."""
        if node is None:
            return []
        held = self._held(node, scope)
        if held or not isinstance(node, ast.Attribute):
            return held
        return [o.links[node.attr] for o in self._linked(node.value, scope)
                if node.attr in o.links]

    @staticmethod
    def _link(obj: Obj, name: str, objs: list[Obj]) -> None:
        """``obj.name`` holds ``objs``: one namespace stand-in is listed inside ``obj``."""
        if len(objs) == 1 and objs[0].cons.kind == NAMESPACE and objs[0] is not obj:
            obj.links[name] = objs[0]

    def _escapes(self, stmt: ast.AST, scope: Scope) -> None:
        """A namespace stand-in used whole (passed to a call, bound to another name, put in
        a container, returned) may gain names where deskcheck does not look: it is no
        longer listed inside another stand-in. Reading or setting its attributes, comparing
        it and handing it to a ``SimpleNamespace(...)`` keyword keep it listed."""
        parents: dict[int, ast.AST] = {}
        nodes = [stmt]
        while nodes:
            current = nodes.pop()
            for child in ast.iter_child_nodes(current):
                if isinstance(child, FunctionNode | ast.ClassDef | ast.Lambda):
                    continue
                parents[id(child)] = current
                nodes.append(child)
                if not isinstance(child, ast.Name | ast.Attribute) \
                        or not isinstance(child.ctx, ast.Load):
                    continue
                objs = [o for o in self._linked(child, scope) if o.cons.kind == NAMESPACE]
                if objs and self._whole(child, current, parents):
                    for obj in objs:
                        obj.cons.escaped = True

    def _whole(self, node: ast.AST, parent: ast.AST, parents: dict[int, ast.AST]) -> bool:
        if isinstance(parent, ast.Attribute | ast.Compare | ast.Expr | ast.If | ast.While
                      | ast.Assert | ast.UnaryOp | ast.BoolOp):
            return False
        if isinstance(parent, ast.keyword):
            call = parents.get(id(parent))
            return not (isinstance(call, ast.Call)
                        and self.forms.is_namespace(call))
        return True

    def _unbind(self, target: ast.AST, scope: Scope) -> None:
        for node in ast.walk(target):
            key = self._key(node)
            if key:
                scope.bindings.pop(key, None)
                scope.opaque.pop(key, None)
                scope.tuples.pop(key, None)
                scope.literals.pop(key, None)
                scope.callables.pop(key, None)
                scope.containers.pop(key, None)

    def _spoil(self, node: ast.AST, scope: Scope) -> None:
        """The test adds to the container ``node`` holds (``obj.queue.append(x)``,
        ``states[k] = v``): its elements are no longer known."""
        box = None
        if isinstance(node, ast.Name):
            box = scope.containers.get(node.id)
        elif isinstance(node, ast.Attribute):
            box = next((o.elements[node.attr] for o in self._linked(node.value, scope)
                        if node.attr in o.elements), None)
        if box is not None:
            box.known = False

    def _assign(self, target: ast.AST, objs: list[Obj], value: ast.expr, scope: Scope) -> None:
        key = self._key(target)
        owner = target.value if isinstance(target, ast.Attribute) else None
        held = self._held(owner, scope) if owner is not None else []
        if not held and isinstance(target, ast.Attribute):  # obj.req.kv = value
            held = self._linked(owner, scope)
        if held:  # obj.x = value
            assert isinstance(target, ast.Attribute)
            item = SetName(target.attr, target.lineno, short(value),
                           self._object_value(value, scope))
            box = self._container(value, scope)
            for obj in held:
                obj.record(item)
                if obj.cons.kind != MOCK:
                    self._link(obj, target.attr, objs)
                    if box is not None:
                        obj.elements[target.attr] = box
            return
        if isinstance(target, ast.Subscript):  # obj.queue[0] = x: the elements change
            self._spoil(target.value, scope)
        if isinstance(target, ast.Attribute):  # obj.x.y = value: configures child x of a mock
            root, first = _root_attr(target)
            for obj in self._held(root, scope) if root is not None else []:
                if obj.cons.kind == MOCK and first and not obj.has(first):
                    obj.record(SetName(first, target.lineno, f"{first}.… = {short(value)}"))
        if key is None:
            if isinstance(target, ast.Tuple | ast.List):
                items = self._items(value, scope)
                if items is not None:
                    self._unpack(target, items, scope)
                else:
                    self._unbind(target, scope)
            return
        scope.tuples.pop(key, None)
        scope.literals.pop(key, None)
        box = self._container(value, scope)
        if box is not None:
            scope.containers[key] = box
        else:
            scope.containers.pop(key, None)
        items = self._items(value, scope)
        if items is not None:
            scope.tuples[key] = items
        known = self.literal_value(value, scope, choices=True)
        if known is not UNKNOWN:
            scope.literals[key] = known
        methods = refs(value, scope, self.module)
        if methods:
            scope.callables[key] = methods
        else:
            scope.callables.pop(key, None)
        if objs:
            scope.bindings[key] = objs
            scope.opaque.pop(key, None)
        else:
            scope.bindings.pop(key, None)
            if isinstance(value, ast.Call) and not self.forms.is_real_instance(value):
                scope.opaque[key] = f"{short(value)} ({self.rel}:{value.lineno})"
            else:
                scope.opaque.pop(key, None)

    # -- values ----------------------------------------------------------------------------
    def _eval(self, node: ast.expr, scope: Scope) -> list[Obj]:
        if isinstance(node, ast.Name) or self._key(node):
            return list(self._held(node, scope))
        if isinstance(node, ast.NamedExpr):
            objs = self._eval(node.value, scope)
            self._assign(node.target, objs, node.value, scope)
            return objs
        if isinstance(node, ast.IfExp):
            return self._eval(node.body, scope) + self._eval(node.orelse, scope)
        if isinstance(node, ast.BoolOp):
            return [o for v in node.values for o in self._eval(v, scope)]
        if isinstance(node, ast.Await):
            return self._eval(node.value, scope)
        if isinstance(node, ast.Call):
            return self._call_result(node, scope)
        return []

    def _call_result(self, node: ast.Call, scope: Scope) -> list[Obj]:
        """What a call yields: a new stand-in, or what a followed helper returns (once per
        call node and scope)."""
        found = scope.calls.get(id(node))
        if found is None:
            cons = self.forms.construction(node, scope.name)
            if cons is not None:
                for kw in node.keywords:  # SimpleNamespace(req=req): req holds a stand-in
                    item = cons.sets.get(kw.arg or "")
                    if item is not None and item.value is UNKNOWN:
                        value = self._object_value(kw.value, scope)
                        if value is not UNKNOWN:
                            cons.sets[item.name] = SetName(item.name, item.line, item.text, value)
            if cons is not None and cons.kind == PLAIN:  # FakeReq("r1"): self.rid is "r1"
                cons.fields = self.instance_fields(node, scope)
            found = [Obj(cons, cons.sets)] if cons is not None else self._follow(node, scope)
            if cons is not None and cons.kind != MOCK:
                for kw in node.keywords:  # SimpleNamespace(req=SimpleNamespace(rid="a"))
                    self._link(found[0], kw.arg, self._eval(kw.value, scope) if kw.arg else [])
                    box = self._container(kw.value, scope) if kw.arg else None
                    if box is not None:  # SimpleNamespace(queue=[FakeReq("a")])
                        found[0].elements[kw.arg or ""] = box
            scope.calls[id(node)] = found
        return found

    def _follow(self, node: ast.Call, scope: Scope) -> list[Obj]:
        """Walk a helper the call reaches; its drives join this scope, its return flows back."""
        callee = self._callee(node, scope)
        if callee is None:
            return []
        module, func, through_self, flow = callee
        nested = isinstance(node.func, ast.Name) and node.func.id in scope.nested
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        if through_self and not is_staticmethod(func):
            params = params[1:]
        bound: dict[str, list[Obj]] = {}
        passed: list[Obj] = []
        literals: dict[str, object] = {}
        methods: dict[str, list[Ref]] = {}
        containers: dict[str, Container] = {}
        pairs = [(p, a) for p, a in zip(params, node.args, strict=False)
                 if not isinstance(a, ast.Starred)]
        pairs += [(kw.arg, kw.value) for kw in node.keywords if kw.arg]
        for param, arg in pairs:
            held = self._eval(arg, scope)
            if held:
                bound[param] = held
                passed += held
            elif (value := self.literal_value(arg, scope, choices=True)) is not UNKNOWN:
                literals[param] = value  # _check(align=4096): align is 4096 in the helper
            if flow is self and (held_methods := refs(arg, scope, self.module)):
                methods[param] = held_methods  # check(s, Scheduler.run): run drives it
            if (box := self._container(arg, scope)) is not None:
                containers[param] = box  # make(states={"r1": object()})
        passed_names = {p for p, _a in pairs} | {kw.arg for kw in node.keywords if kw.arg}
        if not any(isinstance(a, ast.Starred) for a in node.args) \
                and all(kw.arg for kw in node.keywords):  # no *args / **kwargs: the rest default
            for param, default in _defaults(func):
                if param not in passed_names and (
                        value := literal(default, module)) is not UNKNOWN:
                    literals[param] = value  # make(*, waiting=()): `waiting` is () unless passed
        result = flow.run(func, klass_methods=self._methods if through_self or nested else None,
                          bound=bound, enclosing=scope if nested else None, literals=literals,
                          callables=methods, containers=containers,
                          label=f"{scope.name} > {func.name}" if nested else None)
        scope.result.drives.extend(result.drives)
        scope.result.unfollowed.extend(result.unfollowed)
        forks: dict[int, Obj] = {}

        def handed(obj: Obj) -> Obj:
            if nested or any(obj is p for p in passed):
                return obj
            if id(obj) not in forks:
                if func.name not in obj.cons.through:
                    obj.cons.through.append(func.name)
                forks[id(obj)] = obj.fork()
            return forks[id(obj)]

        returned = [handed(obj) for obj in result.returned]
        widths = {len(items) for items in result.returned_items}
        if len(widths) == 1:
            merged: Items = [[] for _ in range(widths.pop())]
            for items in result.returned_items:
                for i, objs in enumerate(items):
                    merged[i] += [handed(o) for o in objs]
            scope.call_items[id(node)] = merged
        return returned

    def _callee(self, node: ast.Call, scope: Scope | None = None
                ) -> tuple[TestModule, FunctionNode, bool, Flow] | None:
        func = node.func
        if isinstance(func, ast.Name):
            if scope is not None and func.id in scope.nested:
                return self.module, scope.nested[func.id], False, self
            if func.id in self.module.functions:
                return self.module, self.module.functions[func.id], False, self
            target = self.module.imports.get(func.id)
            if target and self.locate is not None:
                found = self.locate(target)
                if found is not None:
                    module, name, flow = found
                    if name in module.functions:
                        return module, module.functions[name], False, flow
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in ("self", "cls") and func.attr in self._methods:
            return self.module, self._methods[func.attr], True, self
        return None


def _defaults(func: FunctionNode) -> list[tuple[str, ast.expr]]:
    """(parameter, default) of every parameter of ``func`` that has a default."""
    args = func.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults,
                     strict=True))
    pairs += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
              if d is not None]
    return pairs


def _own_parts(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement evaluates itself, without the bodies it holds (walked on their own)."""
    if isinstance(stmt, FunctionNode | ast.ClassDef | ast.Try | ast.TryStar):
        return []
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return list(stmt.items)
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    return [stmt]


def _root_attr(node: ast.Attribute) -> tuple[ast.AST | None, str | None]:
    """For ``v.x.y.z`` return (``v``, ``"x"``)."""
    chain: list[str] = []
    current: ast.AST = node
    while isinstance(current, ast.Attribute):
        chain.append(current.attr)
        current = current.value
    if len(chain) < 2:
        return None, None
    return current, chain[-1]
