"""An instrumented copy of a project function: each decision reports its way and its inputs.

The recorder swaps these copies in for a recorded run (``function.__code__``, restored after),
so nothing else runs slower. In the copy (compiled from the def's own source, or from the
source a mutant was swapped in from, at the real line numbers):

- an ``if``/``elif`` test and a ternary's test report the way taken;
- a ``while``/``for`` loop reports once, when it ends, its trip count;
- an assignment to a field the project declares agreed (``self._uniform_floor = ...``)
  reports the value stored (a split by value, not by way);
- the function reports its arguments on entry and the value it returned (or the exception).

Each condition's inputs are the values of the names and attribute chains it reads *as it
reads them* (a property's value is the one the code got, the property runs once, as always):
each read is bound to a local of the copy as it happens (``(_dk_t1 := self.free) >= need``)
and the decision's one hook gets them as a tuple, beside the condition's value (a read the
condition may skip, after an ``and``/``or`` or in a chained comparison, starts each evaluation
as :attr:`missing`). A condition that reads a name inside a comprehension's first iterable
(where no assignment expression may stand) notes its reads one hook call each instead.
The hooks are the methods of the object named :data:`HOOK` in ``builtins``.
"""

from __future__ import annotations

import ast
import copy
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deskcheck.live_code import FUTURE_FLAGS, find_code, skeleton, source_of

HOOK = "__deskcheck_rec__"


@dataclass(frozen=True)
class Site:
    """One decision of the source: where, what kind, its condition's text, its function."""

    file: str
    line: int
    kind: str  # "if", "ternary", "while", "for", "set" or "call"
    condition: str
    function: str
    names: tuple[str, ...] = ()  # a call's argument names; a while loop's reads


SITES: list[Site] = []  # site id -> site, for this process


def _site(file: str, line: int, kind: str, condition: str, function: str,
          names: tuple[str, ...] = ()) -> ast.Constant:
    SITES.append(Site(file, line, kind, condition, function, names))
    return ast.Constant(len(SITES) - 1)


def _hook(method: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(HOOK, ast.Load()), method, ast.Load()),
                    list(args), [])


def chain(node: ast.expr) -> str | None:
    """``x`` or ``self.a.b`` for a name or an attribute chain rooted at a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


class _Reads(ast.NodeTransformer):
    """Visit the outermost name or attribute chains a condition reads (not a called one, not
    a decision nested in it, which handles its own) and hand each to ``_wrap``."""

    def _wrap(self, node: ast.expr) -> ast.expr:
        raise NotImplementedError

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self._wrap(node) if isinstance(node.ctx, ast.Load) else node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        return self._wrap(node) if isinstance(node.ctx, ast.Load) else node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if (chain(node.func) or "").startswith(HOOK):
            return node  # a decision nested in this condition handles its own reads
        if chain(node.func) is None:
            node.func = self.visit(node.func)
        node.args = [self.visit(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = self.visit(keyword.value)
        return node


class _Capture(_Reads):
    """Wrap each outermost name or attribute chain a condition reads (not a called one) in
    ``HOOK.v("chain", value)``: the value is noted as the condition reads it."""

    def _wrap(self, node: ast.expr) -> ast.expr:
        text = chain(node)
        if text is None or text.startswith(HOOK):
            return self.generic_visit(node)  # type: ignore[return-value]
        return ast.copy_location(_hook("v", ast.Constant(text), node), node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return node  # its names are its own scope's

    def _comprehension(self, node: ast.expr) -> ast.expr:
        first = node.generators[0]  # type: ignore[attr-defined]
        first.iter = self.visit(first.iter)  # the one part evaluated in the enclosing scope
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


_TEMP = "_dk_t"  # the locals the reads are bound to


class _Bind(_Reads):
    """Bind each outermost name or attribute chain a condition reads (not a called one) to a
    local of its own, ``(_dk_t3 := self.a.b)``: the decision's hook gets them as a tuple.

    ``slots``: chain -> local, in reading order; ``always``: the chains some read of which
    runs whenever the condition does (the others may be skipped: they need a fresh start);
    ``stuck``: a read stands in a comprehension's first iterable (no binding allowed)."""

    def __init__(self, fresh: Callable[[], str]):
        self.fresh = fresh
        self.slots: dict[str, str] = {}
        self.always: set[str] = set()
        self.skippable = 0  # inside an operand that may not run
        self.in_iterable = 0
        self.stuck = False

    def _wrap(self, node: ast.expr) -> ast.expr:
        text = chain(node)
        if text is None or text.startswith((HOOK, _TEMP)):
            return self.generic_visit(node)  # type: ignore[return-value]
        if self.in_iterable:
            self.stuck = True
            return node
        temp = self.slots.get(text)
        if temp is None:
            temp = self.slots[text] = self.fresh()
        if not self.skippable:
            self.always.add(text)
        return ast.copy_location(ast.NamedExpr(ast.Name(temp, ast.Store()), node), node)

    def _skippable(self, nodes: list[ast.expr]) -> list[ast.expr]:
        self.skippable += 1
        try:
            return [self.visit(n) for n in nodes]
        finally:
            self.skippable -= 1

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        node.values = [self.visit(node.values[0]), *self._skippable(node.values[1:])]
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        node.left = self.visit(node.left)
        node.comparators = [self.visit(node.comparators[0]),
                            *self._skippable(node.comparators[1:])]
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        node.test = self.visit(node.test)
        node.body, node.orelse = self._skippable([node.body, node.orelse])
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return node  # its names are its own scope's

    def _comprehension(self, node: ast.expr) -> ast.expr:
        first = node.generators[0]  # type: ignore[attr-defined]
        self.in_iterable += 1  # the one part evaluated in the enclosing scope
        try:
            first.iter = self.visit(first.iter)
        finally:
            self.in_iterable -= 1
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def values(self) -> ast.Tuple:
        """The tuple of the bound reads, in the order of :attr:`slots`."""
        return ast.Tuple([ast.Name(t, ast.Load()) for t in self.slots.values()], ast.Load())

    def fresh_start(self) -> list[str]:
        """The locals a condition may skip: set to :attr:`missing` before each evaluation."""
        return [t for c, t in self.slots.items() if c not in self.always]


