"""Def-use and control dependence of one function, from its AST (no import, no execution).

For every local name a function loads: the definitions that can reach that load (reaching
definitions over structured control flow: ``if``/``for``/``while``/``try``/``with``/``match``,
``break``/``continue``/``return``/``raise``), each with the branch *facts* it flowed through
(``x`` kept its value because the false arm of ``if tp_size != 1`` did not redefine it).
For every call and every definition: the *guards* that decide whether it runs — enclosing
``if``/``while`` tests, ``for`` iterables (trip count), ``break`` conditions of its loop,
early exits before it (``if c: return``), ``and``/``or`` operands, ternaries, ``except``
handlers and comprehension filters. Results are cached per function node.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from deskcheck.static._nodes import subnodes

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_FLOW: dict[int, tuple[ast.AST, FlowFacts]] = {}  # id -> (node kept: its id never reused, facts)
_TEXT: dict[int, tuple[ast.AST, str]] = {}  # id -> (node, ast.unparse(node)): nodes are cached


def unparsed(node: ast.AST) -> str:
    """``ast.unparse(node)``, once per node (a guard's text is asked for at every hop)."""
    found = _TEXT.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    text = ast.unparse(node)
    _TEXT[id(node)] = (node, text)
    return text


_EXIT_OUTER = 12  # outer conditions of one early exit kept per block (a bound, not a model)


_NO_FLOW = (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)


@dataclass(frozen=True)
class Guard:
    """One condition deciding whether code runs. ``kind``: if, while, for (trip count of the
    iterable), exit (an early return/raise/continue/break before it), break (a break of the
    enclosing loop), boolop, ternary, except, comprehension. ``negated``: the code runs when
    ``test`` is false."""

    kind: str
    line: int
    test: ast.expr | None
    negated: bool = False
    node: ast.AST | None = None  # the statement/expression that holds the test

    @property
    def text(self) -> str:
        shown = unparsed(self.test) if self.test is not None else ""
        if self.kind == "for":
            return f"for ... in {shown}"
        if self.kind == "except":
            return f"except {shown}".rstrip()
        if self.kind == "while":
            return f"while {shown}"
        return f"not ({shown})" if self.negated else shown


@dataclass(frozen=True, eq=False)
class Def:
    """One definition of a local. ``kind``: param, assign, augassign, for, with, except,
    import, def, walrus, match, or ``fill`` (``x[k] = v``, ``x.append(v)`` and friends: what
    is put into a local container; it adds to the earlier definitions, never replaces them).
    ``value``: the expression assigned (for ``for``: the iterable;
    for a tuple target, ``index`` says which element: from the end, negative, after a star;
    None for a starred or nested name). ``guards``: what decides that it runs."""

    name: str
    kind: str
    line: int
    value: ast.expr | None = None
    index: int | None = None
    guards: tuple[Guard, ...] = ()
    positional: bool = False  # fill: ``xs[i] = v`` at an enumerate/range count keeps the length
    unpacked: bool = False  # bound by a tuple target (``index`` None: no position can be told)
    filled_by: str = ""  # fill: the method (``append``, ``extend``...) or ``item`` (``x[k] = v``)


@dataclass
class FlowFacts:
    """``reaching[id(Name load)]`` -> ((Def, facts), ...); ``guards[id(node)]`` for every
    call and statement; ``defs`` every definition; ``returns`` (value, guards) pairs;
    ``exits[id(Name load)]`` the early-exit guards the load is past (``if c: return``);
    ``nested_exits`` those of them that hold nowhere alone (``held_exits``)."""

    reaching: dict[int, tuple[tuple[Def, frozenset[Guard]], ...]] = field(default_factory=dict)
    guards: dict[int, tuple[Guard, ...]] = field(default_factory=dict)
    defs: list[Def] = field(default_factory=list)
    returns: list[tuple[ast.expr | None, tuple[Guard, ...]]] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    params: dict[str, Def] = field(default_factory=dict)
    exits: dict[int, tuple[Guard, ...]] = field(default_factory=dict)
    # of a load's exits, those nested under a condition in every block around the load
    # (``if strict: if c: return`` read after the ``if strict`` block): they hold alone
    # nowhere it is read, so they prove nothing there (see ``held_exits``)
    nested_exits: dict[int, frozenset[Guard]] = field(default_factory=dict)
    # per call: the calls of the statements before its own in each open block, as (that
    # block's list, how many of it come before); ``prior_calls`` reads them
    prior: dict[int, tuple[tuple[list[ast.Call], int], ...]] = field(default_factory=dict)
    # every raise and assert (not a handler's re-raise): (statement, its guards, the
    # exception's class name or None, the try statements with handlers open around it)
    raises: dict[int, tuple[ast.stmt, tuple[Guard, ...], str | None, tuple[int, ...]]] = \
        field(default_factory=dict)
    # call -> the try bodies (and ``with contextlib.suppress(...)`` bodies) open around it
    tries: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # an early exit's guard (``exit`` or ``exit-outer``) -> the statements that leave there
    # (return, raise, assert, break, continue): ``raise_only`` reads them
    exit_by: dict[Guard, list[ast.stmt]] = field(default_factory=dict)
    # try statement (or suppressing with) -> the exception class names its handlers catch
    # (None: any exception)
    handlers: dict[int, frozenset[str] | None] = field(default_factory=dict)

    def catcher(self, tries: tuple[int, ...], exc: str | None) -> int | None:
        """The innermost of the open ``tries`` whose handlers catch ``exc`` (a class name
        as raised, None when not known: only ``except:``/``Exception`` catch it)."""
        for t in reversed(tries):
            types = self.handlers.get(t, frozenset())
            if types is None or exc is not None and exc in types:
                return t
        return None

    def prior_calls(self, node: ast.AST) -> list[ast.Call]:
        """The calls (``node`` a call) of the statements before ``node``'s own in each
        block around it: each runs before it on every path through that block, unless it
        raised (in a loop body, only the calls above it in the same pass)."""
        return [c for lst, n in self.prior.get(id(node), ()) for c in lst[:n]]

    def held_exits(self, load: ast.AST) -> tuple[Guard, ...]:
        """The early exits a load is past that hold on every path to it."""
        exits = self.exits.get(id(load), ())
        nested = self.nested_exits.get(id(load))
        return tuple(g for g in exits if g not in nested) if nested else exits

    def raise_only(self, guard: Guard) -> list[tuple[str | None, tuple[int, ...]]] | None:
        """For an early exit's guard whose every exit is a raise or an assert: (exception
        class, tries open around it) per raise; None when some exit there returns, breaks or
        continues (the rank goes on past it)."""
        stmts = self.exit_by.get(guard)
        if not stmts:
            return None
        out = []
        for stmt in stmts:
            found = self.raises.get(id(stmt))
            if found is None:
                return None
            out.append((found[2], found[3]))
        return out


State = dict[str, dict[Def, frozenset[Guard]]] | None


_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault",
                      "appendleft", "extendleft", "push"})
