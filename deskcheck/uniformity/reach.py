"""The functions reachable from the root methods, each in the constant contexts its callers
give it (``is_fully_idle(for_health_check=True)`` is its own context), the collective sites
in them, and which functions (transitively) issue a collective."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any

from deskcheck.static import (
    CallResolver,
    ClassSource,
    FlowFacts,
    Fn,
    Guard,
    class_key,
    flow_facts,
    holding_guards,
    note_read,
    parameter_annotation,
    subnodes,
)
from deskcheck.uniformity.collectives import (
    classify_call,
    head_module_of,
    imported_origin,
    site_dim,
)
from deskcheck.uniformity.config import Consensus, UniformityConfig
from deskcheck.uniformity.consensus import consensus_entry
from deskcheck.uniformity.leaves import default_of
from deskcheck.uniformity.model import CollectiveSite
from deskcheck.uniformity.preconditions import (
    Precondition,
    reached_only_where,
    root_preconditions,
)
from deskcheck.uniformity.rules import declared_dim, hop_text

NOTHING: Any = object()
_MAX_CONTEXTS = 6
_MAX_FUNCTIONS = 4000


@dataclass(eq=False)
class Ctx:
    """One function in one constant context."""

    fn: Fn
    consts: dict[str, Any]
    flow: FlowFacts
    sites: list[tuple[ast.Call, CollectiveSite]] = field(default_factory=list)
    edges: list[tuple[ast.Call, Ctx]] = field(default_factory=list)
    unresolved: list[tuple[ast.Call, str]] = field(default_factory=list)
    parent: tuple[Ctx, ast.Call] | None = None
    reaches: bool = False
    summary: bool = False  # a return value's summary: parameters stay symbolic (summaries.py)

    @property
    def key(self) -> tuple:
        """(function, constants[, summary]): computed once, a context is never re-bound."""
        found = self.__dict__.get("_key")
        if found is None:
            consts = tuple(sorted((k, repr(v)) for k, v in self.consts.items()))
            found = (self.fn.key, consts, True) if self.summary else (self.fn.key, consts)
            self.__dict__["_key"] = found
        return found


def evaluate(expr: ast.expr | None, consts: dict[str, Any]) -> Any:
    """The value of ``expr`` from constants alone, or NOTHING."""
    if expr is None:
        return NOTHING
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Name):
        return consts.get(expr.id, NOTHING)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = evaluate(expr.operand, consts)
        return NOTHING if inner is NOTHING else not inner
    if isinstance(expr, ast.BoolOp):
        values = [evaluate(v, consts) for v in expr.values]
        is_or = isinstance(expr.op, ast.Or)
        for v in values:
            if v is not NOTHING and bool(v) == is_or:
                return v
        return NOTHING if any(v is NOTHING for v in values) else values[-1]
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left, right = evaluate(expr.left, consts), evaluate(expr.comparators[0], consts)
        if left is NOTHING or right is NOTHING:
            return NOTHING
        op = expr.ops[0]
        try:
            return {ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right,
                    ast.Is: lambda: left is right, ast.IsNot: lambda: left is not right,
                    ast.Lt: lambda: left < right, ast.Gt: lambda: left > right,
                    ast.LtE: lambda: left <= right, ast.GtE: lambda: left >= right,
                    }.get(type(op), lambda: NOTHING)()
        except TypeError:
            return NOTHING
    return NOTHING


def guard_state(guard: Guard, consts: dict[str, Any]) -> bool | None:
    """True: the guard holds in this context; False: it cannot (dead code); None: undecided."""
    if not consts or guard.kind not in ("if", "exit", "ternary", "boolop", "while",
                                        "comprehension"):
        return None
    value = evaluate(guard.test, consts)
    if value is NOTHING:
        return None
    return bool(value) != guard.negated


# the guards whose tests decide a definition's value: whether it runs, and how often (a
# loop's trip count: ``n += 1`` under ``for``); read for every write of a field, and for a
# local or a return where several definitions reach
DECIDING_GUARDS = ("if", "exit", "exit-outer", "while", "for", "break", "ternary", "boolop",
                   "comprehension", "except")


def tested(guard: Guard) -> bool:
    """Whether a guard has a condition to read: a test, or an ``except`` handler (whether the
    try body raised; a bare ``except:`` has no test but is still a condition)."""
    return guard.test is not None or isinstance(guard.node, ast.ExceptHandler)


def guard_mode(guard: Guard) -> str:
    """How a guard's test is read: a loop's trip count follows its iterable's length; any
    other guard, its truth (a bare container by its length, never its entries)."""
    return "length" if guard.kind == "for" else "truth"


def is_dead(guards: tuple[Guard, ...], consts: dict[str, Any]) -> bool:
    """Whether a guard that holds on every path (not an exit nested under a condition)
    cannot hold in this context."""
    return bool(consts) and any(guard_state(g, consts) is False
                                for g in holding_guards(guards))


class Reach:
    """Builds the contexts from the roots (breadth first, so ``parent`` is a shortest chain)."""

    def __init__(self, resolver: CallResolver, config: UniformityConfig) -> None:
        self.resolver = resolver
        self.config = config
        self.ctxs: dict[tuple, Ctx] = {}
        self.by_fn: dict[tuple, list[Ctx]] = {}
        self.callers: dict[tuple, list[tuple[Ctx, ast.Call]]] = {}
        self.sites: list[CollectiveSite] = []
        self.notes: list[str] = []
        self.root_keys: set[tuple] = set()  # the audit's own roots (``build``)
        self._tested: dict[int, set[str]] = {}
        self._forwards: dict[tuple[int, str], bool] = {}  # (function, parameter) -> passed on
        self._statements: dict[int, frozenset[int]] = {}
        # root preconditions (``preconditions.py``): per root, and per function the dims
        # single-rank on every root that reaches it
        self.preconditions: dict[tuple, Precondition] = {}
        self.only_where: dict[tuple, frozenset[str]] = {}

    def ctx(self, fn: Fn, consts: dict[str, Any]) -> tuple[Ctx, bool]:
        probe = Ctx(fn, consts, flow_facts(fn.node))
        found = self.ctxs.get(probe.key)
        if found is not None:
            return found, False
        existing = self.by_fn.setdefault(fn.key, [])
        if consts and len(existing) >= _MAX_CONTEXTS:
            return self.ctx(fn, {})
        self.ctxs[probe.key] = probe
        existing.append(probe)
        return probe, True

    def build(self, roots: list[Fn]) -> None:
        queue: list[Ctx] = []
        self.root_keys = {fn.key for fn in roots}
        for fn in roots:
            ctx, new = self.ctx(fn, {})
            if new:
                queue.append(ctx)
        head = 0
        while head < len(queue) and len(self.ctxs) < _MAX_FUNCTIONS:
            ctx = queue[head]
            head += 1
            for callee in self._scan(ctx):
                queue.append(callee)
        if len(self.ctxs) >= _MAX_FUNCTIONS:
            self.notes.append(f"stopped after {_MAX_FUNCTIONS} function contexts")
        self._keep_parameter_notes()
        self._resolve_groups()
        self._propagate()

    def read_preconditions(self, roots: list[Fn], modules: list[str]) -> None:
        """The roots' preconditions, read from their calls in ``modules`` outside the walk,
        and what every function reached holds of them (``preconditions.py``)."""
        walked = {(c.fn.file, c.fn.node.lineno) for c in self.ctxs.values()}
        self.preconditions = root_preconditions(roots, modules, self.resolver.index, walked)
        starts = [self.ctxs[k] for k in ((fn.key, ()) for fn in roots) if k in self.ctxs]
        self.only_where = reached_only_where(self.preconditions, starts)

    # -- groups ---------------------------------------------------------------------------
    def _resolve_groups(self) -> None:
        """A site whose group is a parameter or a field: its dimension(s) from the callers'
        arguments / the field's writes (``attn_tp|attn_cp`` when callers differ)."""
        resolved: dict[tuple, CollectiveSite] = {}
        for ctx in self.ctxs.values():
            for i, (call, site) in enumerate(ctx.sites):
                if site.dim != "world" or site.group in ("", "WORLD"):
                    continue
                expr = _group_node(call, site.group)
                if expr is None:
                    try:
                        expr = ast.parse(site.group, mode="eval").body
                    except SyntaxError:
                        continue
                texts = self.group_texts(ctx, expr, 0)
                dims = sorted({site_dim(t, self.config) for t in texts} - {"world"})
                if dims and len(dims) == len({site_dim(t, self.config) for t in texts}):
                    new = replace(site, dim="|".join(dims),
                                  group=f"{site.group} = {' | '.join(sorted(set(texts)))}")
                    ctx.sites[i] = (call, new)
                    resolved[(site.file, site.line, site.call)] = new
        if resolved:
            self.sites = [resolved.get((s.file, s.line, s.call), s) for s in self.sites]

    def group_texts(self, ctx: Ctx, expr: ast.expr, depth: int) -> list[str]:
        fn = ctx.fn
        if depth > 4:
            return [ast.unparse(expr)]
        if isinstance(expr, ast.Name) and expr.id in ctx.flow.params:
            out: list[str] = []
            for caller, call in self.callers.get(fn.key, []):
                arg = argument_for(fn, call, expr.id)
                if arg is not None:
                    out += self.group_texts(caller, arg, depth + 1)
            if not out and fn.key in self.root_keys and expr.id != fn.self_name:
                # a root's group parameter declared by its key (``Engine.step.pg``)
                key = f"{fn.qualname}.{expr.id}"
                if declared_dim(key, self.config.groups) is not None:
                    return [key]
            return out or [ast.unparse(expr)]
        if isinstance(expr, ast.Name):  # a local: what every definition reaching it binds
            reaching = ctx.flow.reaching.get(id(expr), ())
            values = [v for d, _f in reaching for v in _bound_values(d)]
            if values and all(_bound_values(d) for d, _f in reaching):
                return [t for v in values for t in self.group_texts(ctx, v, depth + 1)]
            return [ast.unparse(expr)]
        if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
                and expr.value.id == fn.self_name and fn.model is not None
                and site_dim(ast.unparse(expr), self.config) == "world"):
            from deskcheck.static import field_writes

            writes = [w for w in field_writes(fn.model).get(expr.attr, [])
                      if w.value is not None and w.kind == "assign"]
            texts = [ast.unparse(w.value) for w in writes]
            return texts or [ast.unparse(expr)]
        return [ast.unparse(expr)]

    def root_parameters(self, ctx: Ctx, expr: ast.expr, depth: int = 0
                        ) -> list[tuple[Fn, str]] | None:
        """The parameters of the audit's roots that a group expression is, through the
        parameters its callers fill and the locals bound to it: their callers are outside
        the code read (``train_batch_iter(self, model, pg)``: ``dist.get_rank(pg)``). Every
        path must end at one (a helper called from two roots with their own groups: both,
        in order); None where any path leads elsewhere."""
        fn = ctx.fn
        if depth > 4 or not isinstance(expr, ast.Name) or ctx.summary \
                or expr.id == fn.self_name:  # the object audited, not a group passed in
            return None
        if expr.id not in ctx.flow.params:
            reaching = ctx.flow.reaching.get(id(expr), ())
            if not reaching or any(d.kind != "assign" or d.unpacked or d.value is None
                                   for d, _f in reaching):
                return None
            return self._every_root_parameter(
                self.root_parameters(ctx, d.value, depth + 1) for d, _f in reaching)
        callers = self.callers.get(fn.key, [])
        if not callers:
            return [(fn, expr.id)] if fn.key in self.root_keys else None
        args = [(caller, argument_for(fn, call, expr.id)) for caller, call in callers]
        if any(arg is None for _caller, arg in args):
            return None
        return self._every_root_parameter(
            self.root_parameters(caller, arg, depth + 1) for caller, arg in args)

    @staticmethod
    def _every_root_parameter(paths) -> list[tuple[Fn, str]] | None:
        found: dict[tuple, tuple[Fn, str]] = {}
        for one in paths:
            if one is None:
                return None
            for fn, name in one:
                found.setdefault((fn.key, name), (fn, name))
        return sorted(found.values(), key=lambda one: (one[0].qualname, one[1])) or None

    def _scan(self, ctx: Ctx) -> list[Ctx]:
        new: list[Ctx] = []
        fn = ctx.fn
        for call in ctx.flow.calls:
            guards = ctx.flow.guards.get(id(call), ())
            if is_dead(guards, ctx.consts):
                continue
            imported = head = original = None
            info = self.resolver.index.module(fn.module) if fn.module else None
            if isinstance(call.func, ast.Name):
                imported, original = imported_origin(self.resolver.index, fn.module,
                                                     call.func.id)
            elif info is not None:
                head = head_module_of(call.func, info.bindings)
            kind = classify_call(call, self.config, imported, head, original=original)
            if kind is not None:
                group = kind[1]
                site = CollectiveSite(fn.qualname, fn.file, call.lineno, ast.unparse(call.func),
                                      kind[0], group, site_dim(group, self.config))
                ctx.sites.append((call, site))
                self.sites.append(site)
                continue
            try:
                callees, note = self.resolver.resolve(fn, call)
            except RecursionError:
                callees, note = [], "resolution too deep"
            if not callees and not note:
                callees = self._local_object_method(ctx, call)
            if not callees and not note:
                # an action on a parameter (`state.run_communication()`): its annotation
                found = self.resolver.parameter_method(fn, call)  # names the class
                if found is not None and id(call) in self._statement_calls(fn.node):
                    callees = [found]
                elif found is not None:  # `if batch.is_empty():`, its value read
                    note = _read_through_annotation(call)
            if not callees and not note:
                note = _parameter_receiver(ctx, call) or _local_receiver(ctx, call)
            claimed = next((e for e in map(self._consensus, callees) if e is not None), None)
            if claimed is not None:
                # a function every rank of a group must call, in order: a site, and entered
                site = CollectiveSite(fn.qualname, fn.file, call.lineno, ast.unparse(call.func),
                                      "collective", claimed.group,
                                      site_dim(claimed.group, self.config))
                ctx.sites.append((call, site))
                self.sites.append(site)
            if note:
                ctx.unresolved.append((call, note))
            elif (not callees and _module_level(call, ctx.flow)
                  and classify_call(call, self.config, "torch.distributed") is None):
                # a call into code outside the root (a logger's) that not even a reduction
                # in place could be (the walk reads those as torch's): its string arguments
                # reach nothing the audit reads (the cache may skip their words)
                note_read(fn.file, call.lineno, f"inert:{call.col_offset}")
            for callee in callees:
                consts = self._constants(ctx, call, callee)
                target, created = self.ctx(callee, consts)
                ctx.edges.append((call, target))
                self.callers.setdefault(target.fn.key, []).append((ctx, call))
                if created:
                    target.parent = (ctx, call)
                    new.append(target)
        return new

    def _consensus(self, callee: Fn) -> Consensus | None:
        """The ``consensus`` entry whose decorator ``callee`` carries, if any."""
        return consensus_entry(callee, self.config.consensus)

    def files_read(self, model=None) -> set[str]:
        """The files the walk entered or read a class from (``model``: the target's too)."""
        files = {c.fn.file for c in self.ctxs.values()}
        for m in [*self.resolver.models(), *([model] if model is not None else [])]:
            files.update(k.file for k in m.sources)
        return {f for f in files if f}

    def _keep_parameter_notes(self) -> None:
        """Of the methods called on parameters and locals of unknown class, keep listed only
        those a class in the code read defines (``t.numel()``, ``path.mkdir()``: no code of
        ours)."""
        known: set[str] = set()
        index = self.resolver.index
        for name in index.loaded_modules():
            info = index.module(name)
            for binding in info.bindings.values() if info is not None else ():
                if binding.kind == "class" and isinstance(binding.node, ast.ClassDef):
                    known.update(n.name for n in binding.node.body if isinstance(
                        n, ast.FunctionDef | ast.AsyncFunctionDef))
        for ctx in self.ctxs.values():
            ctx.unresolved = [(call, note) for call, note in ctx.unresolved
                              if not note.startswith((_PARAMETER_NOTE, _LOCAL_NOTE))
                              or call.func.attr in known]

    def _statement_calls(self, node: ast.AST) -> frozenset[int]:
        """The calls a function makes as statements (their value unused: actions on an
        object, not reads of it)."""
        found = self._statements.get(id(node))
        if found is None:
            found = self._statements[id(node)] = frozenset(
                id(s.value) for s in subnodes(node)
                if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call))
        return found

    def _local_object_method(self, ctx: Ctx, call: ast.Call) -> list[Fn]:
        """``g = Gather(...); g.wait()``: the method of the class a local holds, when every
        definition of it reaching the call builds an object of a class under the roots
        (lmdeploy's ``DistGatherScalar``; ``self.get_cls()(...)`` builds the class that
        returns, SGLang's ``get_prefill_adder_class``) or is what one factory returns
        (SGLang's ``ScheduleBatch.init_new(...)``); else none."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) \
                or not ctx.fn.module:
            return []
        reaching = ctx.flow.reaching.get(id(func.value), ())
        out: list[Fn] = []
        for d, _facts in reaching:
            value = d.value
            if d.kind != "assign" or d.unpacked or not isinstance(value, ast.Call):
                return []
            klass = self.resolver.constructed_class(ctx.fn, value) \
                or self._factory_class(ctx, value)
            method = self.resolver.method(self.resolver.model_for(klass), func.attr) \
                if klass is not None else None
            if method is None:
                return []
            if method not in out:
                out.append(method)
        return out

    def _factory_class(self, ctx: Ctx, call: ast.Call) -> ClassSource | None:
        """The one class what ``call`` returns is an object of, when it calls one factory
        (``Batch.init_new(...)``, a classmethod ending ``return cls(...)``; a function
        returning ``Worker(...)`` or a local bound to one); else None."""
        callees, _note = self.resolver.resolve(ctx.fn, call)
        if len(callees) != 1:
            return None
        classes = {class_key(k): k for k in self.resolver.returned_classes(callees[0])}
        return next(iter(classes.values())) if len(classes) == 1 else None

    def _constants(self, ctx: Ctx, call: ast.Call, callee: Fn) -> dict[str, Any]:
        """Constant arguments (and constant defaults) for the callee's parameters that its
        conditions read and it never binds again, or that it only passes on to a callee
        whose conditions do (``_forwarded``): each distinct set is a context of its own."""
        constant = constant_arguments(call, ctx.consts, callee)
        if not constant:
            return {}
        tested = set(self._tested_params(callee))
        tested |= {n for n in constant.keys() - tested if self._forwarded(callee, n)}
        if not tested:
            return {}
        return {name: value for name, value in constant.items() if name in tested}

    def _tested_params(self, fn: Fn) -> set[str]:
        """The parameters of ``fn`` its conditions read; never one it binds again (``group =
        get_group() if group is None else group`` is not one value through the body)."""
        node = fn.node
        tested = self._tested.get(id(node))
        if tested is None:
            rebound = {d.name for d in flow_facts(node).defs if d.kind != "param"}
            tested = self._tested[id(node)] = {
                n.id for g in _guards(fn) for n in subnodes(g.test)
                if isinstance(n, ast.Name)} - rebound
        return tested

    def _forwarded(self, fn: Fn, name: str, depth: int = 0) -> bool:
        """Whether ``fn`` passes its parameter ``name`` on unchanged to a callee's parameter
        that decides something there (``check(flag=True)`` -> ``self._check(flag)`` -> ``if
        flag:``), a few calls deep."""
        key = (id(fn.node), name)
        found = self._forwards.get(key)
        if found is not None:
            return found
        self._forwards[key] = False  # a call back into fn while it is open adds nothing
        facts = flow_facts(fn.node)
        found = False
        if depth < _FORWARD_DEPTH and name in facts.params and not any(
                d.name == name and d.kind != "param" for d in facts.defs):
            for call in facts.calls:
                if not any(isinstance(a, ast.Name) and a.id == name
                           for a in (*call.args, *(k.value for k in call.keywords))):
                    continue
                try:
                    callees, _note = self.resolver.resolve(fn, call)
                except RecursionError:
                    callees = []
                for callee in callees[:4]:
                    for param in [a.arg for a in (*callee.node.args.posonlyargs,
                                                  *callee.node.args.args,
                                                  *callee.node.args.kwonlyargs)]:
                        arg = argument_for(callee, call, param)
                        if isinstance(arg, ast.Name) and arg.id == name and (
                                param in self._tested_params(callee)
                                or self._forwarded(callee, param, depth + 1)):
                            found = True
                            break
                    if found:
                        break
                if found:
                    break
        self._forwards[key] = found
        return found

    def _propagate(self) -> None:
        """A context reaches a collective if it holds a site or calls one that does."""
        changed = True
        for ctx in self.ctxs.values():
            ctx.reaches = bool(ctx.sites)
        while changed:
            changed = False
            for ctx in self.ctxs.values():
                if not ctx.reaches and any(t.reaches for _c, t in ctx.edges):
                    ctx.reaches = True
                    changed = True

    def sites_under(self, ctx: Ctx) -> list[CollectiveSite]:
        """Every collective site a context reaches (memoised, cycle-safe)."""
        memo: dict[tuple, list[CollectiveSite]] = getattr(self, "_under", {})
        self._under = memo
        if ctx.key in memo:
            return memo[ctx.key]
        memo[ctx.key] = []
        seen: dict[tuple, CollectiveSite] = {}
        for _call, site in ctx.sites:
            seen.setdefault((site.file, site.line, site.call), site)
        for _call, target in ctx.edges:
            if target.reaches:
                for site in self.sites_under(target):
                    seen.setdefault((site.file, site.line, site.call), site)
        memo[ctx.key] = list(seen.values())
        return memo[ctx.key]

    def sites_at(self, caller: Ctx, call: ast.Call, target: Ctx) -> list[CollectiveSite]:
        """The sites ``target`` reaches as entered by ``call`` in ``caller``: a site whose
        group is a parameter (of ``target``, or passed on down to the function holding the
        site) runs over the group this call passes, not over every caller's."""
        bound: dict[tuple, set[str]] = {}
        for key, texts in self._param_groups(target).items():
            for param, raw in texts:
                arg, where = argument_for(target.fn, call, param), caller
                if arg is None:  # not passed: the wrapper's default, read where it is written
                    arg, where = default_of(target.fn.node, param), target
                found = self.group_texts(where, arg, 0) if arg is not None else []
                bound.setdefault(key, set()).update(found or [raw])
        out: list[CollectiveSite] = []
        for site in self.sites_under(target):
            texts = bound.get((site.file, site.line, site.call))
            if texts is None:
                out.append(site)
                continue
            raw = site.group.split(" = ", 1)[0]
            dims = sorted({site_dim(t, self.config) for t in texts})
            out.append(replace(site, dim="|".join(dims),
                               group=f"{raw} = {' | '.join(sorted(texts))}"))
        return out

    def _param_groups(self, ctx: Ctx) -> dict[tuple, set[tuple[str, str]]]:
        """Site -> {(parameter of ``ctx``'s function whose argument is its group, the
        group as written at the site)} for every site ``ctx`` reaches through parameters
        only (memoised; a recursive chain contributes what it found so far)."""
        memo: dict[tuple, dict] = self.__dict__.setdefault("_param_memo", {})
        if ctx.key in memo:
            return memo[ctx.key]
        memo[ctx.key] = out = {}
        params = ctx.flow.params
        for _call, site in ctx.sites:
            raw = site.group.split(" = ", 1)[0]
            if raw in params and raw != ctx.fn.self_name:
                out.setdefault((site.file, site.line, site.call), set()).add((raw, raw))
        for call, target in ctx.edges:
            if not target.reaches:
                continue
            for key, pairs in self._param_groups(target).items():
                for param, raw in pairs:
                    arg = argument_for(target.fn, call, param)
                    if isinstance(arg, ast.Name) and arg.id in params:
                        out.setdefault(key, set()).add((arg.id, raw))
        return out

    def chain(self, ctx: Ctx) -> list[str]:
        out: list[str] = []
        current: Ctx | None = ctx
        seen = 0
        while current is not None and current.parent is not None and seen < 30:
            parent, call = current.parent
            out.append(f"{parent.fn.file}:{call.lineno} {parent.fn.qualname} -> "
                       f"{current.fn.qualname}")
            current = parent
            seen += 1
        return list(reversed(out))


