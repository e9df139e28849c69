"""The traversal that finds every ``self.X`` one function touches, including inside its
closures, lambdas and comprehensions, with the chain of branch conditions each touch sits
under (``if``/``elif``/``else``, early ``return``s, loops, ``except`` handlers, ``and``/``or``,
ternaries, ``match``) and the line of its statement (what coverage.py records). Touches through
a parameter are kept apart (``@req.session``), and each ``self.m(...)`` call records the self
chains it passes, so a caller's walk can name them (``queue.[].session``)."""

from __future__ import annotations

import ast
from dataclasses import replace

from deskcheck.static._context_reads import ContextReads
from deskcheck.static._facts import (
    CALL,
    DELETE,
    ELEMENT,
    GUARDED,
    PARAM,
    READ,
    RMW,
    WRITE,
    Access,
    Cond,
    ContextRead,
    FunctionFacts,
)
from deskcheck.static._members import FunctionNode
from deskcheck.static._nodes import subnodes

_SWALLOWING = {"AttributeError", "Exception", "BaseException"}  # what catches AttributeError
_ONE_ELEMENT = {"get", "pop", "popleft"}  # self.f.get(k), .pop(), .popleft(): one element
_SAME_ELEMENTS = {"list", "tuple", "reversed", "sorted", "iter"}  # for x in list(self.f)


def _bound_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return names


