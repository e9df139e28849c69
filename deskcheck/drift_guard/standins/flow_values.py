"""Values the flow walk reads besides stand-ins: tuples of stand-ins (``stub, alloc =
make()``, a fixture returning a pair) and the literals a test passes to a driven method."""

from __future__ import annotations

import ast

from deskcheck.drift_guard.standins.flow_state import Container, Items, Obj, Scope
from deskcheck.drift_guard.standins.forms import Forms, literal
from deskcheck.drift_guard.standins.module import FunctionNode, TestModule, dotted
from deskcheck.drift_guard.standins.records import (
    NAMESPACE,
    PLAIN,
    UNKNOWN,
    Choices,
    Constructed,
    SetName,
)
from deskcheck.static import CallArgs, Unknown


class Values:
    """Mixed into :class:`~.flow.Flow` (which provides ``_eval``, ``_key``, ``_unbind``,
    ``_call_result``, ``_iterated_literal``, ``_callee``, ``module``, ``rel`` and
    ``_stack``, the functions being walked)."""

    module: TestModule
    rel: str
    _stack: list[int]
    forms: Forms

    def _eval(self, node: ast.expr, scope: Scope) -> list[Obj]:
        raise NotImplementedError

    def _key(self, node: ast.AST) -> str | None:
        raise NotImplementedError

    def _unbind(self, target: ast.AST, scope: Scope) -> None:
        raise NotImplementedError

    def _call_result(self, node: ast.Call, scope: Scope) -> list[Obj]:
        raise NotImplementedError

    def _drive(self, scope: Scope, obj: Obj, method: str, model: str, how: str,
               node: ast.AST, args: CallArgs | None = None, argument: str = "",
               receiver: tuple[SetName, ...] = ()) -> None:
        raise NotImplementedError

    def _items(self, node: ast.expr, scope: Scope) -> Items | None:
        """The stand-ins at each position of a tuple/list value, when any position holds
        one: a literal ``(stub, alloc)``, a followed call returning one, a name bound to one."""
        if isinstance(node, ast.Tuple | ast.List) \
                and not any(isinstance(e, ast.Starred) for e in node.elts):
            items = [self._eval(e, scope) for e in node.elts]
            return items if any(items) else None
        if isinstance(node, ast.Await):
            return self._items(node.value, scope)
        if isinstance(node, ast.Call):
            self._call_result(node, scope)
            return scope.call_items.get(id(node))
        key = self._key(node)
        return scope.tuples.get(key) if key else None

    def _unpack(self, target: ast.Tuple | ast.List, items: Items, scope: Scope) -> None:
        elts = target.elts
        if len(elts) != len(items) or any(isinstance(e, ast.Starred) for e in elts):
            self._unbind(target, scope)
            return
        for elt, objs in zip(elts, items, strict=True):
            key = self._key(elt)
            self._unbind(elt, scope)
            if key is not None and objs:
                scope.bindings[key] = list(objs)

    def _container(self, node: ast.expr, scope: Scope) -> Container | None:
        """The container of stand-ins ``node`` is: a list, tuple or set literal, a dict
        literal's values or a comprehension whose every element is a stand-in or a bare
        ``object()`` (``[FakeReq(r) for r in rids]``, ``{"r1": object()}``), or a name
        holding one. Empty or partly unknown: None (its elements are not judged)."""
        if isinstance(node, ast.Name):
            return scope.containers.get(node.id)
        if (copied := self._copied(node)) is not None:  # list(reqs): the same elements, in order
            return self._container(copied, scope)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            elements: list[ast.expr] = list(node.elts)
        elif isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):  # {**other}: not all known
                return None
            elements = list(node.values)
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            elements = [node.elt]
        elif isinstance(node, ast.DictComp):
            elements = [node.value]
        else:
            return None
        objs: list[Obj] = []
        for element in elements:
            found = [] if isinstance(element, ast.Starred) else self._element(element, scope)
            if not found:
                return None
            objs += found
        return Container(objs, value=self._contents(node, objs, scope)) if objs else None

    def _copied(self, node: ast.expr) -> ast.expr | None:
        """``x`` of ``list(x)`` / ``tuple(x)`` / ``deque(x)`` (``collections.deque``): a copy
        holding the same elements in the same order; None for anything else."""
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords \
                or isinstance(node.args[0], ast.Starred):
            return None
        name = dotted(node.func)
        if name in ("list", "tuple") or name is not None \
                and self.module.qualify(name) == "collections.deque":
            return node.args[0]
        return None

    def _element(self, node: ast.expr, scope: Scope) -> list[Obj]:
        if isinstance(node, ast.Call) and dotted(node.func) == "object" \
                and not node.args and not node.keywords:
            found = scope.calls.get(id(node))
            if found is None:  # a bare object(): provides no name
                cons = self.forms.bare_object(node, scope.name)
                found = scope.calls[id(node)] = [Obj(cons, cons.sets)]
            return found
        return self._eval(node, scope)

    def literal_value(self, node: ast.expr, scope: Scope, *, choices: bool = False) -> object:
        """A literal the test passes: as written, or a local bound to one earlier. A name
        bound to one literal per row (a literal loop's variable, a parametrized column) is
        its :class:`Choices` where ``choices`` is asked for, else not a known literal."""
        if isinstance(node, ast.Name) and node.id in scope.literals:
            value = scope.literals[node.id]
            return UNKNOWN if isinstance(value, Choices) and not choices else value
        return literal(node, self.module)

    def yielded_rows(self, node: ast.expr, scope: Scope) -> object:
        """The rows a test's loop gets from a generator helper it calls (``for abort,
        expected in self.cases():``), when its body only loops over literal rows and yields:
        a tuple of the yielded values, each a literal, a production record built from
        literals (:class:`Constructed`) or a tuple of those; a top-level position holding
        anything else is ``UNKNOWN`` in that row. Anything else in the body (a condition,
        an assignment, a ``return``), more than :data:`MAX_YIELDED` rows or a helper taking
        arguments: ``UNKNOWN``."""
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return UNKNOWN
        callee = self._callee(node, scope)
        if callee is None:
            return UNKNOWN
        module, func, _through_self, _flow = callee
        if module is not self.module or not _is_generator(func) or id(func) in self._stack:
            return UNKNOWN  # a helper looping over its own rows yields nothing known
        rows: list[object] = []
        self._stack.append(id(func))
        try:
            walked = self._yields(func.body, Scope(scope.name), rows)
        finally:
            self._stack.pop()
        return tuple(rows) if walked else UNKNOWN

    def _yields(self, body: list[ast.stmt], scope: Scope, rows: list[object]) -> bool:
        for stmt in body:
            if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr)
                                               and isinstance(stmt.value, ast.Constant)):
                continue  # a docstring
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield):
                if stmt.value.value is None or len(rows) >= MAX_YIELDED:
                    return False
                rows.append(self._row_value(stmt.value.value, scope, top=True))
                continue
            if not isinstance(stmt, ast.For) or stmt.orelse:
                return False
            iterated = self._iterated_literal(stmt.iter, scope)  # a NAME = [...] too
            names = _names(stmt.target)
            if not isinstance(iterated, tuple | list) or names is None:
                return False
            for item in iterated:
                if len(names) == 1:
                    values: tuple = (item,)
                elif isinstance(item, tuple | list) and len(item) == len(names):
                    values = tuple(item)
                else:
                    return False
                inner = Scope(scope.name, literals={**scope.literals,
                                                    **dict(zip(names, values, strict=True))})
                if not self._yields(stmt.body, inner, rows):
                    return False
        return True

    def _row_value(self, node: ast.expr, scope: Scope, *, top: bool = False) -> object:
        """A yielded value: a literal, a record built from literals, or a tuple of those
        (at the top, a position holding anything else is ``UNKNOWN``; deeper, the whole)."""
        value = self.literal_value(node, scope)
        if value is not UNKNOWN:
            return value
        if isinstance(node, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in node.elts):
            items = tuple(self._row_value(e, scope) for e in node.elts)
            return items if top or UNKNOWN not in items else UNKNOWN
        return self._constructed(node, scope, f"{self.rel}:{node.lineno}")

    def call_values(self, node: ast.Call, skip: int, scope: Scope) -> CallArgs:
        """What the test's call passes to the driven method (after ``skip`` leading
        positionals), each unknown value saying what it is and where."""
        where = f"{self.rel}:{node.lineno}"

        def value(arg: ast.expr) -> object:
            got = self.literal_value(arg, scope, choices=True)
            if got is UNKNOWN:
                got = self._constructed(arg, scope, where)
            return Unknown(f"the test passes `{_short(arg, 40)}` at {where}") \
                if got is UNKNOWN else got

        positional: list[object] = []
        star = False
        for arg in node.args[skip:]:
            if isinstance(arg, ast.Starred):
                star = True
                break
            positional.append(value(arg))
        keywords = tuple((k.arg, value(k.value)) for k in node.keywords if k.arg)
        return CallArgs(tuple(positional), keywords, star,
                        any(k.arg is None for k in node.keywords), where)

    def _constructed(self, node: ast.expr, scope: Scope, where: str) -> object:
        """``Cls(a=1, ...)`` of a class the test file imports (its name capitalized), with
        plain arguments: a :class:`Constructed` (its literal arguments kept, the others
        unknown), resolved into fields when judged; else ``UNKNOWN``."""
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            return UNKNOWN
        name = dotted(node.func) or ""
        qualified = self.module.qualify(name)
        if qualified is None or not name.rpartition(".")[2][:1].isupper():
            return UNKNOWN

        def one(arg: ast.expr) -> object:
            got = self.literal_value(arg, scope)
            return Unknown(f"`{_short(arg, 40)}` passed at {where} is not a literal") \
                if got is UNKNOWN else got

        return Constructed(qualified, tuple(one(a) for a in node.args),
                           tuple((k.arg, one(k.value)) for k in node.keywords if k.arg), where)

    def _object_value(self, node: ast.expr, scope: Scope) -> object:
        """A literal, else an object known to exist (a stand-in, a constructor's instance:
        never None), else ``UNKNOWN``."""
        value = self.literal_value(node, scope)
        if value is not UNKNOWN:
            return value
        copied = self._copied(node)
        if copied is not None and (inner := self.literal_value(copied, scope)) is not UNKNOWN:
            try:  # list(()) / tuple(rows): a copy of a literal (a deque read as a tuple)
                return list(inner) if dotted(node.func) == "list" \
                    else tuple(inner)  # type: ignore[arg-type,attr-defined]
            except TypeError:  # not iterable
                return UNKNOWN
        held = self._eval(node, scope) if isinstance(node, ast.Name | ast.Attribute) else []
        made = scope.calls.get(id(node), []) if isinstance(node, ast.Call) else []
        if len(made) == 1 and made[0].cons.kind == PLAIN and made[0].cons.class_names:
            held = made  # q.head = FakeReq("a"): the instance with the fields it holds
        if held:
            return self.forms.something(held[0].cons)
        box = self._container(node, scope)
        if box is not None and box.value is not UNKNOWN:
            return box.value
        return self.forms.instance(node)

    def _contents(self, node: ast.expr, elements: list[Obj], scope: Scope) -> object:
        """A container of stand-ins by its length (and a dict by its literal keys): a tuple
        (dict) of the objects, each never None, so ``for req in self.queue`` and ``if
        self.queue`` are decided; ``UNKNOWN`` when the length is not known."""
        objs = tuple(self.forms.something(o.cons) for o in elements)
        if isinstance(node, ast.List | ast.Tuple):
            return objs
        if isinstance(node, ast.Dict):
            keys = [self.literal_value(k, scope) for k in node.keys if k is not None]
            if len(keys) == len(objs) and UNKNOWN not in keys:
                try:
                    return dict(zip(keys, objs, strict=True))
                except TypeError:  # an unhashable key
                    return UNKNOWN
            return UNKNOWN
        if isinstance(node, ast.ListComp | ast.GeneratorExp) and len(node.generators) == 1 \
                and not node.generators[0].ifs and not node.generators[0].is_async:
            iterated = self._iterated_literal(node.generators[0].iter, scope)
            if isinstance(iterated, tuple | list | str | dict | set | frozenset):
                return objs * len(iterated)
        return UNKNOWN

    def _arguments(self, node: ast.Call, skip: int, method: str, model: str,
                   scope: Scope, receiver: Obj | None = None) -> None:
        """``SimpleNamespace``/plain objects passed as ARGUMENTS (not as self) to a production
        method stand in for what that parameter receives: each is a drive of its own."""
        passed = [(str(i), arg) for i, arg in enumerate(node.args[skip:])
                  if not isinstance(arg, ast.Starred)]
        passed += [(kw.arg, kw.value) for kw in node.keywords if kw.arg]
        for param, arg in passed:
            for obj in self._eval(arg, scope):
                if obj.cons.kind in (NAMESPACE, PLAIN):
                    held = tuple({**receiver.cons.sets, **receiver.extra}.values()) \
                        if receiver is not None else ()
                    self._drive(scope, obj, method, model, "argument", node,
                                self.call_values(node, skip, scope), argument=param,
                                receiver=held)


MAX_YIELDED = 64  # a generator helper yielding more rows than this yields nothing known


def _is_generator(func: FunctionNode) -> bool:
    """Whether ``func`` itself yields (not a def or lambda nested in it)."""
    nodes: list[ast.AST] = list(func.body)
    while nodes:
        current = nodes.pop()
        if isinstance(current, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(current, FunctionNode | ast.ClassDef | ast.Lambda):
            nodes.extend(ast.iter_child_nodes(current))
    return False


def _names(target: ast.AST) -> list[str] | None:
    """The plain names a ``for`` target binds, in order; None for any other target."""
    elts = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
    if not all(isinstance(e, ast.Name) for e in elts):
        return None
    return [e.id for e in elts]  # type: ignore[attr-defined]


def _short(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