def _module_level(call: ast.Call, flow: FlowFacts) -> bool:
    """The call's function, or its receiver's root, is a module-level name or a builtin (no
    definition in the function reaches it): ``logger.info(...)``, ``print(...)``."""
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and not flow.reaching.get(id(root)) \
        and root.id not in flow.params


def _group_node(call: ast.Call, group: str) -> ast.expr | None:
    """The argument of ``call`` that passes its group (the one written ``group``)."""
    for node in [*(k.value for k in call.keywords), *call.args]:
        if ast.unparse(node) == group:
            return node
    return None


_FORWARD_DEPTH = 4  # calls a parameter is followed through, passed on unchanged


def constant_arguments(call: ast.Call, consts: dict[str, Any], callee: Fn
                       ) -> dict[str, Any] | None:
    """The constant each parameter of ``callee`` gets from ``call``: a constant default it
    does not pass, or an argument that evaluates to a scalar in the caller's context
    (``consts``). None: a starred argument or ``**`` hides which parameter gets what."""
    node = callee.node
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    out: dict[str, Any] = {
        name: default.value for name, default in zip(
            params[len(params) - len(node.args.defaults):], node.args.defaults, strict=True)
        if isinstance(default, ast.Constant)}
    out.update((k.arg, default.value) for k, default in zip(
        node.args.kwonlyargs, node.args.kw_defaults, strict=True)
        if isinstance(default, ast.Constant))
    offset = 1 if callee.self_name and isinstance(call.func, ast.Attribute) \
        or callee.qualname.endswith(".__init__") else 0
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if index + offset < len(params):
            _bind(out, params[index + offset], arg, consts)
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        _bind(out, keyword.arg, keyword.value, consts)
    return out