# methods that take entries out of a local container (its length and membership change)
SHRINKING = frozenset({"remove", "pop", "popleft", "popitem", "clear", "discard"})


def flow_facts(node: FunctionNode | ast.Lambda) -> FlowFacts:
    """Def-use and guards of one function (cached per node)."""
    cached = _FLOW.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    found = _Walker(node).run()
    _FLOW[id(node)] = (node, found)
    return found


def clear_flow_cache() -> None:
    _FLOW.clear()
    _TEXT.clear()


def _join(a: State, b: State, on_a: Guard | None = None, on_b: Guard | None = None) -> State:
    """Merge two states at a join; a def reaching from one side only gains that side's guard."""
    if a is None:
        return b
    if b is None:
        return a
    out: dict[str, dict[Def, frozenset[Guard]]] = {}
    for name in sorted(a.keys() | b.keys()):  # sorted: the result never depends on hashing
        left, right = a.get(name, {}), b.get(name, {})
        merged: dict[Def, frozenset[Guard]] = {}
        for d in sorted(left.keys() | right.keys(), key=_def_order):
            if d in left and d in right:
                merged[d] = left[d] & right[d]
            elif d in left:
                merged[d] = left[d] | ({on_a} if on_a else set())
            else:
                merged[d] = right[d] | ({on_b} if on_b else set())
        out[name] = merged
    return out


def _counted(key: ast.expr, state: State) -> bool:
    """Is ``key`` a position counted by its loop: every definition reaching it the index of
    ``for i, x in enumerate(...)`` or the variable of ``for i in range(...)``?"""
    if state is None or not isinstance(key, ast.Name) or not state.get(key.id):
        return False
    for d in state[key.id]:
        call = d.value
        target = getattr(d.guards[-1].node if d.guards else None, "target", None)
        first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else None
        if not (d.kind == "for" and isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and (call.func.id == "enumerate" and d.index == 0
                     and isinstance(first, ast.Name) and first.id == d.name  # not (k, v)'s k
                     or call.func.id == "range" and d.index is None)):
            return False
    return True


def holding_guards(guards) -> tuple[Guard, ...]:
    """The guards that hold on every path they are listed for: an early exit (``exit``)
    nested under conditions listed beside it (``exit-outer``: ``if strict: if tp_size > 1:
    return``) holds only where those held too, so it is left out (its test proves nothing
    alone) unless each such condition is also open on the path, on the side the exit was
    taken (code further inside the ``strict`` block); every other guard is kept."""
    guards = tuple(guards)
    if not any(g.kind == "exit-outer" for g in guards):
        return guards
    inside = {(id(g.node), g.negated) for g in guards
              if g.kind not in ("exit", "exit-outer") and g.node is not None}
    outer = [g.node for g in guards if g.kind == "exit-outer" and g.node is not None
             and (id(g.node), g.negated) not in inside]
    if not outer:
        return guards
    return tuple(g for g in guards if g.kind != "exit" or g.node is None
                 or not any(_contains(o, g.node) for o in outer))


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    """Whether ``inner`` sits inside ``outer`` (by position: a statement in its body); a node
    without a position (a ``match`` case) is taken to sit inside."""
    if outer is inner:
        return False
    line, column = getattr(inner, "lineno", None), getattr(inner, "col_offset", 0)
    first = getattr(outer, "lineno", None)
    if line is None or first is None:
        return True
    start = (first, getattr(outer, "col_offset", 0))
    end = (getattr(outer, "end_lineno", None) or first, getattr(outer, "end_col_offset", 0) or 0)
    return start <= (line, column) <= end