def _missing(temps: list[str]) -> ast.expr:
    """``(_dk_t1 := (_dk_t2 := HOOK.missing))``."""
    value: ast.expr = ast.Attribute(ast.Name(HOOK, ast.Load()), "missing", ast.Load())
    for temp in temps:
        value = ast.NamedExpr(ast.Name(temp, ast.Store()), value)
    return value


def _bound(test: ast.expr, fresh: Callable[[], str]) -> tuple[ast.expr, _Bind | None]:
    """``test`` with its reads bound (the skippable ones set missing first), or ``test`` as it
    was and None when a read stands where no binding may."""
    binder = _Bind(fresh)
    bound = binder.visit(test)
    if binder.stuck:
        return _Unbind().visit(bound), None
    temps = binder.fresh_start()
    if temps:
        bound = ast.Subscript(ast.Tuple([_missing(temps), bound], ast.Load()), ast.Constant(1),
                              ast.Load())
    return bound, binder


class _Unbind(ast.NodeTransformer):
    """Undo :class:`_Bind` (the reads of a condition that cannot bind them all)."""

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.expr:
        self.generic_visit(node)
        return node.value if node.target.id.startswith(_TEMP) else node


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    todo: list[ast.AST] = list(node.body)
    while todo:
        current = todo.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(current))
    return isinstance(node, ast.AsyncFunctionDef)