def _bind(out: dict[str, Any], name: str, arg: ast.expr, consts: dict[str, Any]) -> None:
    """``name`` gets ``arg``'s value where it evaluates to a scalar, else no constant."""
    value = evaluate(arg, consts)
    if value is NOTHING or not isinstance(value, bool | int | float | str | type(None)):
        out.pop(name, None)
    else:
        out[name] = value


def argument_for(fn: Fn, call: ast.Call, name: str) -> ast.expr | None:
    """The expression a call passes for parameter ``name`` of ``fn`` (None: not passed);
    for ``self``, the object a method is called on (``self.pp_group.sync()``)."""
    node = fn.node
    if name == fn.self_name and isinstance(call.func, ast.Attribute) \
            and not fn.qualname.endswith(".__init__"):
        return call.func.value
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    offset = 1 if fn.self_name and (isinstance(call.func, ast.Attribute)
                                    or fn.qualname.endswith(".__init__")) else 0
    if name in params:
        position = params.index(name) - offset
        if 0 <= position < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            return call.args[position]
    return None


def _guards(fn: Fn) -> list[Guard]:
    facts = flow_facts(fn.node)
    found: dict[int, Guard] = {}
    for guards in facts.guards.values():
        for g in guards:
            if g.test is not None:
                found.setdefault(id(g.test), g)
    return list(found.values())