def _def_order(d: Def) -> tuple[int, str, str, int]:
    return (d.line, d.name, d.kind, -(1 << 30) if d.index is None else d.index)


def _copy(state: State) -> State:
    return None if state is None else {k: dict(v) for k, v in state.items()}


def _targets(target: ast.expr) -> list[tuple[str, int | None, bool]]:
    """(name, index, unpacked) of each name a target binds: see :func:`target_positions`."""
    if isinstance(target, ast.Name):
        return [(target.id, None, False)]
    return [(elt.id, index, True) for elt, index in target_positions(target)
            if isinstance(elt, ast.Name)]


def target_positions(target: ast.expr) -> list[tuple[ast.expr, int | None]]:
    """Each leaf of a tuple/list target with the position of the value it takes: its index
    before a star, a negative index after one (``a, *m, z``: z is ``[-1]``), None for the
    starred name itself; a nested target's leaves (``a, (b, c)``) take their outer position:
    the whole element there, of which they hold a part."""
    if not isinstance(target, ast.Tuple | ast.List):
        return []
    star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), None)
    out: list[tuple[ast.expr, int | None]] = []
    for i, elt in enumerate(target.elts):
        at = i if star is None or i < star else i - len(target.elts)
        if isinstance(elt, ast.Starred):
            out += [(leaf, None) for leaf in _leaves(elt.value)]
        elif isinstance(elt, ast.Tuple | ast.List):
            out += [(leaf, at) for leaf in _leaves(elt)]
        else:
            out.append((elt, at))
    return out