class Collector(ContextReads):
    def __init__(self, node: FunctionNode, self_name: str | None) -> None:
        self.node = node
        self.accesses: list[Access] = []
        self.param_accesses: list[Access] = []  # through a parameter: `@req.session`
        self.super_uses: list[tuple[str, str, int]] = []
        self.dynamic: list[int] = []
        self.top_writes: dict[str, int] = {}
        self.self_names = {self_name} if self_name else set()
        self.swallowing = 0  # depth of enclosing try bodies that catch AttributeError
        self.conds: list[Cond] = []
        self.stmt_line = getattr(node, "lineno", 0)
        self.context: list[ContextRead] = []
        self.super_conds: list[tuple[Cond, ...]] = []
        self.super_swallowed: list[bool] = []
        self.globals: set[str] = set()
        self.aliases: dict[str, str] = {}
        # local = an element expression (self.states.get(rid)): its value is decided from it
        self.element_values: dict[str, ast.expr] = {}
        self.locals: set[str] = set()
        self.loop_names: dict[str, tuple[str, ...]] = {}  # for n in ("a", "b"): n is one of

    def facts(self) -> FunctionFacts:
        for stmt in self.node.body:
            self._top_level_writes(stmt)
        self.locals = _bound_names(self.node.args) | {
            n.id for n in subnodes(self.node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}
        args = self.node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:  # req.x: a touch of @req.x
            if arg.arg not in self.self_names:
                self.aliases[arg.arg] = PARAM + arg.arg
        body = [self.node.body] if isinstance(self.node, ast.Lambda) else self.node.body
        self.visit_block(body, set(self.self_names))
        out = []
        for acc in self.accesses:
            parts = acc.name.split(".")
            writes = [self.top_writes.get(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
            late = acc.kind in (READ, CALL) and any(w is not None and acc.line > w for w in writes)
            out.append(replace(acc, after_write=late))
        return FunctionFacts(tuple(out), tuple(self.super_uses), tuple(self.dynamic),
                             tuple(self.super_conds), tuple(self.context),
                             tuple(self.super_swallowed), tuple(self.param_accesses))

    def _self_aliases(self) -> tuple[tuple[str, str], ...]:
        """The locals bound to a self chain (a parameter's own root is not one: a condition
        on it is decided from the call's values, not the stand-in's)."""
        return tuple((k, v) for k, v in self.aliases.items() if not v.startswith(PARAM))

    def _passed(self, node: ast.expr, selves: set[str]) -> str | None:
        """The self chain an argument passes (``self.queue``, ``self.queue.pop()``, a local
        or parameter bound to one), or None."""
        chain = self._element(node, selves) if isinstance(node, ast.Subscript | ast.Call | ast.IfExp) \
            and not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)) \
            else self._held(node, selves)
        return ".".join(chain) if chain else None

    def _call_args(self, node: ast.Call, selves: set[str]) -> tuple[tuple[int | str, str], ...]:
        """What a ``self.m(...)`` call passes that is a self chain, by position or keyword
        (positions stop at the first ``*args``)."""
        out: list[tuple[int | str, str]] = []
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if (chain := self._passed(arg, selves)) is not None:
                out.append((i, chain))
        for kw in node.keywords:
            if kw.arg is not None and (chain := self._passed(kw.value, selves)) is not None:
                out.append((kw.arg, chain))
        return tuple(out)

    def _super_use(self, name: str, kind: str, line: int) -> None:
        """``super().name``: its conditions, and whether a try around it swallows errors."""
        self.super_uses.append((name, kind, line))
        self.super_conds.append(tuple(self.conds))
        self.super_swallowed.append(self.swallowing > 0)

    def _top_level_writes(self, stmt: ast.stmt) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else (
            [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else [])
        for target in targets:
            for sub in subnodes(target):
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
        if attrs and isinstance(node, ast.Name) and node.id not in selves \
                and node.id in self.aliases:  # req = self.pending; req.kv: self.pending.kv
            return self.aliases[node.id].split(".") + attrs[::-1]
        if attrs and isinstance(node, ast.Subscript | ast.Call) \
                and not self._is_self(node, selves):  # self.queue[0].rid (not type(self).x)
            element = self._element(node, selves)
            return element + attrs[::-1] if element is not None else None
        if not attrs or not self._is_self(node, selves):
            return None
        attrs.reverse()
        if attrs[0] == "__class__":
            attrs = attrs[1:]
        return attrs or None

    def _held(self, node: ast.expr, selves: set[str]) -> list[str] | None:
        """The self chain ``node`` is: ``self.queue``, a local bound to one, or a slice of
        either (``self.queue[1:]`` holds the same elements)."""
        if isinstance(node, ast.Name) and node.id not in selves and node.id in self.aliases:
            return self.aliases[node.id].split(".")
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            return self._held(node.value, selves)
        return self._chain(node, selves) if isinstance(node, ast.Attribute) else None

    def _element(self, node: ast.expr, selves: set[str]) -> list[str] | None:
        """The chain of the element ``node`` yields: ``self.f[k]``, ``self.f.get(k)``,
        ``self.f.pop(k)``, ``self.f.pop()``, ``self.f.popleft()`` (``f.[]``), also as the arm of a ternary whose other arm is a
        constant; None for anything else (a slice is a container of the same elements)."""
        if isinstance(node, ast.IfExp):  # None if abort_all else self.states.get(rid)
            arms = [a for a in (node.body, node.orelse) if not isinstance(a, ast.Constant)]
            return self._element(arms[0], selves) if len(arms) == 1 else None
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            held = self._held(node.value, selves)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _ONE_ELEMENT and (node.args or node.func.attr != "get"):
            held = self._held(node.func.value, selves)
        else:
            return None
        return held + [ELEMENT] if held is not None else None

    def _iterated(self, node: ast.expr, selves: set[str]) -> list[str] | None:
        """The chain of each item ``for x in node`` binds: the elements of ``self.f``,
        ``self.f.values()``, ``list(self.f)``...; None when they are not a container's."""
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "values" and not node.args:
                node = func.value
            elif isinstance(func, ast.Name) and func.id in _SAME_ELEMENTS and len(node.args) == 1:
                node = node.args[0]
            else:
                return None
        held = self._held(node, selves)
        return held + [ELEMENT] if held is not None else None

    def _bind_items(self, target: ast.expr, iterated: ast.expr, selves: set[str]) -> list[str]:
        """Alias the loop variable bound to each element (``for req in self.queue``, ``for
        i, req in enumerate(self.queue)``, ``for rid, req in self.states.items()``); every
        name the target binds drops its old alias. Returns the names aliased."""
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                self.aliases.pop(sub.id, None)
                self.element_values.pop(sub.id, None)
        element: list[str] | None = None
        name: ast.expr | None = target
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and isinstance(iterated, ast.Call) and len(iterated.args) <= 1:
            func = iterated.func
            if isinstance(func, ast.Name) and func.id == "enumerate" and iterated.args:
                element, name = self._iterated(iterated.args[0], selves), target.elts[1]
            elif isinstance(func, ast.Attribute) and func.attr == "items" \
                    and not iterated.args:
                held = self._held(func.value, selves)
                element = held + [ELEMENT] if held is not None else None
                name = target.elts[1]
        elif isinstance(target, ast.Name):
            element = self._iterated(iterated, selves)
        if element is None or not isinstance(name, ast.Name) or name.id in selves:
            return []
        self.aliases[name.id] = ".".join(element)
        return [name.id]

    def _visit_element_base(self, node: ast.expr, selves: set[str]) -> None:
        """``self.queue[self.at].rid``: the subscript or call the element came from is
        evaluated too (its index, ``self.states.get`` itself)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if isinstance(node, ast.Subscript | ast.Call):
            self.visit(node, selves)

    def _record(self, chain: list[str], last_kind: str, line: int,
                call: ast.Call | None = None, args: tuple = ()) -> None:
        through = chain[0].startswith(PARAM)
        into = self.param_accesses if through else self.accesses
        for i in range(1 + through, len(chain) + 1):  # a parameter alone is not a touch
            last = i == len(chain)
            kind = last_kind if last else READ
            own = last and len(chain) == 1
            into.append(Access(".".join(chain[:i]), kind, line,
                               swallowed=self.swallowing > 0,
                               stmt_line=self.stmt_line, conds=tuple(self.conds),
                               call=call if own else None, args=args if own else ()))

    def _super_name(self, node: ast.expr) -> str | None:
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "super"):
            return node.attr
        return None

    # -- traversal -----------------------------------------------------------------------
    def _under(self, cond: Cond, nodes: list, selves: set[str],
               block: bool = False) -> None:
        self.conds.append(cond)
        if block:
            self.visit_block(nodes, selves)
        else:
            for node in nodes:
                self.visit(node, selves)
        self.conds.pop()

    def _cond(self, kind: str, line: int, test: ast.expr | None = None,
              negated: bool = False, selves: set[str] | None = None, label: str = "") -> Cond:
        return Cond(kind, line, test, negated, frozenset(selves or ()), label,
                    self._self_aliases(), bound=tuple(self.element_values.items()))

    def visit_block(self, body: list[ast.stmt], selves: set[str]) -> None:
        """Statements of one block; code after ``if c: return`` runs under ``not c``."""
        pushed = 0
        for stmt in body:
            self.visit(stmt, selves)
            if (isinstance(stmt, ast.If) and not stmt.orelse and stmt.body
                    and isinstance(stmt.body[-1], ast.Return | ast.Raise | ast.Continue | ast.Break)):
                exit_ = type(stmt.body[-1]).__name__.lower()
                self.conds.append(self._cond("if", stmt.lineno, stmt.test, True, selves,
                                             label=f"past `{{}}: {exit_}`"))
                pushed += 1
        for _ in range(pushed):
            self.conds.pop()

    def visit(self, node: ast.AST, selves: set[str]) -> None:
        if isinstance(node, ast.stmt):
            saved, self.stmt_line = self.stmt_line, node.lineno
            try:
                self._visit_stmt(node, selves)
            finally:
                self.stmt_line = saved
            return
        self._visit_expr(node, selves)

    def _visit_stmt(self, node: ast.stmt, selves: set[str]) -> None:
        if isinstance(node, ast.Global):
            self.globals.update(node.names)
            return
        if isinstance(node, ast.If | ast.While):
            self.visit(node.test, selves)
            self._under(self._cond("if", node.lineno, node.test, False, selves), node.body,
                        selves, block=True)
            if node.orelse:
                self._under(self._cond("if", node.lineno, node.test, True, selves), node.orelse,
                            selves, block=True)
            return
        if isinstance(node, ast.For | ast.AsyncFor):
            self.visit(node.iter, selves)
            loop = self._cond("for", node.lineno, node.iter, False, selves)
            self._under(loop, [node.target], selves)
            self._bind_items(node.target, node.iter, selves)
            names = _literal_strings(node.iter)
            bound = node.target.id if isinstance(node.target, ast.Name) else None
            if bound is not None:  # n is one of the strings, or (rebound) no longer known
                self.loop_names.pop(bound, None)
                if names is not None:
                    self.loop_names[bound] = names
            self._under(loop, node.body, selves, block=True)
            if bound is not None:
                self.loop_names.pop(bound, None)
            if node.orelse:
                self._under(self._cond("for-else", node.lineno, label="for ... else"),
                            node.orelse, selves, block=True)
            return
        if isinstance(node, ast.Try | ast.TryStar):
            swallows = any(_swallows(h) for h in node.handlers)
            self.swallowing += int(swallows)
            self.visit_block(node.body, selves)
            self.swallowing -= int(swallows)
            for handler in node.handlers:
                caught = ast.unparse(handler.type) if handler.type is not None else ""
                label = f"except {caught}".strip()
                # the types are evaluated only when the body raises: under the handler too
                self._under(self._cond("except", handler.lineno, label=label),
                            [*([handler.type] if handler.type else []), *handler.body],
                            selves, block=True)
            self.visit_block(node.orelse, selves)
            self.visit_block(node.finalbody, selves)
            return
        if isinstance(node, ast.Match):
            self.visit(node.subject, selves)
            earlier: list[tuple[ast.pattern, bool]] = []
            for case in node.cases:
                label = f"case {ast.unparse(case.pattern)}"
                cond = Cond("case", case.pattern.lineno, node.subject, False, frozenset(selves),
                            label, self._self_aliases(), case.pattern, tuple(earlier),
                            tuple(self.element_values.items()))
                self.conds.append(cond)
                if case.guard is not None:
                    self.visit(case.guard, selves)
                    self._under(self._cond("if", case.guard.lineno, case.guard, False, selves),
                                case.body, selves, block=True)
                else:
                    self.visit_block(case.body, selves)
                self.conds.pop()
                earlier.append((case.pattern, case.guard is not None))
            return
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.visit(item, selves)
            self.visit_block(node.body, selves)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self._visit_function(node, selves)
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            element = None if isinstance(node.value, ast.Attribute) \
                else self._element(node.value, selves)
            chain = self._chain(node.value, selves) if isinstance(node.value, ast.Attribute) \
                else element
            self.element_values.pop(name, None)
            if chain is not None:
                self.aliases[name] = ".".join(chain)
                if element is not None:
                    self.element_values[name] = node.value
            else:
                self.aliases.pop(name, None)
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
        for child in ast.iter_child_nodes(node):
            self.visit(child, selves)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                        selves: set[str]) -> None:
        own = _bound_names(node.args)
        inner = selves - own
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d]:
            self.visit(default, selves)
        name = "lambda" if isinstance(node, ast.Lambda) else f"def {node.name}"
        nested = self._cond("nested", node.lineno, label=f"inside nested {name}")
        if not isinstance(node, ast.Lambda):
            for deco in node.decorator_list:
                self.visit(deco, selves)
        # its own parameters shadow the enclosing aliases (`lambda req: req.x` is not ours)
        shadowed = {n: self.aliases.pop(n) for n in own if n in self.aliases}
        if isinstance(node, ast.Lambda):
            self._under(nested, [node.body], inner)
        else:
            self._under(nested, node.body, inner, block=True)
        for n in own:
            self.aliases.pop(n, None)
        self.aliases.update(shadowed)

    def _visit_expr(self, node: ast.AST, selves: set[str]) -> None:
        if isinstance(node, ast.Lambda):
            self._visit_function(node, selves)
            return
        if isinstance(node, ast.IfExp):
            self.visit(node.test, selves)
            self._under(self._cond("if", node.lineno, node.test, False, selves), [node.body], selves)
            self._under(self._cond("if", node.lineno, node.test, True, selves), [node.orelse],
                        selves)
            return
        if isinstance(node, ast.BoolOp):
            pushed = 0
            for value in node.values:
                self.visit(value, selves)
                self.conds.append(self._cond("if", value.lineno, value,
                                             isinstance(node.op, ast.Or), selves))
                pushed += 1
            for _ in range(pushed):
                self.conds.pop()
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            pushed = 0
            bound: list[str] = []
            for i, gen in enumerate(node.generators):
                self.visit(gen.iter, selves)
                bound += self._bind_items(gen.target, gen.iter, selves)
                if i == 0:
                    self.conds.append(self._cond("for", node.lineno, gen.iter, False, selves))
                    pushed += 1
                for test in gen.ifs:
                    self.visit(test, selves)
                    self.conds.append(self._cond("if", test.lineno, test, False, selves))
                    pushed += 1
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for part in parts:
                self.visit(part, selves)
            for _ in range(pushed):
                self.conds.pop()
            for name in bound:  # a comprehension's variable does not outlive it
                self.aliases.pop(name, None)
            return
        if isinstance(node, ast.Call) and self._visit_call(node, selves):
            return
        if isinstance(node, ast.Attribute):
            chain = self._chain(node, selves)
            if chain is not None:
                kind = {ast.Store: WRITE, ast.Del: DELETE}.get(type(node.ctx), READ)
                self._record(chain, kind, node.lineno)
                self._visit_element_base(node, selves)
                return
            name = self._super_name(node)
            if name is not None:
                kind = {ast.Store: WRITE, ast.Del: DELETE}.get(type(node.ctx), READ)
                self._super_use(name, kind, node.lineno)
                return
            if self._context(node):
                return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.globals:
            self._add_context(f"global {node.id}", node.lineno)
        for child in ast.iter_child_nodes(node):
            self.visit(child, selves)

    def _visit_call(self, node: ast.Call, selves: set[str]) -> bool:
        func = node.func
        chain = self._chain(func, selves) if isinstance(func, ast.Attribute) else None
        if chain is not None:
            args = self._call_args(node, selves) if len(chain) == 1 else ()
            self._record(chain, CALL, node.lineno, node, args)
            self._visit_element_base(func, selves)
        elif (name := self._super_name(func)) is not None:
            self._super_use(name, CALL, node.lineno)
        elif (isinstance(func, ast.Name) and func.id in {"getattr", "hasattr", "setattr", "delattr"}
              and len(node.args) >= 2 and self._is_self(node.args[0], selves)):
            key = node.args[1]
            keys = [key.value] if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                else list(self.loop_names.get(key.id, ())) if isinstance(key, ast.Name) else []
            if keys:
                kind = {"setattr": WRITE, "delattr": DELETE, "hasattr": GUARDED}.get(func.id, READ)
                if func.id == "getattr" and (len(node.args) > 2 or node.keywords):
                    kind = GUARDED
                for name in keys:  # getattr(self, n) for n in a literal tuple: each name
                    self._record([name], kind, node.lineno)
            else:
                self.dynamic.append(node.lineno)
            for arg in node.args[1:]:
                self.visit(arg, selves)
            return True
        else:
            fname = self._module_function(func)
            if fname.startswith("get_") and not node.args and not node.keywords:
                self._add_context(f"{fname}()", node.lineno)
                return True
            return False
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(arg, selves)
        return True


def _literal_strings(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of a literal tuple/list/set of string constants, else None."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)  # type: ignore[union-attr]
    return None


def _swallows(handler: ast.ExceptHandler) -> bool:
    """Whether ``handler`` would catch an AttributeError and carry on: it catches one and
    does not raise on every path (``except BaseException: log(); raise`` is loud)."""
    if _reraises(handler.body):
        return False
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")) in _SWALLOWING
               for n in names)


def _reraises(body: list[ast.stmt]) -> bool:
    """Every path through ``body`` ends in a raise: a ``raise`` at its top level with no
    ``return``, ``break`` or ``continue`` anywhere before it."""
    for stmt in body:
        if isinstance(stmt, ast.Raise):
            return True
        if any(isinstance(n, ast.Return | ast.Break | ast.Continue) for n in ast.walk(stmt)):
            return False
    return False