_PARAMETER_NOTE = "receiver is the parameter"
# methods of builtin values (a list, dict, set, str... held in a parameter): they hide no
# collective, so a call of one on a parameter of unknown class is not listed as not entered
_BUILTIN_METHODS = frozenset(
    m for t in (list, dict, set, frozenset, str, bytes, tuple, int, float)
    for m in dir(t) if not m.startswith("_"))


def _parameter_receiver(ctx: Ctx, call: ast.Call) -> str:
    """Why a method called on a parameter (``state.run()``) was not entered: the parameter's
    class is not known (no annotation names a class under the roots); "" for any other call,
    and for a method of a builtin value (``items.append``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return ""
    name = func.value.id
    if name == ctx.fn.self_name or name not in ctx.flow.params \
            or func.attr in _BUILTIN_METHODS:
        return ""
    annotation = parameter_annotation(ctx.fn.node, name)
    if annotation is not None:
        return f"{_PARAMETER_NOTE} {name} annotated {ast.unparse(annotation)}, " \
               "no class under the roots"  # (one under them: _read_through_annotation)
    return f"{_PARAMETER_NOTE} {name} with no annotation (its class is not known)"


def _read_through_annotation(call: ast.Call) -> str:
    """Why a method whose value is read, called on a parameter annotated with a class under
    the roots (``if batch.is_empty():``), was not entered: only actions are entered through
    an annotation (entering every such read made SGLang's walk 40 % slower)."""
    func = call.func
    assert isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    return f"{_PARAMETER_NOTE} {func.value.id}: its class is known from the annotation, " \
           "but a method whose value is read is entered only through a constructor or a " \
           "factory, not an annotation"


_LOCAL_NOTE = "receiver is the local"


def _local_receiver(ctx: Ctx, call: ast.Call) -> str:
    """Why a method called on a local (``w = make_waiter(); w.wait()``) was not entered:
    every definition reaching it is the result of a call whose class is not known (a
    factory or a plugin loader the audit cannot read); "" for any other call, and for a
    method of a builtin value."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) \
            or func.attr in _BUILTIN_METHODS:
        return ""
    reaching = ctx.flow.reaching.get(id(func.value), ())
    made = [d.value for d, _guards in reaching
            if d.kind == "assign" and not d.unpacked and isinstance(d.value, ast.Call)]
    if not made or len(made) != len(reaching):
        return ""
    return f"{_LOCAL_NOTE} {func.value.id}, bound to " + ", ".join(
        sorted({f"{hop_text(v.func)}(...)" for v in made})) + " (its class is not known)"


RAISE_DEPTH = 3  # how many calls deep a raise is followed


ANY = "\x00any"  # an exception of any class: is there a try with handlers at all?


def caught_above(reach: Reach, ctx: Ctx, exc: str | None, depth: int = 0) -> bool:
    """Whether an exception of class ``exc`` (``ANY``: of some class) leaving ``ctx`` can
    be caught by a caller (a call into it, or into a caller of it, a few calls up, inside a
    try that catches it)."""
    memo: dict[tuple, bool] = reach.__dict__.setdefault("_caught_above", {})
    key = (ctx.key, exc)
    found = memo.get(key)
    if found is not None:
        return found
    memo[key] = False  # a recursive caller: what the outer walk finds
    found = any((bool(caller.flow.tries.get(id(call))) if exc == ANY else
                 caller.flow.catcher(caller.flow.tries.get(id(call), ()), exc) is not None)
                or depth < RAISE_DEPTH and caught_above(reach, caller, exc, depth + 1)
                for caller, call in reach.callers.get(ctx.fn.key, []))
    memo[key] = found
    return found


def _bound_values(d) -> list[ast.expr]:
    """What a local's definition binds, where it names it: an assignment's value, or each
    element of the literal tuple or list a for-loop walks (``for group in (self.attn_cp_group,
    self.attn_tp_group)``: the loop runs over each); [] for any other definition."""
    if d.unpacked or d.value is None:
        return []
    if d.kind == "assign":
        return [d.value]
    if d.kind == "for" and d.index is None and isinstance(d.value, (ast.Tuple, ast.List)) \
            and not any(isinstance(e, ast.Starred) for e in d.value.elts):
        return list(d.value.elts)
    return []