def _leaves(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Starred):
        return _leaves(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [leaf for elt in target.elts for leaf in _leaves(elt)]
    return [target]


class _Walker:
    def __init__(self, node: FunctionNode | ast.Lambda) -> None:
        self.node = node
        self.facts = FlowFacts()
        self.guards: list[Guard] = []
        self.loop_breaks: list[list[State]] = []
        self.loop_continues: list[list[State]] = []
        self.exit_guards: list[list[Guard]] = [[]]  # per block: guards added by early exits
        self._exits_changed = 0  # bumped whenever exit_guards changes (see _passed_exits)
        self._passed: tuple[int, tuple[Guard, ...]] = (0, ())
        self.call_lists: list[list[ast.Call]] = [[]]  # per block: calls of its statements
        self.call_log: list[ast.Call] = []  # every call in the order the walk meets them
        self.open_tries: list[int] = []  # the tries (with handlers), suppresses being walked
        self.block_depth: list[int] = [0]  # len(guards) when each open block began
        self.recorded: list[set[int]] = []  # node ids recorded inside each open loop body
        self.loop_guard_depth: list[int] = []  # len(guards) inside each open loop body
        self._seen_calls: set[int] = set()
        self.break_guards: list[list[Guard]] = []
        self.loop_depth: list[int] = []  # len(exit_guards) when each open loop body began
        self.try_depth: list[int] = []  # len(exit_guards) when each open try body began
        self._defs: dict[tuple, Def] = {}
        self._shrunk: dict[int, ast.expr] = {}  # id(call) -> what a shrinking call names
        self._test_keys: dict[int, tuple] = {}  # id(if) -> its pure test (``_pure_test``)

    def _make_def(self, name: str, kind: str, line: int, value: ast.expr | None,
                  index: int | None, guards: tuple[Guard, ...], positional: bool = False,
                  unpacked: bool = False, filled_by: str = "") -> Def:
        """One Def object per (name, site, guards): a loop walked twice finds the same one."""
        key = (name, kind, line, id(value), index, tuple(id(g.node) for g in guards),
               tuple(g.negated for g in guards), positional, unpacked, filled_by)
        found = self._defs.get(key)
        if found is None:
            found = Def(name, kind, line, value, index, guards, positional, unpacked, filled_by)
            self._defs[key] = found
            self.facts.defs.append(found)
        return found

    def run(self) -> FlowFacts:
        state: State = {}
        args = self.node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [
                a for a in (args.vararg, args.kwarg) if a is not None]:
            d = Def(arg.arg, "param", getattr(arg, "lineno", self.node.lineno))
            self.facts.params[arg.arg] = d
            self.facts.defs.append(d)
            state[arg.arg] = {d: frozenset()}
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self._expr(default, state)
        if isinstance(self.node, ast.Lambda):
            self._expr(self.node.body, state)
            self.facts.returns.append((self.node.body, ()))
        else:
            self._block(self.node.body, state)
        return self.facts

    # -- helpers -----------------------------------------------------------------------
    def _current(self) -> tuple[Guard, ...]:
        return tuple(self.guards) + tuple(g for block in self.exit_guards for g in block)

    def _record(self, node: ast.AST, extra: tuple[Guard, ...] = ()) -> None:
        self.facts.guards[id(node)] = self._current() + extra
        if isinstance(node, ast.Call):  # what calls are asked: the calls before, the tries
            self.facts.prior[id(node)] = tuple((calls, len(calls)) for calls in self.call_lists
                                               if calls)
            if self.open_tries:
                self.facts.tries[id(node)] = tuple(self.open_tries)
        for ids in self.recorded:
            ids.add(id(node))

    def _define(self, state: State, name: str, kind: str, line: int, value: ast.expr | None,
                index: int | None = None, unpacked: bool = False) -> None:
        if state is None:
            return
        state[name] = {self._make_def(name, kind, line, value, index, self._current(),
                                      unpacked=unpacked): frozenset()}

    def _assign_target(self, target: ast.expr, state: State, kind: str, line: int,
                       value: ast.expr | None) -> None:
        if isinstance(target, ast.Name | ast.Tuple | ast.List):
            for name, index, unpacked in _targets(target):
                self._define(state, name, kind, line, value, index, unpacked)
        else:  # attribute / subscript target: its parts are loads
            self._expr(target, state)
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and value is not None:
                key = target.slice
                self._fill(state, target.value.id, line, value if kind == "assign" else None,
                           key, _counted(key, state), "item")

    def _fill(self, state: State, name: str, line: int, value: ast.expr | None,
              key: ast.expr | None = None, positional: bool = False, how: str = "") -> None:
        """Something put into the local container ``name``: a definition beside the others."""
        if state is None or name not in state:
            return
        parts = [p for p in (key, value) if p is not None]
        if not parts:
            return
        shown = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load(), lineno=line,
                                                            col_offset=0)
        d = self._make_def(name, "fill", line, shown, None, self._current(), positional,
                           filled_by=how)
        state[name] = {**state[name], d: frozenset()}

    # -- expressions -------------------------------------------------------------------
    def _expr(self, expr: ast.AST | None, state: State, extra: tuple[Guard, ...] = ()) -> None:
        if expr is None or state is None:
            return
        if isinstance(expr, ast.Name):
            if isinstance(expr.ctx, ast.Load):
                self.facts.reaching[id(expr)] = tuple(state.get(expr.id, {}).items())
                passed = self._passed_exits()
                if passed and not self.loop_depth:  # in a loop, a later exit is an earlier pass's
                    self.facts.exits[id(expr)] = passed
                    held = set(holding_guards(self._current()))
                    nested = frozenset(g for g in passed if g not in held)
                    if nested:
                        self.facts.nested_exits[id(expr)] = nested
            return
        if isinstance(expr, ast.BoolOp):
            added: list[Guard] = []
            for value in expr.values:
                self._expr(value, state, extra + tuple(added))
                added.append(Guard("boolop", value.lineno, value,
                                   negated=isinstance(expr.op, ast.Or), node=expr))
            return
        if isinstance(expr, ast.IfExp):
            self._expr(expr.test, state, extra)
            self._expr(expr.body, state, extra + (Guard("ternary", expr.lineno, expr.test,
                                                        node=expr),))
            self._expr(expr.orelse, state, extra + (Guard("ternary", expr.lineno, expr.test,
                                                          True, node=expr),))
            return
        if isinstance(expr, ast.NamedExpr):
            self._expr(expr.value, state, extra)
            self._define(state, expr.target.id, "walrus", expr.lineno, expr.value)
            return
        if isinstance(expr, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            self._comprehension(expr, state, extra)
            return
        if isinstance(expr, ast.Lambda):
            return  # its own function (flow_facts(lambda)); closure reads are not followed here
        if isinstance(expr, ast.Call):
            if id(expr) not in self._seen_calls:
                self._seen_calls.add(id(expr))
                self.facts.calls.append(expr)
            self._record(expr, extra)
            self.call_log.append(expr)
        for child in ast.iter_child_nodes(expr):
            if not isinstance(child, _NO_FLOW):  # a Load, an operator: nothing to record
                self._expr(child, state, extra)
        if isinstance(expr, ast.Call):
            self._shrink_call(expr, state)

    def _comprehension(self, expr: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       state: State, extra: tuple[Guard, ...]) -> None:
        inner = _copy(state)
        guards = extra
        for gen in expr.generators:
            self._expr(gen.iter, inner, guards)
            guards = guards + (Guard("for", gen.iter.lineno, gen.iter, node=gen),)
            for name, index, unpacked in _targets(gen.target):
                d = self._make_def(name, "for", gen.iter.lineno, gen.iter, index,
                                   self._current() + guards, unpacked=unpacked)
                assert inner is not None
                inner[name] = {d: frozenset()}
            for cond in gen.ifs:
                self._expr(cond, inner, guards)
                guards = guards + (Guard("comprehension", cond.lineno, cond, node=gen),)
        if isinstance(expr, ast.DictComp):
            self._expr(expr.key, inner, guards)
            self._expr(expr.value, inner, guards)
        else:
            self._expr(expr.elt, inner, guards)

    # -- statements --------------------------------------------------------------------
    def _passed_exits(self) -> tuple[Guard, ...]:
        """The ``exit`` guards of every open block (asked at every name read: kept until
        ``exit_guards`` changes)."""
        version, passed = self._passed
        if version != self._exits_changed:
            passed = tuple(g for block in self.exit_guards for g in block if g.kind == "exit")
            self._passed = (self._exits_changed, passed)
        return passed

    def _block(self, body: list[ast.stmt], state: State) -> State:
        self.exit_guards.append([])
        self._exits_changed += 1
        self.block_depth.append(len(self.guards))
        calls: list[ast.Call] = []
        self.call_lists.append(calls)
        seen: set[int] = set()
        try:
            for stmt in body:
                if state is None:
                    break
                mark = len(self.call_log)
                state = self._stmt(stmt, state)
                for call in self.call_log[mark:]:
                    if id(call) not in seen:
                        seen.add(id(call))
                        calls.append(call)
        finally:
            self.exit_guards.pop()
            self._exits_changed += 1
            self.block_depth.pop()
            self.call_lists.pop()
        return state

    def _raised(self, stmt: ast.Raise | ast.Assert) -> None:
        """``stmt`` raises: kept with its exception's class and the tries open around it."""
        self.facts.raises[id(stmt)] = (stmt, self._current(), _raised_class(stmt),
                                       tuple(self.open_tries))

    def _exit(self, stmt: ast.stmt, floor: int = 0) -> None:
        """An early exit: the statements after it in every enclosing block down to ``floor``
        (the function, or the loop body for break/continue, or the try body for raise) run
        only when the conditions that led to it did not hold. The innermost condition is
        flipped (``exit``); the outer ones opened inside each such block are kept as
        ``exit-outer`` (their polarity says nothing alone), however deep (an ``elif`` chain
        nests one level per test), at most ``_EXIT_OUTER`` of them."""
        if not self.guards:
            return
        inner = self.guards[-1]
        exit_guard = Guard("exit", inner.line, inner.test, not inner.negated, node=inner.node)
        for index in range(max(floor, 1), len(self.exit_guards)):
            outer = self.guards[self.block_depth[index]:-1][-_EXIT_OUTER:]
            added = [exit_guard, *(Guard("exit-outer", g.line, g.test, g.negated, node=g.node)
                                   for g in outer)]
            block = self.exit_guards[index]
            block.extend(g for g in added if g not in block)
            self._exits_changed += 1
            for g in added:
                left = self.facts.exit_by.setdefault(g, [])
                if not any(s is stmt for s in left):
                    left.append(stmt)

    def _stmt(self, stmt: ast.stmt, state: State) -> State:
        self._record(stmt)
        if isinstance(stmt, ast.Assign):
            self._expr(stmt.value, state)
            for target in stmt.targets:
                self._assign_target(target, state, "assign", stmt.lineno, stmt.value)
            return state
        if isinstance(stmt, ast.AnnAssign):
            self._expr(stmt.value, state)
            if stmt.value is not None:
                self._assign_target(stmt.target, state, "assign", stmt.lineno, stmt.value)
            return state
        if isinstance(stmt, ast.AugAssign):
            self._expr(stmt.value, state)
            if isinstance(stmt.target, ast.Name):
                load = ast.Name(stmt.target.id, ast.Load(), lineno=stmt.lineno,
                                col_offset=stmt.col_offset)
                combined = ast.BinOp(load, stmt.op, stmt.value, lineno=stmt.lineno,
                                     col_offset=stmt.col_offset)
                self._expr(load, state)
                self._define(state, stmt.target.id, "augassign", stmt.lineno, combined)
            else:
                self._expr(stmt.target, state)
            return state
        if isinstance(stmt, ast.If):
            return self._if(stmt, state)
        if isinstance(stmt, ast.For | ast.AsyncFor):
            return self._for(stmt, state)
        if isinstance(stmt, ast.While):
            return self._while(stmt, state)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            return self._try(stmt, state)  # type: ignore[arg-type]
        if isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                self._expr(item.context_expr, state)
                if item.optional_vars is not None:
                    self._assign_target(item.optional_vars, state, "with", stmt.lineno,
                                        item.context_expr)
            caught = _suppressed_classes(stmt)
            if caught is False:
                return self._block(stmt.body, state)
            return self._suppressing(stmt, caught, state)
        if isinstance(stmt, ast.Return):
            self._expr(stmt.value, state)
            self.facts.returns.append((stmt.value, self._current()))
            self._exit(stmt)
            return None
        if isinstance(stmt, ast.Raise):
            self._expr(stmt.exc, state)
            if not _reraises(stmt, self.guards[-1] if self.guards else None):
                self._raised(stmt)  # before its own exit joins the guards
                self._exit(stmt, self.try_depth[-1] if self.try_depth else 0)
            return None  # a handler re-raising what it caught: the flow of no try at all
        if isinstance(stmt, ast.Assert):  # `if not test: raise AssertionError(msg)`
            self._expr(stmt.test, state)
            if stmt.msg is not None:
                self._expr(stmt.msg, state)
            self.guards.append(Guard("if", stmt.lineno, stmt.test, True, node=stmt))
            try:
                self._raised(stmt)
                self._exit(stmt, self.try_depth[-1] if self.try_depth else 0)
            finally:
                self.guards.pop()
            return state
        if isinstance(stmt, ast.Break):
            if self.loop_breaks:
                self.loop_breaks[-1].append(_copy(state))
                inner = self.guards[self.loop_guard_depth[-1]:][-_EXIT_OUTER:]
                self.break_guards[-1].extend(g for g in inner if g not in self.break_guards[-1])
            self._exit(stmt, self.loop_depth[-1] if self.loop_depth else 0)
            return None
        if isinstance(stmt, ast.Continue):
            if self.loop_continues:
                self.loop_continues[-1].append(_copy(state))
            self._exit(stmt, self.loop_depth[-1] if self.loop_depth else 0)
            return None
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for deco in stmt.decorator_list:
                self._expr(deco, state)
            self._define(state, stmt.name, "def", stmt.lineno, None)
            return state
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                self._define(state, (alias.asname or alias.name).split(".")[0], "import",
                             stmt.lineno, None)
            return state
        if isinstance(stmt, ast.Match):
            return self._match(stmt, state)
        if isinstance(stmt, ast.Delete):  # `del xs[i]` on a local: an entry taken out
            for t in stmt.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    self._expr(t.slice, state)
                    self._fill(state, t.value.id, stmt.lineno, t.slice, how="del")
            return state
        for child in ast.iter_child_nodes(stmt):
            self._expr(child, state)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self._fill_call(stmt.value, state)
        return state

    def _fill_call(self, call: ast.Call, state: State) -> None:
        """``xs.append(v)``, ``d.update(m)``, ``s.add(v)``... on a local: what it puts in."""
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.attr in _FILLING and (call.args or call.keywords):
            parts = list(call.args) + [k.value for k in call.keywords]
            value = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load(),
                                                               lineno=call.lineno, col_offset=0)
            self._fill(state, func.value.id, call.lineno, value, how=func.attr)

    def _shrink_call(self, call: ast.Call, state: State) -> None:
        """``xs.remove(v)``, ``xs.pop()``, ``xs.clear()``... on a local (a statement or a
        value), and ``next(it)``: an entry taken out, a definition beside the others (what
        it names)."""
        func = call.func
        if isinstance(func, ast.Name) and func.id == "next" and call.args \
                and isinstance(call.args[0], ast.Name) and "next" not in state:
            name, how, parts = call.args[0].id, "next", []  # an entry taken off an iterator
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.attr in SHRINKING:
            name, how, parts = func.value.id, func.attr, [*call.args,
                                                          *(k.value for k in call.keywords)]
        else:
            return
        value = self._shrunk.get(id(call))
        if value is None:  # one node per call: a loop walked again finds the same def
            value = self._shrunk[id(call)] = parts[0] if len(parts) == 1 else ast.Tuple(
                parts, ast.Load(), lineno=call.lineno, col_offset=0) if parts \
                else ast.Constant(None, lineno=call.lineno, col_offset=0)
        self._fill(state, name, call.lineno, value, how=how)

    def _arm(self, guard: Guard, body: list[ast.stmt], state: State) -> State:
        self.guards.append(guard)
        try:
            return self._block(body, state)
        finally:
            self.guards.pop()

    def _if(self, stmt: ast.If, state: State) -> State:
        self._expr(stmt.test, state)
        yes = Guard("if", stmt.lineno, stmt.test, node=stmt)
        no = Guard("if", stmt.lineno, stmt.test, True, node=stmt)
        yes_in, no_in = _copy(state), _copy(state)
        key = _pure_test(stmt.test, state)
        if key is None:
            self._test_keys.pop(id(stmt), None)
        else:
            self._test_keys[id(stmt)] = key
            self._drop_contradicted(yes_in, key, True)
            self._drop_contradicted(no_in, key, False)
        after_yes = self._arm(yes, stmt.body, yes_in)
        after_no = self._arm(no, stmt.orelse, no_in)
        return _join(after_yes, after_no, yes, no)

    def _drop_contradicted(self, state: State, key: tuple, holds: bool) -> None:
        """Correlated branches: in the arm of an ``if`` where its (pure, local) test is
        ``holds``, drop each definition that reaches only where an earlier ``if`` on the
        same test, with the same definitions of the names it reads, took the other arm
        (``if use: x = a`` ... ``if use: x = b else: <x is not a here>``)."""
        if state is None:
            return
        text, flipped, defs = key
        value = holds != flipped
        for found in state.values():
            drop = []
            for d, guards in found.items():
                seen = {self._test_value(g, text, defs) for g in guards} - {None}
                if seen == {not value}:
                    drop.append(d)
            if drop and len(drop) < len(found):
                for d in drop:
                    del found[d]

    def _test_value(self, guard: Guard, text: str, defs: tuple) -> bool | None:
        """What ``guard`` (an ``if`` arm) says of the pure test ``text`` read with ``defs``:
        its value there, None when it tests something else."""
        if guard.kind != "if" or not isinstance(guard.node, ast.If):
            return None
        key = self._test_keys.get(id(guard.node))
        if key is None or key[0] != text or key[2] != defs:
            return None
        return (not guard.negated) != key[1]

    def _loop(self, guard: Guard, stmt: ast.For | ast.AsyncFor | ast.While, state: State,
              define: bool) -> State:
        self.loop_breaks.append([])
        self.loop_continues.append([])
        self.break_guards.append([])
        self.recorded.append(set())
        self.loop_depth.append(len(self.exit_guards))
        self.loop_guard_depth.append(len(self.guards) + 1)
        entry = state
        end: State = None
        for _ in range(3):  # to a fixpoint (definitions only grow)
            self.loop_breaks[-1].clear()
            self.loop_continues[-1].clear()
            self.break_guards[-1].clear()
            if isinstance(stmt, ast.While):  # tested before every pass: what the body left
                self._expr(stmt.test, entry)
            body_state = _copy(entry)
            if define and isinstance(stmt, ast.For | ast.AsyncFor):
                for name, index, unpacked in _targets(stmt.target):
                    d = self._make_def(name, "for", stmt.lineno, stmt.iter, index,
                                       self._current() + (guard,), unpacked=unpacked)
                    if body_state is not None:
                        body_state[name] = {d: frozenset()}
            end = self._arm(guard, stmt.body, body_state)
            for cont in self.loop_continues[-1]:
                end = _join(end, cont)
            new_entry = _join(state, end)
            if new_entry == entry:
                break
            entry = new_entry
        breaks = self.loop_breaks.pop()
        self.loop_continues.pop()
        self.loop_depth.pop()
        self.loop_guard_depth.pop()
        ids = self.recorded.pop()
        for g in self.break_guards.pop():
            extra = Guard("break", g.line, g.test, g.negated, node=g.node)
            for node_id in ids:
                self.facts.guards[node_id] = self.facts.guards.get(node_id, ()) + (extra,)
        if self.recorded:
            self.recorded[-1].update(ids)
        after = _join(entry, _copy(entry))
        after = self._block(stmt.orelse, after) if stmt.orelse else after
        for b in breaks:
            after = _join(after, b)
        return after

    def _for(self, stmt: ast.For | ast.AsyncFor, state: State) -> State:
        self._expr(stmt.iter, state)
        guard = Guard("for", stmt.lineno, stmt.iter, node=stmt)
        return self._loop(guard, stmt, state, define=True)

    def _while(self, stmt: ast.While, state: State) -> State:
        self._expr(stmt.test, state)
        guard = Guard("while", stmt.lineno, stmt.test, node=stmt)
        return self._loop(guard, stmt, state, define=False)

    def _try(self, stmt: ast.Try, state: State) -> State:
        before = _copy(state)
        self.try_depth.append(len(self.exit_guards) if stmt.handlers else 0)
        if stmt.handlers:
            self.facts.handlers[id(stmt)] = _caught_classes(stmt.handlers)
            self.open_tries.append(id(stmt))
        try:
            body_end = self._block(stmt.body, _copy(state))
        finally:
            self.try_depth.pop()
            if stmt.handlers:
                self.open_tries.pop()
        anywhere = _join(before, body_end)
        outs: State = self._block(stmt.orelse, body_end) if stmt.orelse else body_end
        for handler in stmt.handlers:
            hstate = _copy(anywhere)
            if handler.name and hstate is not None:
                self._define(hstate, handler.name, "except", handler.lineno, handler.type)
            guard = Guard("except", handler.lineno, handler.type, node=handler)
            outs = _join(outs, self._arm(guard, handler.body, hstate))
        if stmt.finalbody:
            final_in = _join(outs, anywhere) if outs is not None else _copy(anywhere)
            final_out = self._block(stmt.finalbody, final_in)
            return final_out if outs is not None else None
        return outs

    def _suppressing(self, stmt: ast.With | ast.AsyncWith, caught: frozenset[str] | None,
                     state: State) -> State:
        """``with contextlib.suppress(E): body``, read as ``try: body except E: pass``: a
        raise in the body leaves the body only, and an exception it catches ends the body
        wherever it was raised."""
        before = _copy(state)
        self.facts.handlers[id(stmt)] = caught
        self.open_tries.append(id(stmt))
        self.try_depth.append(len(self.exit_guards))
        try:
            body_end = self._block(stmt.body, _copy(state))
        finally:
            self.try_depth.pop()
            self.open_tries.pop()
        return _join(before, body_end)

    def _match(self, stmt: ast.Match, state: State) -> State:
        self._expr(stmt.subject, state)
        out: State = None
        for case in stmt.cases:
            guard = Guard("if", case.pattern.lineno, stmt.subject, node=case)
            cstate = _copy(state)
            for node in subnodes(case.pattern):
                name = getattr(node, "name", None) if isinstance(
                    node, ast.MatchAs | ast.MatchStar) else None
                if name:
                    self._define(cstate, name, "match", case.pattern.lineno, stmt.subject)
            out = _join(out, self._arm(guard, case.body, cstate))
        return _join(out, state)