class _Rewrite(ast.NodeTransformer):
    """Instrument one def (and the defs nested in it)."""

    def __init__(self, file: str, qualname: str, agreed_fields: frozenset[str]):
        self.file = file
        self.agreed_fields = agreed_fields
        self.functions: list[tuple[str, bool]] = []  # (qualname, reports calls) innermost last
        self.top = qualname
        self.loops = 0
        self.temps = 0

    def _fresh(self) -> str:
        self.temps += 1
        return f"{_TEMP}{self.temps}"

    @property
    def function(self) -> str:
        return self.functions[-1][0] if self.functions else self.top

    def _decision(self, test: ast.expr, kind: str, line: int, text: str) -> ast.expr:
        bound, binder = _bound(test, self._fresh)
        if binder is None:  # its reads noted one hook call each
            site = _site(self.file, line, kind, text, self.function)
            return ast.copy_location(_hook("b", site, _hook("o"), _Capture().visit(bound)),
                                     test)
        site = _site(self.file, line, kind, text, self.function, tuple(binder.slots))
        return ast.copy_location(_hook("d", site, bound, binder.values()), test)

    def visit_If(self, node: ast.If) -> ast.If:
        text = ast.unparse(node.test)
        self.generic_visit(node)
        node.test = self._decision(node.test, "if", node.lineno, text)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.IfExp:
        text = ast.unparse(node.test)
        self.generic_visit(node)
        node.test = self._decision(node.test, "ternary", node.test.lineno, text)
        return node

    def _loop(self, node: ast.While | ast.For | ast.AsyncFor, text: str) -> list[ast.stmt]:
        self.loops += 1
        count, values = f"_dk_n{self.loops}", f"_dk_l{self.loops}"
        is_while = isinstance(node, ast.While)
        reads = tuple(dict.fromkeys(
            c for c in (chain(n) for n in ast.walk(node.test)
                        if isinstance(n, (ast.Name, ast.Attribute))) if c)) if is_while else ()
        self.generic_visit(node)
        binder = None
        if not is_while:  # a while test runs each iteration: its values are read at the end
            node.iter, binder = _bound(node.iter, self._fresh)
            if binder is None:
                node.iter = _Capture().visit(node.iter)
            else:
                reads = tuple(binder.slots)
        site = _site(self.file, node.lineno, "while" if is_while else "for", text,
                     self.function, reads)
        node.body.insert(0, ast.AugAssign(ast.Name(count, ast.Store()), ast.Add(),
                                          ast.Constant(1)))
        if is_while:
            ended: ast.expr = ast.Call(ast.Name("locals", ast.Load()), [], [])
            start: ast.expr = _hook("o")
        elif binder is None:
            ended, start = ast.Name(values, ast.Load()), _hook("o")
        else:  # every read starts missing: the loop's end reports even when the iterable raised
            ended, start = binder.values(), _missing(list(binder.slots.values()))
        guarded = ast.Try(body=[node], handlers=[], orelse=[], finalbody=[ast.Expr(
            _hook("loop", site, ended, ast.Name(count, ast.Load())))])
        out: list[ast.stmt] = [
            ast.Assign([ast.Name(count, ast.Store())], ast.Constant(0)),
            ast.Assign([ast.Name(values, ast.Store())], start), guarded]
        for statement in out:
            ast.copy_location(statement, node)
        return [ast.fix_missing_locations(s) for s in out]

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        return self._loop(node, ast.unparse(node.test))

    def visit_For(self, node: ast.For | ast.AsyncFor) -> list[ast.stmt]:
        return self._loop(node, f"{ast.unparse(node.target)} in {ast.unparse(node.iter)}")

    visit_AsyncFor = visit_For

    def _stored(self, target: ast.expr, value: ast.expr, node: ast.stmt) -> ast.expr:
        if chain(target) not in self.agreed_fields:
            return value
        text = ast.unparse(node)
        bound, binder = _bound(value, self._fresh)
        if binder is None:
            site = _site(self.file, node.lineno, "set", text, self.function)
            return ast.copy_location(_hook("s", site, _hook("o"), _Capture().visit(bound)),
                                     value)
        site = _site(self.file, node.lineno, "set", text, self.function, tuple(binder.slots))
        return ast.copy_location(_hook("stored", site, bound, binder.values()), value)

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        self.generic_visit(node)
        if len(node.targets) == 1:
            node.value = self._stored(node.targets[0], node.value, node)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        self.generic_visit(node)
        if node.value is not None:
            node.value = self._stored(node.target, node.value, node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.Return:
        self.generic_visit(node)
        if self.functions and self.functions[-1][1]:
            node.value = ast.copy_location(_hook(
                "r", ast.Name("_dk_d", ast.Load()), node.value or ast.Constant(None)), node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        self.generic_visit(node)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        return node  # a class body inside a function: left as it is

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef
                          ) -> ast.FunctionDef | ast.AsyncFunctionDef:
        qualname = self.top if not self.functions else \
            f"{self.functions[-1][0]}.<locals>.{node.name}"
        calls = not _is_generator(node)
        self.functions.append((qualname, calls))
        self.generic_visit(node)
        self.functions.pop()
        if calls:
            self._report_calls(node, qualname)
        return ast.fix_missing_locations(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _report_calls(self, node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> None:
        arguments = node.args
        names = [a.arg for a in (*arguments.posonlyargs, *arguments.args,
                                 *arguments.kwonlyargs) if a.arg not in ("self", "cls")]
        site = _site(self.file, node.lineno, "call",
                     f"{qualname.replace('.<locals>', '')}({', '.join(names)})", qualname,
                     tuple(names))
        body = node.body
        docstring = body[:1] if body and isinstance(body[0], ast.Expr) \
            and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else []
        rest = body[len(docstring):] or [ast.Pass()]
        if not isinstance(rest[-1], (ast.Return, ast.Raise)):
            rest.append(ast.Return(_hook("r", ast.Name("_dk_d", ast.Load()),
                                         ast.Constant(None))))
        enter = ast.Assign([ast.Name("_dk_d", ast.Store())], _hook(
            "e", site, ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())))
        handler = ast.ExceptHandler(ast.Name("BaseException", ast.Load()), "_dk_exc", [
            ast.Expr(_hook("x", ast.Name("_dk_d", ast.Load()),
                           ast.Name("_dk_exc", ast.Load()))), ast.Raise()])
        guarded = ast.Try(body=rest, handlers=[handler], orelse=[], finalbody=[])
        for statement in (enter, guarded, handler):
            ast.copy_location(statement, rest[0])
        node.body = [*docstring, enter, guarded]
        ast.fix_missing_locations(node)


_TREES: dict[str, ast.Module | None] = {}


def _file_tree(filename: str) -> ast.Module | None:
    if filename not in _TREES:
        try:
            _TREES[filename] = ast.parse(Path(filename).read_text(encoding="utf-8"), filename)
        except (OSError, SyntaxError, ValueError):
            _TREES[filename] = None
    return _TREES[filename]


def _def_node(code: types.CodeType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def ``code`` was compiled from: a swapped-in def's own text, else its file's."""
    swapped = source_of(code)
    if swapped is not None:
        text, start, _indent = swapped
        try:
            tree: ast.Module | None = ast.parse(text, code.co_filename)
        except SyntaxError:
            return None
        ast.increment_lineno(tree, start - 1)
    else:
        tree = _file_tree(code.co_filename)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == code.co_name and code.co_firstlineno in (
                    node.lineno, *(d.lineno for d in node.decorator_list)):
            return node
    return None


REWRITES: list[str] = []  # the files (and swapped-in defs) rewritten in this process, in order


def _module_codes(filename: str, agreed_fields: frozenset[str]
                  ) -> dict[tuple[str, int], types.CodeType]:
    """Every function of a file instrumented at once (one parse, one compile), keyed by
    ``(co_qualname, co_firstlineno)``."""
    REWRITES.append(filename)
    try:
        tree = ast.parse(Path(filename).read_text(encoding="utf-8"), filename)
    except (OSError, SyntaxError, ValueError):
        return {}
    todo: list[tuple[list[ast.stmt], str]] = [(tree.body, "")]
    while todo:
        body, prefix = todo.pop()
        for index, node in enumerate(body):
            if isinstance(node, ast.ClassDef):
                todo.append((node.body, f"{prefix}{node.name}."))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body[index] = _Rewrite(filename, prefix + node.name, agreed_fields).visit(node)
    try:
        unit = compile(tree, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return {}
    found: dict[tuple[str, int], types.CodeType] = {}
    todo_codes = [unit]
    while todo_codes:
        for const in todo_codes.pop().co_consts:
            if isinstance(const, types.CodeType):
                found[(const.co_qualname, const.co_firstlineno)] = const
                todo_codes.append(const)
    return found


_MODULES: dict[tuple[str, frozenset[str]], dict[tuple[str, int], types.CodeType]] = {}


def instrumented(code: types.CodeType, agreed_fields: frozenset[str]) -> types.CodeType | None:
    """The instrumented copy of ``code`` (same free variables), or None when it cannot be
    built (no source, a def the rewrite cannot place)."""
    if source_of(code) is None:
        key = (code.co_filename, agreed_fields)
        if key not in _MODULES:
            _MODULES[key] = _module_codes(code.co_filename, agreed_fields)
        built = _MODULES[key].get((code.co_qualname, code.co_firstlineno))
        if built is not None and built.co_freevars == code.co_freevars \
                and built.co_flags & FUTURE_FLAGS == code.co_flags & FUTURE_FLAGS:
            return built
    found = _def_node(code)
    if found is None:
        return None
    REWRITES.append(f"{code.co_filename}:{code.co_qualname}")
    node = copy.deepcopy(found)
    node.decorator_list = []
    node = _Rewrite(code.co_filename, code.co_qualname, agreed_fields).visit(node)
    if code.co_freevars:  # keep every free variable referenced (dead code, never runs)
        keep = ast.If(test=ast.Constant(False), body=[ast.Expr(ast.Tuple(
            [ast.Name(v, ast.Load()) for v in code.co_freevars], ast.Load()))], orelse=[])
        node.body.append(ast.fix_missing_locations(ast.copy_location(keep, node.body[-1])))
    module = skeleton(code.co_qualname, node, code.co_freevars)
    try:
        unit = compile(module, code.co_filename, "exec", dont_inherit=True,
                       flags=code.co_flags & FUTURE_FLAGS)
    except (SyntaxError, ValueError, TypeError):
        return None
    built = find_code(unit, code.co_qualname)
    if built is None or built.co_freevars != code.co_freevars:
        return None
    return built