def reraising(handler: ast.AST) -> bool:
    """An ``except`` handler whose last statement raises (cleanup, then ``raise`` or ``raise
    Other(...) from e``): on the ranks where the try body raised, the function is left by
    an exception exactly as without the try, so neither the code after the try nor what the
    handler writes first is decided by it (what it writes is seen only by code that catches
    the exception again, outside)."""
    return isinstance(handler, ast.ExceptHandler) and bool(handler.body) and isinstance(
        handler.body[-1], ast.Raise)


def _raised_class(stmt: ast.Raise | ast.Assert) -> str | None:
    """The class name of what ``stmt`` raises (``raise RuntimeError(...)``, ``raise
    errors.Late``, an assert's AssertionError), None when not written out."""
    if isinstance(stmt, ast.Assert):
        return "AssertionError"
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    if isinstance(exc, ast.Name):
        return exc.id
    return exc.attr if isinstance(exc, ast.Attribute) else None


def _caught_classes(handlers: list[ast.ExceptHandler]) -> frozenset[str] | None:
    """The class names a try's handlers catch and keep (a handler that raises again,
    ``except Exception: cleanup(); raise``, lets an exception go on: it catches nothing
    here); None when one keeps any exception (``except:``, ``except Exception``,
    ``except BaseException``)."""
    names: set[str] = set()
    for handler in handlers:
        if reraising(handler):
            continue
        if handler.type is None:
            return None
        for t in handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]:
            name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(
                t, ast.Attribute) else ""
            if name in ("Exception", "BaseException"):
                return None
            names.add(name)
    return frozenset(names)


# what a test may hold to read the same on two ``if`` statements when the definitions of its
# names are the same: locals, constants, ``not``/``and``/``or`` and comparisons
_PURE_TEST = (ast.Name, ast.Load, ast.Constant, ast.UnaryOp, ast.Not, ast.BoolOp, ast.And,
              ast.Or, ast.Compare, ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.Lt, ast.LtE,
              ast.Gt, ast.GtE)


def _pure_test(test: ast.expr, state: State) -> tuple[str, bool, tuple] | None:
    """(the test without its leading ``not``s, whether they flip it, the definitions that
    reach each name it reads) for a test of locals only (no call, attribute, item or
    membership, whose value can change with nothing defined); None for any other test."""
    flipped = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, flipped = test.operand, not flipped
    names: set[str] = set()
    for node in subnodes(test):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif not isinstance(node, _PURE_TEST):
            return None
    if state is None or not names or any(not state.get(n) for n in names):
        return None
    defs = tuple((n, frozenset(map(id, state[n]))) for n in sorted(names))
    return ast.dump(test), flipped, defs


def _suppressed_classes(stmt: ast.With | ast.AsyncWith) -> frozenset[str] | None | bool:
    """The class names a ``with contextlib.suppress(A, B):`` (or ``suppress(...)`` imported
    by name) keeps from leaving its body; None for any exception (``Exception``,
    ``BaseException``); False when no item is a suppress."""
    names: set[str] = set()
    found = False
    for item in stmt.items:
        call = item.context_expr
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if not (isinstance(func, ast.Name) and func.id == "suppress"
                or isinstance(func, ast.Attribute) and func.attr == "suppress"
                and isinstance(func.value, ast.Name) and func.value.id == "contextlib"):
            continue
        found = True
        for arg in call.args:
            name = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(
                arg, ast.Attribute) else ""
            if name in ("Exception", "BaseException"):
                return None
            names.add(name)
    return frozenset(names) if found else False


def _reraises(stmt: ast.Raise, guard: Guard | None) -> bool:
    """``stmt`` is the raise that ends a handler (:func:`reraising`)."""
    return guard is not None and reraising(guard.node) and guard.node.body[-1] is stmt
