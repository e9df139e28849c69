"""Walk an expression's input set back to its sources: locals (reaching definitions),
parameters (every call site's argument, constants specialised), self fields (every write in
the MRO, and the conditions each write sits under), properties and return values, component
fields (constructor keywords, factories), containers (length and membership apart from
content). Each leaf carries its witness, ``file:line hop`` per step."""

from __future__ import annotations

import ast
from typing import Any

from deskcheck.static import Fn, flow_facts, is_abstract, subnodes
from deskcheck.uniformity.buffers import (
    self_chain,
)
from deskcheck.uniformity.collectives import (
    classify_call,
    head_module_of,
    imported_origin,
    site_dim,
)
from deskcheck.uniformity.consensus import consensus_claim, param_claim
from deskcheck.uniformity.cycles import CycleSolver
from deskcheck.uniformity.fields import FieldReads
from deskcheck.uniformity.generators import yield_points
from deskcheck.uniformity.helpers import NamedHelpers
from deskcheck.uniformity.leaves import Leaf, dedupe_leaves, default_of, param_group
from deskcheck.uniformity.module_state import flat_targets, module_names, state_writes
from deskcheck.uniformity.passthrough import (
    one_definition,
    progress_bar_iterable,
    same_iteration,
)
from deskcheck.uniformity.paths import PathConditions, group_mark
from deskcheck.uniformity.positions import (
    EACH_WIDTH,
    each_element,
    element,
    elementwise,
    keeps_elements,
    of_element,
    position,
    slice_width,
    unpacked,
    whole,
)
from deskcheck.uniformity.publish import published_return, published_value
from deskcheck.uniformity.reach import (
    DECIDING_GUARDS,
    Ctx,
    Reach,
    argument_for,
    guard_mode,
    guard_state,
    is_dead,
    tested,
)
from deskcheck.uniformity.reductions import Reductions
from deskcheck.uniformity.rules import (
    builds_group,
    config_reason,
    declared_dim,
    group_argument,
    group_dim,
    hop_text,
    matches,
    rank_id_dim,
    rank_local_reason,
)
from deskcheck.uniformity.shapes import constructions
from deskcheck.uniformity.summaries import CallSummaries

_MAX_DEPTH = 3000  # a guard against runaway recursion; the memo bounds the work
# builtins that test a value's kind (its class, an attribute's presence), not its content
TYPE_TESTS = frozenset({"isinstance", "hasattr", "callable", "type"})
# keywords of an external call that never decide its result's length or existence
# (torch.zeros(n, device=d, dtype=t)): a length read skips them
_PLACEMENT = frozenset({"device", "dtype", "layout", "pin_memory", "requires_grad",
                        "non_blocking", "memory_format"})
# a tensor's methods that read its size or kind only (the receiver in length mode), and
# those that move the same data elsewhere (their arguments are placement, not data)
TENSOR_SIZE_READS = frozenset({"numel", "nelement", "dim", "size", "is_floating_point",
                               "is_complex", "is_contiguous", "element_size"})
TENSOR_MOVES = frozenset({"to", "cuda", "cpu", "pin_memory"})
# tensors made like another (its shape and placement, never its content) and tensors made
# by a tensor's ``new_*`` methods (its placement only): -> the position of the fill value
LIKE_CONSTRUCTORS = {"zeros_like": None, "ones_like": None, "empty_like": None,
                     "full_like": 1}
NEW_CONSTRUCTORS = frozenset({"new_zeros", "new_ones", "new_empty", "new_full",
                              "new_tensor"})
# external classes whose attributes are the keys of the mapping or keywords they are built
# from (``EasyDict(json.loads(os.environ["ARGS"])).tp``): read as those arguments
RECORD_CLASSES = frozenset({"EasyDict", "edict", "SimpleNamespace", "Namespace", "Munch",
                            "AttrDict", "DotMap", "Box"})
_EMPTIED = ("value", "length", "truth", "element")  # what a falsy builtin value carries: nothing
_LENGTH_KEEP = {"list", "tuple", "set", "sorted", "frozenset", "reversed", "enumerate", "zip",
                "dict", "deque"}




class Tracer(FieldReads, Reductions, CycleSolver, CallSummaries, PathConditions, NamedHelpers):
    def __init__(self, reach: Reach, sanctioned: dict[str, str], rank_local: list[str],
                 config: list[str], line_text) -> None:
        self.reach = reach
        self.resolver = reach.resolver
        self.sanctioned = sanctioned  # field name or "file:line" -> why
        self.agreed_calls: dict[str, str] = {}  # call pattern declared agreed -> why
        self.made_by: dict[str, str] = {}  # an agreed call's why -> the collective it names
        self.rank_local = rank_local
        self.config = config
        self.line_text = line_text  # (file, line) -> source text of that line
        self._memo: dict[tuple, tuple[Leaf, ...]] = {}
        self._index: dict[tuple, int] = {}  # Tarjan: visit order of keys on the stack
        self._low: dict[tuple, int] = {}
        self._component: list[tuple] = []
        self._calls: list[tuple] = []
        self._counter = 0
        self._reached: set[int] | None = None
        self.outside_writes = False  # follow writes through other objects
        self._outside_index: dict | None = None  # field name -> those writes
        self._inplace: dict[tuple, list[tuple[str, ast.Call, str, str]]] = {}
        self._keep: list[ast.AST] = []
        self._class_body: Ctx | None = None  # synthetic nodes: alive while their id() is a memo key
        self._partial: dict[tuple, tuple[Leaf, ...]] = {}  # a cycle member's first-pass sources
        self._ref_key: dict[str, tuple] = {}  # a cycle reference leaf's name -> its key
        self._pending: dict[tuple, Any] = {}  # a solved cycle's member -> its solution
        self._stores: dict[int, dict] = {}  # function node id -> local attribute stores
        self._rules: dict[str, tuple[str, str, str]] = {}  # hop text -> its rule's verdict
        self._yield_cache: dict[int, list] = {}  # function node id -> its yield points
        self._state_cache: dict[str, dict] = {}  # module file -> its module-state writes
        self._blocks: dict[int, dict] = {}  # function node id -> enclosing blocks per node
        self._field_writers: dict[int, dict] = {}  # function node id -> in-place collectives
        # a wrapper call that skips its in-place reduction only where a group has one rank
        self._wrapper_single: dict[int, frozenset] = {}
        self._group_dims: dict[tuple, str] = {}  # (context key, group text) -> its dimension

    def forget(self) -> None:
        """Drop memoised input sets (after the declarations it reads were changed)."""
        self._memo.clear()
        self._partial.clear()
        self._pending.clear()
        self._rules.clear()

    # -- entry ---------------------------------------------------------------------------
    def trace(self, expr: ast.expr | None, ctx: Ctx, mode: str = "value",
              depth: int = 0) -> tuple[Leaf, ...]:
        """The sources of ``expr``'s value (``mode``: value, length, truth, attr:a.b, ...).

        The hops form a graph with cycles (a field written from itself, mutual recursion);
        its strongly connected components are found as in Tarjan's algorithm, so a result
        is memoised only once it is complete, whatever order the walk took."""
        if expr is None:
            return ()
        if mode == "element" and not isinstance(expr, ast.Name):
            mode = "value"  # an element's existence is followed through locals only
        key = (id(expr), ctx.key, mode)
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._pending:
            return self._pending_leaves(key)
        caller = self._calls[-1] if self._calls else None
        if key in self._index:  # on the component stack: an edge of its cycle
            if caller is not None:
                self._low[caller] = min(self._low[caller], self._index[key])
            return (self._cycle_ref(key),)
        if depth > _MAX_DEPTH:
            return (Leaf(ast.unparse(expr), "unknown", "trace depth limit reached",
                         witness=(self._hop(ctx, expr, ast.unparse(expr)),)),)
        index = self._counter = self._counter + 1
        self._index[key] = self._low[key] = index
        self._component.append(key)
        self._calls.append(key)
        try:
            leaves = dedupe_leaves(self._expr(expr, ctx, mode, depth))
        finally:
            self._calls.pop()
        only = self.reach.only_where.get(ctx.fn.key)
        if only:  # computed only on roots started where these groups have one rank: the
            # sources read here carry that, and so do the edges to a cycle member or a
            # parameter: what arrives by them reaches the decision through this value too
            leaves = tuple(leaf if only <= leaf.single
                           else leaf._replace(single=leaf.single | only) for leaf in leaves)
        if self._low[key] == index:  # the root of its component: every member is complete
            members: list[tuple] = []
            while True:
                member = self._component.pop()
                del self._index[member]
                members.append(member)
                if member == key:
                    break
            if len(members) == 1 and not any(leaf.category == "cycle" for leaf in leaves):
                self._memo[key] = leaves
            else:
                self._partial[key] = leaves
                leaves = self._solve(key, members)
        else:  # an open member of a cycle: its reader gets one edge to it, not a copy
            self._partial[key] = leaves
            if caller is not None:
                self._low[caller] = min(self._low[caller], self._low[key])
            return (self._cycle_ref(key),)
        return leaves

    def _hop(self, ctx: Ctx, node: ast.AST, text: str) -> str:
        return f"{ctx.fn.file}:{getattr(node, 'lineno', 0)} {text}"

    def _prefixed(self, hop: str, leaves: tuple[Leaf, ...], single: frozenset[str] = frozenset()
                  ) -> list[Leaf]:
        new = tuple.__new__  # Leaf(...) without the named tuple's Python-level __new__
        if single:
            return [new(Leaf, (leaf[0], leaf[1], leaf[2], leaf[3], (hop, *leaf[4][:23]),
                               leaf[5] | single, leaf[6])) for leaf in leaves]
        return [new(Leaf, (leaf[0], leaf[1], leaf[2], leaf[3], (hop, *leaf[4][:23]), leaf[5],
                           leaf[6])) for leaf in leaves]

    # -- expressions ---------------------------------------------------------------------
    def _expr(self, e: ast.expr, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        if mode == "truth":  # a condition's truth: a bare container is tested by its length
            if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
                return list(self.trace(e.operand, ctx, "truth", depth))
            if isinstance(e, ast.BoolOp):
                return [x for v in e.values for x in self.trace(v, ctx, "truth", depth)]
            mode = "length" if isinstance(e, ast.Name | ast.Attribute | ast.Subscript) else "value"
        if isinstance(e, ast.Constant | ast.Lambda):
            return []
        if mode == "width":  # one part of an index: a slice object's width, else its value
            return self._width(e, ctx, depth)
        one = of_element(mode)
        if one is not None:
            return self._elements(e, ctx, mode, one, depth)
        picked = position(mode)
        if picked is not None:  # one element of a tuple: followed through names and calls
            literal = element(e, picked[0])
            if literal is not None:
                return list(self.trace(literal, ctx, picked[1], depth))
            if not isinstance(e, ast.Name | ast.Call):
                mode = "value"
        if isinstance(e, ast.Name):
            return self._name(e, ctx, mode, depth)
        if isinstance(e, ast.Attribute):
            return self._attribute(e, ctx, mode, depth)
        if isinstance(e, ast.Call):
            return self._call(e, ctx, mode, depth)
        if isinstance(e, ast.Compare):
            none_test = all(isinstance(op, ast.Is | ast.IsNot) for op in e.ops) and all(
                isinstance(c, ast.Constant) and c.value is None for c in e.comparators)
            if none_test:  # `x is None`: whether x exists, not what it holds
                return list(self.trace(e.left, ctx, "length", depth))
            out = list(self.trace(e.left, ctx, "value", depth))
            for op, right in zip(e.ops, e.comparators, strict=True):
                member = "length" if isinstance(op, ast.In | ast.NotIn) else "value"
                out += self.trace(right, ctx, member, depth)
            return out
        if isinstance(e, ast.Subscript):
            if mode == "length" and isinstance(e.slice, ast.Slice):
                width = slice_width(e.slice)  # a shard of a common width: not its offset
                return (list(self.trace(e.value, ctx, "length", depth))
                        + list(self.trace(width if width is not None else e.slice, ctx,
                                          "value", depth)))
            # `xs[i] is None`: whether the element is there; what was put in decides that
            # by its own existence, not by its content
            base = "element" if mode == "length" and isinstance(e.value, ast.Name) else "value"
            if not isinstance(e.slice, ast.Slice):  # `reqs[i].rid`: rid of the elements
                base = elementwise(mode) or base
            index = EACH_WIDTH if mode == "length" and _slice_objects(e.slice) else "value"
            return (list(self.trace(e.value, ctx, base, depth))
                    + list(self.trace(e.slice, ctx, index, depth)))
        if isinstance(e, ast.List | ast.Tuple | ast.Set):
            if mode == "length":
                return [x for elt in e.elts if isinstance(elt, ast.Starred)
                        for x in self.trace(elt.value, ctx, "length", depth)]
            return [x for elt in e.elts for x in self.trace(elt, ctx, "value", depth)]
        if isinstance(e, ast.Dict):
            parts = [k for k in e.keys if k is not None] + ([] if mode == "length" else e.values)
            return [x for p in parts for x in self.trace(p, ctx, "value", depth)]
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            out: list[Leaf] = []
            for gen in e.generators:
                out += self.trace(gen.iter, ctx, mode, depth)
                for cond in gen.ifs:
                    out += self.trace(cond, ctx, "truth", depth)
            if mode != "length":
                elts = [e.key, e.value] if isinstance(e, ast.DictComp) else [e.elt]
                for elt in elts:
                    out += self.trace(elt, ctx, "value", depth)
            return out
        if isinstance(e, ast.IfExp) and same_iteration(e.body, e.orelse,
                                                       self._imported_of(ctx)):
            return list(self.trace(e.body, ctx, mode, depth))  # a progress bar on one side
        out = []
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                out += self.trace(child, ctx, mode, depth)
        return out

    def _width(self, e: ast.expr, ctx: Ctx, depth: int) -> list[Leaf]:
        """How many entries one part of an index selects: ``slice(r * w, (r + 1) * w)`` (the
        builtin) or ``r * w:(r + 1) * w`` in a tuple index reads ``w`` (``slice_width``); any
        other part its value."""
        if isinstance(e, ast.Slice):
            width = slice_width(e)
            return list(self.trace(width if width is not None else e, ctx, "value", depth))
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "slice" \
                and not ctx.flow.reaching.get(id(e.func)) and len(e.args) == 2 \
                and not e.keywords and not any(isinstance(a, ast.Starred) for a in e.args):
            width = slice_width(ast.Slice(lower=e.args[0], upper=e.args[1]))
            if width is not None:
                return list(self.trace(width, ctx, "value", depth))
        return list(self.trace(e, ctx, "value", depth))

    def _imported_of(self, ctx: Ctx):
        """``name -> module`` it was imported from in ``ctx``'s module (None: not imported)."""
        info = self.resolver.index.module(ctx.fn.module) if ctx.fn.module else None

        def imported(name: str) -> str | None:
            binding = info.bindings.get(name) if info is not None else None
            return binding.module if binding is not None else None
        return imported

    def _elements(self, e: ast.expr, ctx: Ctx, mode: str, one: str, depth: int) -> list[Leaf]:
        """A container read for an attribute of each element (``mode`` ``eattr:x``, ``one``
        ``attr:x``): a display's or comprehension's elements for that attribute, which ones
        exist by the comprehension's iterable and tests; names, calls and concatenations
        pass the mode on; anything else is read whole."""
        if isinstance(e, ast.List | ast.Tuple | ast.Set):
            return [x for elt in e.elts for x in (
                self.trace(elt.value, ctx, mode, depth) if isinstance(elt, ast.Starred)
                else self.trace(elt, ctx, one, depth))]
        if isinstance(e, ast.Dict):  # iterating a dict yields its keys
            return [x for k in e.keys if k is not None for x in self.trace(k, ctx, one, depth)] \
                + [x for k, v in zip(e.keys, e.values, strict=True) if k is None
                   for x in self.trace(v, ctx, "value", depth)]
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            out: list[Leaf] = []
            for gen in e.generators:
                out += self.trace(gen.iter, ctx, "length", depth)
                for cond in gen.ifs:
                    out += self.trace(cond, ctx, "truth", depth)
            return out + list(self.trace(e.key if isinstance(e, ast.DictComp) else e.elt,
                                         ctx, one, depth))
        if isinstance(e, ast.IfExp) and same_iteration(e.body, e.orelse,
                                                       self._imported_of(ctx)):
            return list(self.trace(e.body, ctx, mode, depth))
        if isinstance(e, ast.IfExp):
            return (list(self.trace(e.test, ctx, "truth", depth))
                    + list(self.trace(e.body, ctx, mode, depth))
                    + list(self.trace(e.orelse, ctx, mode, depth)))
        if isinstance(e, ast.BoolOp):
            return [x for v in e.values for x in self.trace(v, ctx, mode, depth)]
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):  # concatenation
            return list(self.trace(e.left, ctx, mode, depth)) + list(
                self.trace(e.right, ctx, mode, depth))
        if isinstance(e, ast.Name):
            return self._name(e, ctx, mode, depth)
        if isinstance(e, ast.Call):
            return self._call(e, ctx, mode, depth)
        if isinstance(e, ast.Attribute):
            return self._attribute(e, ctx, mode, depth)
        return list(self.trace(e, ctx, "value", depth))

    def _name(self, e: ast.Name, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        if e.id in ctx.consts:
            return []
        reaching = ctx.flow.reaching.get(id(e))
        if not reaching:  # a builtin, a closure, or a module-level name: replicated code,
            if mode.startswith(("attr:", "lattr:")):  # unless an instance's field is read
                kind, chain = mode.split(":", 1)
                first, _dot, rest = chain.partition(".")
                sub = f"{kind}:{rest}" if rest else "length" if kind == "lattr" else "value"
                found = self._instance_field(e, ctx, f"attr:{first}", sub, depth, e)
                if found is not None:
                    return found + self._module_state(e, ctx, depth)
            return self._module_state(e, ctx, depth, mode)  # unless functions write it
        out: list[Leaf] = []
        shared = set.intersection(*(set(d.guards) for d, _f in reaching)) if len(reaching) > 1 \
            else set()
        reaching = tuple((d, f) for d, f in reaching if not is_dead(d.guards, ctx.consts))
        exits = ctx.flow.held_exits(e)  # early exits the read is past, holding there
        if len(reaching) > 1:  # x = None ... assert x is not None: not the None
            reaching = tuple((d, f) for d, f in reaching
                             if not self._ruled_out(f, d, ctx, exits)) or reaching
        agreed = self._inplace_agreed(e, ctx)
        skipped: frozenset = frozenset()  # dims single-rank where the reduction is skipped
        covered: dict = {}  # definitions a reduction follows on every path -> agreed leaf
        if agreed is not None:
            leaves, skipped, found_covered = agreed
            if found_covered is None:
                return leaves
            out += leaves
            covered = found_covered
        if mode == "length":  # an element replaced at a counted position: the same length
            reaching = tuple((d, f) for d, f in reaching if not d.positional)
            if _fixed_length(reaching):  # xs[i] = v in a list or tensor: the same length
                reaching = tuple((d, f) for d, f in reaching if d.filled_by != "item")
        values: list[tuple[frozenset[str], list[Leaf]]] = []
        for d, facts in reaching:
            single, empty = self._path_marks(facts, d, ctx, exits)
            single |= skipped
            if d in covered:
                reduced = self._prefixed(f"{ctx.fn.file}:{d.line} {e.id} ({d.kind})",
                                         (covered[d],), single)
                out += reduced
                values.append((single, reduced))
                continue
            found: list[Leaf] = []
            if not (empty and (mode in _EMPTIED or of_element(mode))):  # falsy: no source
                hop = f"{ctx.fn.file}:{d.line} {e.id} ({d.kind})"
                found = self._prefixed(hop, tuple(self._def(d, ctx, mode, depth)), single)
                out += found
            values.append((single, found))
        if len(reaching) > 1 and not _one_agreed_value(values) and not one_definition(
                reaching, ctx.flow, self._imported_of(ctx)):
            published = published_value(e.id, reaching, values, ctx, self.agreed_calls,
                                        self.made_by)
            if published is not None:  # the two sides of one publish: what the leader sent
                out = published
            else:
                out += self._selection(e, ctx, reaching, values, shared, depth)
        if mode.startswith(("attr:", "lattr:")) and e.id != ctx.fn.self_name:
            out += self._stored(e, ctx, mode, depth)  # self's stores: its fields, declared
        return out

    def guard_sources(self, g: Any, ctx: Ctx, depth: int) -> tuple[Leaf, ...] | list[Leaf]:
        """The sources of a guard's condition. A guard an ``except`` handler makes (the
        handler itself, a ``break``/``return`` in it, what runs after it) holds when the try
        body raised: UNKNOWN, whether every rank raises alike is not modelled (its test is
        only the exception's type)."""
        if isinstance(g.node, ast.ExceptHandler):
            text = f"except {ast.unparse(g.test)}" if g.test is not None else "except"
            hop = (f"{ctx.fn.file}:{g.line} {text}",)
            if g.test is not None and _only_import_errors(g.test):
                return [Leaf(text, "config", "an import fails or succeeds alike on every rank "
                             "(one environment)", witness=hop)]
            return [Leaf(text, "unknown", "whether the try body raises on every rank alike",
                         witness=hop)]
        return self.trace(g.test, ctx, guard_mode(g), depth + 1)

    def _selection(self, e: ast.Name, ctx: Ctx, reaching: tuple, values: list,
                   shared: set, depth: int) -> list[Leaf]:
        """The conditions choosing which of several definitions reaches a read (not an early
        exit the read is past too: every definition after it and the read share it)."""
        out: list[Leaf] = []
        passed = set(ctx.flow.exits.get(id(e), ()))
        for (d, _facts), (single, _found) in zip(reaching, values, strict=True):
            # an exit the read is past too, with the conditions it sits under
            past = passed.intersection(d.guards)
            for g in d.guards:
                if past and g.kind in ("exit", "exit-outer"):
                    continue
                if g not in shared and tested(g) and g.kind in DECIDING_GUARDS:
                    out += self._prefixed(f"{ctx.fn.file}:{g.line} which value of {e.id} "
                                          f"reaches: {g.text}",
                                          tuple(self.guard_sources(g, ctx, depth)), single)
        return out

    def _stored(self, e: ast.Name, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        """``req.gen = v`` in the function, read as ``req.gen`` (``attr:gen``): ``v`` too,
        whatever the constructor passed (``req.gen.seed = v``: part of ``req.gen``'s value),
        where the store's ``req`` is bound by a definition this read's ``req`` reaches."""
        name = e.id
        read_defs = {d for d, _f in ctx.flow.reaching.get(id(e), ())}
        kind, chain = mode.split(":", 1)
        wanted = chain.split(".")
        out: list[Leaf] = []
        key = id(ctx.fn.node)
        stores = self._stores.get(key)
        if stores is None:
            stores = self._stores[key] = local_attribute_stores(ctx.fn.node)
        for parts, value, line, base, unpacked_value in stores.get(name, ()):
            bound = ctx.flow.reaching.get(id(base))
            if bound and not read_defs.intersection(d for d, _f in bound):
                continue  # another binding of the name: another object
            common = min(len(parts), len(wanted))
            if parts[:common] != wanted[:common]:
                continue
            rest = wanted[len(parts):]
            sub = "value" if len(parts) > len(wanted) or unpacked_value or not rest and kind == "attr" \
                else "length" if not rest else f"{kind}:{'.'.join(rest)}"
            hop = f"{ctx.fn.file}:{line} {name}.{'.'.join(parts)} = (store)"
            out += self._prefixed(hop, self.trace(value, ctx, sub, depth + 1))
        return out

    def record_sizes(self, value: ast.expr, ctx: Ctx) -> list[Leaf]:
        """A forward argument's objects (``shapes``): each construction's arguments read for
        their length (placement keywords aside), with the construction as a hop."""
        out: list[Leaf] = []
        for call, cctx in constructions(value, ctx, self._is_record, self._value_callees):
            hop = self._hop(cctx, call, f"shape of {ast.unparse(call.func)}(...)")
            args = [*call.args, *(k.value for k in call.keywords if k.arg not in _PLACEMENT)]
            leaves = [x for a in args for x in self.trace(
                a.value if isinstance(a, ast.Starred) else a, cctx, "length", 1)]
            out += self._prefixed(hop, tuple(leaves))
        return out

    def _is_record(self, call: ast.Call, ctx: Ctx) -> bool:
        """A construction of a class under the roots whose length says nothing (no
        ``__len__``/``__bool__``: the length mode already reads a class that has one)."""
        if not ctx.fn.module or not isinstance(call.func, ast.Name | ast.Attribute):
            return False
        klass = self.resolver.class_of_expr(ctx.fn.module, call.func)
        if klass is None and isinstance(call.func, ast.Name):
            local = self.resolver.local_import(ctx.fn, call.func.id)
            klass = self.resolver.class_named(*local) if local is not None else None
        if klass is None:
            return False
        model = self.resolver.model_for(klass)
        return model.lookup("__len__") is None and model.lookup("__bool__") is None

    def _value_callees(self, ctx: Ctx, call: ast.Call) -> list[Ctx]:
        """The functions a call enters whose returns are its value (no constructor)."""
        callees, _note = self.callees_of(ctx, call)
        return [c for c in callees[:6] if not c.fn.qualname.endswith(".__init__")
                and not is_abstract(c.fn.node)]

    def _group_dim_at(self, ctx: Ctx, group: str) -> str:
        """The dimension of a group expression; inside a call-site summary a group held in a
        parameter is a marker, bound to the group each call passes (``_bind_marks``)."""
        if ctx.summary and group in ctx.flow.params:  # self: the object called on
            return group_mark(group)
        return self._group_dim(ctx, group)

    def _group_dim(self, ctx: Ctx, group: str) -> str:
        key = (ctx.key, group)
        found = self._group_dims.get(key)
        if found is None:
            found = self._group_dims[key] = self._group_dim_uncached(ctx, group)
        return found

    def _group_dim_uncached(self, ctx: Ctx, group: str) -> str:
        try:
            texts = self.reach.group_texts(ctx, ast.parse(group, mode="eval").body, 0) \
                if group and group != "WORLD" else ["WORLD"]
        except SyntaxError:
            texts = [group]
        dims = sorted({site_dim(t, self.reach.config) for t in texts})
        return dims[0] if len(dims) == 1 else "|".join(dims)

    def _def(self, d: Any, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        if mode == "element":  # an element's existence (never passed on beyond a definition)
            if d.kind == "fill":
                return list(self.trace(d.value, ctx, "length", depth + 1))
            if d.kind != "param":  # a parameter: the caller's container, element-wise
                mode = "value"
        if d.kind == "param":
            return self._param(d.name, ctx, mode, depth)
        one = of_element(mode)
        if one is not None and (d.unpacked or d.kind not in ("assign", "walrus", "augassign",
                                                              "fill")):
            mode = one = "value"  # elements held some other way: the whole value
        if d.kind not in ("assign", "walrus") or d.unpacked:
            mode = whole(mode)  # an element's position holds only through a plain binding
        if d.kind in ("assign", "walrus", "augassign", "with", "match"):
            value = d.value
            if d.unpacked and d.kind == "assign":
                value, mode = unpacked(value, d.index, mode)
            return list(self.trace(value, ctx, mode, depth + 1))
        if d.kind == "for":
            zipped = _zipped(d, ctx)
            if zipped is not None:  # `for a, b in zip(xs, ys)`: b is an element of ys
                return list(self.trace(zipped, ctx, each_element(mode) or "value", depth + 1))
            counted = _enumerated(d, ctx)
            if counted is not None:  # `for i, x in enumerate(seq)`: i counts seq's entries
                return [x for a in counted for x in self.trace(
                    a, ctx, "length" if a is counted[0] else "value", depth + 1)]
            seq = _enumerated_element(d, ctx)
            if seq is not None:  # `for i, x in enumerate(seq)`: x is an element of seq
                return list(self.trace(seq, ctx, each_element(mode) or "value", depth + 1))
            each = each_element(mode) if not d.unpacked else None
            return list(self.trace(d.value, ctx, each or "value", depth + 1))
        if d.kind == "fill":  # content: what was put in; membership/length: when and how often
            if one is not None:  # an attribute of each element: of what was put in
                if d.filled_by in ("append", "add", "appendleft", "push"):
                    return list(self.trace(d.value, ctx, one, depth + 1))
                if one == "width" and d.filled_by == "item" and isinstance(
                        d.value, ast.Tuple) and len(d.value.elts) == 2:  # slc[k] = slice(...)
                    return list(self.trace(d.value.elts[1], ctx, one, depth + 1))
                if d.filled_by not in ("extend", "extendleft"):
                    mode = "value"  # d[k] = v (iterated: its keys), insert(i, v): whole
            if mode == "length":
                return [x for g in d.guards if g.kind == "for" and g.test is not None
                        for x in self.trace(g.test, ctx, "length", depth + 1)]
            return list(self.trace(d.value, ctx, mode, depth + 1))
        if d.kind == "except":
            return [Leaf(d.name, "unknown", "exception object: which exception a rank sees is "
                         "not modelled", witness=(f"{ctx.fn.file}:{d.line} except",))]
        return []

    def _param(self, name: str, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        fn = ctx.fn
        claim = param_claim(fn, self.reach.config.consensus, name, mode) \
            if self.reach.config.consensus else None
        if claim is not None:  # @rank_consensus(same_params=...): as it claims
            return [Leaf(name, "sanctioned", claim, witness=(
                self._hop(ctx, fn.node, f"param {name} (claimed the same on every rank)"),))]
        if name == fn.self_name and mode.startswith(("attr:", "lattr:")) and fn.model:
            # self passed on (`Manager(self)`) and read there for a field: that field
            kind, chain = mode.split(":", 1)
            first, _dot, rest = chain.partition(".")
            classified = self._classified(f"{name}.{first}", ctx, fn.node)
            if classified is not None:  # a declared, rank-local or configured field
                return [classified]
            sub = f"{kind}:{rest}" if rest else "length" if kind == "lattr" else "value"
            return self._field(ctx, fn.model, first, sub, depth + 1, fn.node)
        if name == fn.self_name or name in ("cls",):
            return []
        if ctx.summary:  # bound at the call site whose return this walk summarises
            return [self._param_ref(name, mode)]
        callers = self.reach.callers.get(fn.key, [])
        if not callers and fn.node is not None and fn.qualname.endswith(".__init__"):
            callers = self.construction_callers(fn)
        if not callers:
            if fn.node is not None and fn.qualname.endswith(".__init__"):
                return [Leaf(name, "unknown", f"constructor parameter {name!r} of "
                             f"{fn.qualname}: no construction site found",
                             witness=(self._hop(ctx, fn.node, f"param {name}"),))]
            if fn.key in self.reach.root_keys:
                return [self._root_parameter(name, ctx)]
            return []  # entered without a call the walk read (a writer it scans)
        out: list[Leaf] = []
        for caller, call in callers:
            arg = argument_for(fn, call, name)
            hop = f"{caller.fn.file}:{call.lineno} {ast.unparse(call.func)}({name}=...)"
            if arg is None:
                default = default_of(fn.node, name)
                if default is not None:
                    out += self._prefixed(hop, self.trace(default, ctx, mode, depth + 1))
                continue
            out += self._prefixed(hop, self.trace(arg, caller, mode, depth + 1))
        return out

    def _root_parameter(self, name: str, ctx: Ctx) -> Leaf:
        """A parameter of a root method: its callers are outside the code read. Declared
        (config, rank-local, agreed or replica patterns over its name), else UNKNOWN."""
        hop = self._hop(ctx, ctx.fn.node, f"param {name} of the root {ctx.fn.qualname}")
        classified = self._classified(name, ctx, ctx.fn.node)
        if classified is not None:
            return classified._replace(witness=(hop, *classified.witness))
        return Leaf(name, "unknown", f"parameter {name!r} of the root {ctx.fn.qualname}: its "
                    "callers are outside the code read (declare it, or audit from a caller)",
                    witness=(hop,))

    # -- fields ------------------------------------------------------------------------
    def _declared(self, text: str, ctx: Ctx, node: ast.AST) -> Leaf | None:
        """A declared source: the field itself, or a read through it (a replica pool's
        ``self.pool.available_size()``)."""
        why = self.sanctioned.get(text) or self.sanctioned.get(text.removeprefix("self."))
        if why is None and "." in text:
            parts = text.split(".")
            for cut in range(len(parts) - 1, 1, -1):
                prefix = ".".join(parts[:cut])
                why = self.sanctioned.get(prefix) or self.sanctioned.get(
                    prefix.removeprefix("self."))
                if why:
                    break
        if why:
            return Leaf(text, "sanctioned", why, witness=(self._hop(ctx, node, text),))
        return None

    def _classified(self, text: str, ctx: Ctx, node: ast.AST) -> Leaf | None:
        hop = (self._hop(ctx, node, text),)
        declared = self._declared(text, ctx, node)
        if declared is None and self.sanctioned:
            expanded = self._aliased_text(text, node, ctx)
            if expanded is not None:  # alloc = self.pool.sub; alloc.available_size()
                declared = self._declared(expanded, ctx, node)
        if declared is not None:
            return declared
        rule = self._rules.get(text)
        if rule is None:
            rule = self._rules[text] = self._rule(text)
        category, reason, dim = rule
        owner = _group_object(node) if category == "rank_id" and dim == "world" else None
        if owner is not None and owner.id in ctx.flow.params and (
                owner.id != ctx.fn.self_name or isinstance(node, ast.Attribute)):
            # group.rank_in_group, group.rank(), self.rank_in_group in the group's own class
            # (a coordinator's field; self.rank() is the object's own method, not a group's):
            # the rank in the group the caller passed or called the method on
            named = self._group_dim_at(ctx, owner.id)
            if "world" in named.split("|"):
                unresolved = self._root_group_rank(text, ctx, owner, hop)
                if unresolved is not None:
                    return unresolved
            if named != "world" and "|" not in named:
                dim = named
                reason = f"rank id of the group passed as {owner.id}" \
                    if named.startswith("\x00") else f"rank id of the {named} group"
        elif category == "rank_id" and dim == "world" and isinstance(node, ast.Call):
            group = group_argument(node)  # dist.get_rank(self.pp_group): that group's rank
            named = group_dim(hop_text(group), self.reach.config.groups) \
                if group is not None else "world"
            if named == "world" and group is not None:  # a parameter: what callers pass
                named = self._group_dim(ctx, ast.unparse(group))
                if "world" in named.split("|"):
                    unresolved = self._root_group_rank(text, ctx, group, hop)
                    if unresolved is not None:
                        return unresolved
            if named != "world" and "|" not in named:
                reason, dim = f"rank id of the {named} group", named
        return Leaf(text, category, reason, dim, hop) if category else None

    def _root_group_rank(self, text: str, ctx: Ctx, group: ast.expr,
                         hop: tuple[str, ...]) -> Leaf | None:
        """A rank in a group that is a root's parameter (``dist.get_rank(pg)``, ``pg`` passed
        by callers outside the code read): the rank of the group declared for that parameter
        (``groups = { "Engine.train_batch_iter.pg" = "pp" }``, a glob too); where it may be
        several, each must be declared (one group: its rank; different groups: a rank that
        may differ within any group); else UNKNOWN, naming the keys still to declare, not the
        world's rank (a collective over that same parameter makes it RANK-LOCAL:
        ``param_group``)."""
        found = self.reach.root_parameters(ctx, group)
        if not found:
            return None
        keys = [f"{root.qualname}.{param}" for root, param in found]
        declared = [declared_dim(key, self.reach.config.groups) for key in keys]
        if None not in declared:
            dims = sorted(set(declared))
            where = f"(declared for {' and '.join(keys)})"
            if len(dims) == 1:
                return Leaf(text, "rank_id", f"rank id of the {dims[0]} group {where}", dims[0],
                            hop)
            return Leaf(text, "rank_id", f"rank id of the {' or '.join(dims)} group {where}: "
                        f"which, the path decides", "world", hop)
        named = " or ".join(f"{param!r}, a parameter of the root {root.qualname}"
                            for root, param in found)
        root, param = found[0]
        declare = ", ".join(f'"{key}" = "<dimension>"'
                            for key, dim in zip(keys, declared, strict=True) if dim is None)
        return Leaf(text, "unknown", f"rank id of the group {named}: the code read does not "
                    f"say which group it is (declare it under groups: {declare}; or audit "
                    f"from a caller)", witness=hop,
                    group=param_group(root, param, flow_facts(root.node))
                    if len(found) == 1 else "")

    def _rule(self, text: str) -> tuple[str, str, str]:
        """(category, reason, dim) of the default and configured rules for a hop's text;
        category "" when none matches."""
        dim = rank_id_dim(text)
        if dim is not None:
            return "rank_id", f"rank id of the {dim} group", dim
        reason = rank_local_reason(text, self.rank_local)
        if reason is not None:
            return "rank_local", reason, ""
        reason = config_reason(text, self.config)
        if reason is not None:
            return "config", reason, ""
        return "", "", ""

    def _attribute(self, e: ast.Attribute, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        text = hop_text(e)
        classified = self._classified(text, ctx, e)
        if classified is not None:
            return [classified]
        base = e.value
        chain = self_chain(e, ctx.fn.self_name)
        buffer = self._buffer_agreed(chain, e, ctx) if chain is not None else None
        if buffer is not None:
            return [buffer]
        if isinstance(base, ast.Name) and base.id == ctx.fn.self_name and ctx.fn.model:
            return self._field(ctx, ctx.fn.model, e.attr, mode, depth, e)
        if (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)
                and base.value.id == ctx.fn.self_name and ctx.fn.model):
            classes = self.resolver.component_classes(ctx.fn.model, base.attr)
            if classes:
                out: list[Leaf] = []
                for klass in classes:
                    model = self.resolver.model_for(klass)
                    out += self._component_field(ctx, base.attr, model, e.attr, mode, depth, e)
                return out
        if isinstance(base, ast.Name) and not ctx.flow.reaching.get(id(base)):
            found = self._instance_field(base, ctx, f"attr:{e.attr}", mode, depth, e)
            if found is not None:  # a module-level instance's field: g_ctx.ids
                return found
            return []  # module.attribute: replicated code or constants
        # field-sensitive through constructors: `scope.covered` follows covered=... only
        alias = self._self_alias(base, ctx)
        if alias is not None:  # tc = self.tree_cache; tc.pending -> self.tree_cache.pending
            synthetic = ast.Attribute(value=alias, attr=e.attr, ctx=ast.Load(),
                                      lineno=e.lineno, col_offset=e.col_offset)
            self._keep.append(synthetic)
            return self._attribute(synthetic, ctx, mode, depth)
        return list(self.trace(base, ctx, _outer(mode, e.attr), depth + 1))

    @staticmethod
    def _declare_component(ctx: Ctx, call: ast.Call) -> str:
        """How to declare the class of the ``self.<field>`` a call's receiver is."""
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not (isinstance(receiver, ast.Attribute) and ctx.fn.model is not None
                and ctx.fn.model.sources):
            return ""
        owner = ctx.fn.model.sources[0].qualname
        return (f' (declare the class it holds under components: "{owner}.{receiver.attr}" '
                f'= "<module>:<Class>", if the code read defines that class)')

    def _aliased_text(self, text: str, node: ast.AST, ctx: Ctx) -> str | None:
        """``text`` with its leading local replaced by the ``self.`` chain every reaching
        definition binds it to (``alloc = self.pool.sub``: ``alloc.size`` ->
        ``self.pool.sub.size``); None when the head is not such a local."""
        head = node.func if isinstance(node, ast.Call) else node
        while isinstance(head, ast.Attribute | ast.Call | ast.Subscript):
            head = head.func if isinstance(head, ast.Call) else head.value
        if not isinstance(head, ast.Name) or not text.startswith(head.id + "."):
            return None
        chain = self._bound_to_self(head, ctx)
        return None if chain is None else ast.unparse(chain) + text[len(head.id):]

    def _self_alias(self, base: ast.expr, ctx: Ctx) -> ast.Attribute | None:
        """A local whose one reaching definition is ``self.F``: that attribute."""
        bound = self._bound_to_self(base, ctx)
        return bound if bound is not None and isinstance(bound.value, ast.Name) else None

    def _bound_to_self(self, name: ast.expr, ctx: Ctx) -> ast.Attribute | None:
        """A local whose one reaching definition binds it to a chain on ``self``
        (``self.pool`` / ``self.pool.sub``): that chain; else None."""
        if not isinstance(name, ast.Name):
            return None
        reaching = ctx.flow.reaching.get(id(name), ())
        if len(reaching) != 1:
            return None
        d = reaching[0][0]
        if d.kind != "assign" or d.unpacked or not isinstance(d.value, ast.Attribute):
            return None
        root = d.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return d.value if isinstance(root, ast.Name) and root.id == ctx.fn.self_name else None

    def _fn_ctx(self, fn: Fn) -> Ctx:
        existing = self.reach.by_fn.get(fn.key)
        if existing:
            plain = [c for c in existing if not c.consts]
            return plain[0] if plain else existing[0]
        return Ctx(fn, {}, flow_facts(fn.node))

    # -- calls -----------------------------------------------------------------------
    def _call(self, e: ast.Call, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        returned, mode = mode, whole(mode)  # one element: of the callee's returns only
        text = hop_text(e.func)
        agreed = matches(text, tuple(self.agreed_calls)) if self.agreed_calls else None
        if agreed is not None:  # a call declared agreed: what it returns, whatever its body
            return [Leaf(f"{text}()", "sanctioned", self.agreed_calls[agreed],
                         witness=(self._hop(ctx, e, f"{text}() returns (declared agreed)"),))]
        classified = self._classified(text, ctx, e)
        if classified is not None and not self._read_helper(classified, e, ctx):
            return [classified]
        imported = original = None
        if isinstance(e.func, ast.Name):
            imported, original = imported_origin(self.resolver.index, ctx.fn.module, e.func.id)
        bar = progress_bar_iterable(e, self._imported_of(ctx)) if text.endswith("tqdm") else None
        if bar is not None:  # a progress bar yields its iterable's elements
            return list(self.trace(bar, ctx, mode, depth + 1))
        info = self.resolver.index.module(ctx.fn.module) if ctx.fn.module else None
        head = head_module_of(e.func, info.bindings) if info is not None else None
        kind = classify_call(e, self.reach.config, imported, head, original=original)
        if kind is not None and kind[0] == "collective":
            dim = site_dim(kind[1], self.reach.config)
            return [Leaf(ast.unparse(e.func), "agreed", f"made by {ast.unparse(e.func)} over "
                         f"{kind[1] or 'WORLD'}", dim, (self._hop(ctx, e, ast.unparse(e.func)),))]
        if isinstance(e.func, ast.Name) and e.func.id == "len" and e.args:
            return list(self.trace(e.args[0], ctx, "length", depth + 1))
        if isinstance(e.func, ast.Name) and e.func.id in TYPE_TESTS and e.args \
                and not ctx.flow.reaching.get(id(e.func)):
            # which kind of value reaches, not what it holds: an object exists (its
            # constructor's arguments are not read), a call's value by which return
            return list(self.trace(e.args[0], ctx, "length", depth + 1))
        if isinstance(e.func, ast.Name) and not ctx.flow.reaching.get(id(e.func)) \
                and imported is None and e.func.id in __builtins__:  # type: ignore[operator]
            inner = mode if e.func.id in _LENGTH_KEEP or e.func.id == "range" else "value"
            if of_element(mode) is not None and not keeps_elements(e.func.id):
                inner = "value"
            return [x for a in e.args for x in self.trace(
                a.value if isinstance(a, ast.Starred) else a, ctx, inner, depth + 1)] + [
                x for k in e.keywords for x in self.trace(k.value, ctx, "value", depth + 1)]
        if ctx.fn.klass is not None and (
                isinstance(e.func, ast.Name) and e.func.id == "cls"
                or ast.unparse(e.func) == f"type({ctx.fn.self_name})"):
            return self._object(ctx.fn.klass, e, ctx, mode, depth)
        receiver = self_chain(e.func.value, ctx.fn.self_name) \
            if isinstance(e.func, ast.Attribute) else None
        if receiver is not None:  # a method of a field buffer a collective filled in place
            buffer = self._buffer_agreed(receiver, e, ctx)
            if buffer is not None:
                return [buffer]
        callees, note = self.callees_of(ctx, e)
        if note:
            return [Leaf(text, "unknown", f"call on an unresolved receiver: {note}"
                         f"{self._declare_component(ctx, e)}",
                         witness=(self._hop(ctx, e, text),))]
        if callees:
            out: list[Leaf] = []
            for callee in callees[:6]:
                if callee.fn.qualname.endswith(".__init__") and callee.fn.klass is not None:
                    out += self._object(callee.fn.klass, e, ctx, mode, depth)
                    continue
                if is_abstract(callee.fn.node):  # an interface: the body run is not this one
                    out.append(Leaf(f"{callee.fn.qualname}()", "unknown",
                                    f"abstract method {callee.fn.qualname}: which "
                                    f"implementation runs is not read",
                                    witness=(self._hop(ctx, e, f"{text}() (abstract)"),)))
                    continue
                claim = consensus_claim(callee.fn, self.reach.config.consensus)
                if claim is not None:  # @rank_consensus(same_results=True): as it claims
                    out.append(Leaf(f"{text}()", "sanctioned", claim, witness=(
                        self._hop(ctx, e, f"{text}() returns (claimed the same on every rank)"),)))
                    continue
                out += self._call_returns(callee, e, ctx, returned, depth,
                                          self._hop(ctx, e, f"{text}() returns"))
            return out
        klass = self.resolver.class_of_expr(ctx.fn.module, e.func) if ctx.fn.module else None
        if klass is None and isinstance(e.func, ast.Name) and ctx.fn.module:
            local = self.resolver.local_import(ctx.fn, e.func.id)
            klass = self.resolver.class_named(*local) if local is not None else None
        if klass is not None:  # a class without __init__ of its own: dataclass, NamedTuple
            return self._object(klass, e, ctx, mode, depth)
        held = self._called_classes(e.func, ctx) if isinstance(e.func, ast.Name) else []
        if held:  # a class passed in (``waiting_cls(...)``) or held in a local
            return [x for k in held for x in self._object(k, e, ctx, mode, depth)]
        # not ours (external or a method of a local value): a function of its receiver and
        # arguments (the rules above catch the rank-local sources: clocks, pools, polls)
        if text.rsplit(".", 1)[-1][:1].isupper():  # an object built by a class we cannot read
            if mode == "length" or mode.startswith("lattr:"):
                return []  # it exists on every rank
            if mode.startswith("attr:") and text.rsplit(".", 1)[-1] in RECORD_CLASSES:
                return self._args(e, ctx, "value", depth)  # an attribute view of its mapping
            if mode.startswith("attr:"):
                return [Leaf(f"{text}(...).{mode[5:]}", "unknown",
                             f"attribute {mode[5:]} of an object built by {text}, a class "
                             f"not found under the roots", witness=(self._hop(ctx, e, text),))]
        out = []
        method = e.func.attr if isinstance(e.func, ast.Attribute) else ""
        if method in TENSOR_SIZE_READS:  # t.numel(), t.is_floating_point(): its size or kind
            return list(self.trace(e.func.value, ctx, "length", depth + 1))
        made_like = self._made_like(e, text, ctx, mode, depth)
        if made_like is not None:
            return made_like
        if isinstance(e.func, ast.Attribute) and not (
                isinstance(e.func.value, ast.Name) and e.func.value.id == ctx.fn.self_name):
            out += self.trace(e.func.value, ctx, "value" if of_element(mode) else mode,
                              depth + 1)  # self: code, not data
        if method in TENSOR_MOVES:  # t.to(device), t.cuda(): the same data, elsewhere
            return out
        # placement keywords (device=, dtype=) are no data and decide no length
        e = ast.Call(func=e.func, args=e.args,
                     keywords=[k for k in e.keywords if k.arg not in _PLACEMENT])
        return out + self._args(e, ctx, "length" if mode == "length" else "value", depth)

    def _made_like(self, e: ast.Call, text: str, ctx: Ctx, mode: str, depth: int
                   ) -> list[Leaf] | None:
        """``torch.zeros_like(x)`` (``ones_like``, ``empty_like``, ``full_like(x, v)``):
        ``x``'s shape and the fill value; ``x.new_zeros(n)`` (``new_full(n, v)``, ...): its
        arguments, not ``x`` (placement). None for any other call."""
        last = text.rsplit(".", 1)[-1]
        if last in NEW_CONSTRUCTORS and isinstance(e.func, ast.Attribute):
            kept = [k for k in e.keywords if k.arg not in _PLACEMENT]
            return self._args(ast.Call(func=e.func, args=e.args, keywords=kept), ctx,
                              "length" if mode == "length" else "value", depth)
        if last not in LIKE_CONSTRUCTORS or not e.args or isinstance(e.args[0], ast.Starred):
            return None
        out = list(self.trace(e.args[0], ctx, "length", depth + 1))
        fill_at = LIKE_CONSTRUCTORS[last]
        fill = e.args[fill_at] if fill_at is not None and len(e.args) > fill_at else next(
            (k.value for k in e.keywords if k.arg == "fill_value"), None)
        if fill is not None and mode != "length":
            out += self.trace(fill, ctx, "value", depth + 1)
        return out

    def _called_classes(self, name: ast.Name, ctx: Ctx) -> list:
        """The classes a called local or parameter holds: every definition reaching the call
        names a class (``cls = A if x else B``), or, for a parameter,
        every caller passes one (``self._process(reqs, WaitingReq)``); else none."""
        reaching = ctx.flow.reaching.get(id(name), ())
        if not reaching or not ctx.fn.module:
            return []
        out: list = []
        for d, _facts in reaching:
            if d.kind == "param":
                callers = self.reach.callers.get(ctx.fn.key, [])
                args = [(c, argument_for(ctx.fn, call, d.name)) for c, call in callers]
                found = [self.resolver.class_of_expr(c.fn.module, a) if a is not None
                         and c.fn.module else None for c, a in args]
            elif d.kind == "assign" and not d.unpacked and d.value is not None:
                found = self.resolver.held_classes(ctx.fn.module, [d.value], every=True)
            else:
                return []
            named = [k for k in found if k is not None]
            if not named or len(named) < len(found):
                return []  # one source names no class: not a class call we can read
            out += [k for k in named if k not in out]
        return out

    def callees_of(self, ctx: Ctx, call: ast.Call) -> tuple[list[Ctx], str]:
        """(the contexts ``call`` enters, note): the walk's own edges, else the resolver's
        answer; a note says why the receiver did not resolve."""
        callees = [t for c, t in ctx.edges if c is call]
        if callees:
            return callees, ""
        try:
            fns, note = self.resolver.resolve(ctx.fn, call)
        except RecursionError:
            fns, note = [], "resolution too deep"
        return [self._fn_ctx(fn) for fn in fns], note

    def _args(self, e: ast.Call, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        out: list[Leaf] = []
        for a in e.args:
            out += self.trace(a.value if isinstance(a, ast.Starred) else a, ctx, mode, depth + 1)
        for k in e.keywords:
            out += self.trace(k.value, ctx, mode, depth + 1)
        return out

    def _returns(self, callee: Ctx, mode: str, depth: int, hop: str) -> list[Leaf]:
        out: list[Leaf] = self._yielded(callee, mode, depth)
        returns = [(v, g) for v, g in callee.flow.returns if not is_dead(g, callee.consts)]
        published = published_return(returns, callee, self.agreed_calls, self.made_by)
        if published is not None:  # the two sides of one publish, returned: one value
            received, sent = published
            out += [*self.trace(received, callee, mode, depth + 1), sent]
            return self._prefixed(hop, tuple(out))
        for value, guards in returns:
            single, empty = self._path_marks(guards, _only_def(value, callee), callee)
            if not (empty and mode in _EMPTIED):  # a falsy value there: no source
                found = self.trace(value, callee, mode, depth + 1)
                out += [leaf._replace(single=leaf.single | single) for leaf in found] \
                    if single else found
            if len(returns) > 1:
                for g in guards:
                    if tested(g) and g.kind in DECIDING_GUARDS \
                            and guard_state(g, callee.consts) is None:
                        out += self._prefixed(f"{callee.fn.file}:{g.line} which return: {g.text}",
                                              tuple(self.guard_sources(g, callee, depth)))
        return self._prefixed(hop, tuple(out))


    def _module_state(self, e: ast.Name, ctx: Ctx, depth: int, mode: str = "value"
                      ) -> list[Leaf]:
        """A module-level name (here, or imported from the module that binds it) read for
        what the module's functions write into it at run time (``module_state``), each
        write's value read as the name is (``if _WORLD is None``: whether an object was
        bound, not what it was built with), and the conditions each write sits under."""
        found = self._module_binding(ctx, e.id)
        if found is None:
            return []
        info, name = found
        writes = self._state_cache.get(info.file)
        if writes is None:
            writes = self._state_cache[info.file] = state_writes(
                info.parsed, module_names(info.parsed.tree))  # module level: never hollowed
        out: list[Leaf] = []
        for w in writes.get(name, []):
            fn = Fn(w.function, w.qualname, info.file, info.name)
            wctx = self._fn_ctx(fn)
            kept = mode if mode == "length" and w.kind == "assign" and isinstance(
                w.stmt, ast.Assign | ast.AnnAssign) else "value"  # a rebinding, not +=, .x=
            leaves = list(self.trace(w.value, wctx, kept, depth + 1)) \
                if w.value is not None else []
            stored_group = builds_group(w.value, wctx.flow.reaching)
            for g in () if stored_group else wctx.flow.guards.get(id(w.stmt), ()):
                if tested(g) and g.kind in DECIDING_GUARDS:
                    leaves += self.guard_sources(g, wctx, depth)
            out += self._prefixed(f"{info.file}:{w.stmt.lineno} {name} {w.kind} in "
                                  f"{w.qualname} (module state)", tuple(leaves))
        return out

    def _instance_field(self, base: ast.Name, ctx: Ctx, attr: str, mode: str, depth: int,
                        node: ast.AST) -> list[Leaf] | None:
        """``g_ctx.<field>`` where ``g_ctx`` is a module-level instance of a class under the
        roots (``g_ctx = Context()``, here or imported): the field's writes in that class
        (the methods the roots reach, its constructor), read as a component's; None when
        ``base`` names no such instance."""
        if not ctx.fn.module:
            return None
        klass = self.resolver.instance_class(ctx.fn.module, base.id)
        if klass is None:
            return None
        model = self.resolver.model_for(klass)
        init = self.resolver.method(model, "__init__")
        fake = Ctx(Fn(init.node if init else ctx.fn.node, model.name, ctx.fn.file,
                      klass.module, model, klass, "self"), {},
                   flow_facts(init.node if init else ctx.fn.node))
        name = attr.removeprefix("attr:")
        hop = self._hop(ctx, node, f"{base.id}.{name} (module-level {klass.name} instance)")
        return self._prefixed(hop, tuple(self._field(fake, model, name, mode, depth + 1, node)))

    def _module_binding(self, ctx: Ctx, name: str):
        """(module info, name) of the module-level assignment ``name`` stands for in
        ``ctx``'s module (followed through one ``from m import name``), else None."""
        info = self.resolver.index.module(ctx.fn.module) if ctx.fn.module else None
        binding = info.bindings.get(name) if info is not None else None
        if binding is not None and binding.kind == "from" and binding.module and binding.name:
            info = self.resolver.index.module(binding.module)
            name = binding.name
            binding = info.bindings.get(name) if info is not None else None
        if binding is None or binding.kind != "alias" or info is None or info.parsed is None:
            return None
        return info, name

    def _yielded(self, callee: Ctx, mode: str, depth: int) -> list[Leaf]:
        """A generator's sequence: each ``yield``'s value (an element: for ``eattr:x`` its
        attribute ``x``; none for the length), each ``yield from``'s iterable in the same
        mode, and the conditions and loops that decide how often each runs."""
        points = self._yield_cache.get(id(callee.fn.node))
        if points is None:
            points = self._yield_cache[id(callee.fn.node)] = yield_points(callee.fn.node)
        one = of_element(mode)
        out: list[Leaf] = []
        for value, delegated, stmt in points:
            guards = callee.flow.guards.get(id(stmt), ())
            if is_dead(guards, callee.consts):
                continue
            hop = f"{callee.fn.file}:{stmt.lineno} {'yield from' if delegated else 'yield'}"
            if value is not None and (delegated or mode != "length"):
                sub = whole(mode) if delegated else one or ("value" if mode in (
                    "length", "truth", "element") or position(mode) else mode)
                out += self._prefixed(hop, tuple(self.trace(value, callee, sub, depth + 1)))
            for g in guards:
                if tested(g) and g.kind in DECIDING_GUARDS \
                        and guard_state(g, callee.consts) is None:
                    out += self._prefixed(f"{callee.fn.file}:{g.line} yields when: {g.text}",
                                          tuple(self.guard_sources(g, callee, depth)))
        return out


def local_attribute_stores(node: ast.AST | None
                           ) -> dict[str, list[tuple[list[str], ast.expr, int, ast.Name, bool]]]:
    """Per local name, the attribute stores on it in the function: (attribute chain, value,
    line, the stored-on name, whether a tuple target unpacks the value) for
    ``name.a.b = v`` / ``name.a += v``."""
    out: dict[str, list[tuple[list[str], ast.expr, int, ast.Name, bool]]] = {}
    if node is None:
        return out
    for stmt in subnodes(node):
        if isinstance(stmt, ast.Assign):
            targets, value = list(stmt.targets), stmt.value
        elif isinstance(stmt, ast.AugAssign | ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        unpacked = any(isinstance(t, ast.Tuple | ast.List) for t in targets)
        for target in flat_targets(targets):
            parts: list[str] = []
            head = target
            while isinstance(head, ast.Attribute):
                parts.insert(0, head.attr)
                head = head.value
            if parts and isinstance(head, ast.Name):
                out.setdefault(head.id, []).append((parts, value, stmt.lineno, head, unpacked))
    return out


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def _only_import_errors(types: ast.expr) -> bool:
    """``except ImportError`` / ``except (ImportError, ModuleNotFoundError)``."""
    names = types.elts if isinstance(types, ast.Tuple) else [types]
    return bool(names) and all(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS
                               for n in names)


def _one_agreed_value(values: list[tuple[frozenset[str], list[Leaf]]]) -> bool:
    """Whether every definition reaching a read holds what one collective made (the
    root's and the other ranks' side of one broadcast: ``if rank == 0: ... bcast(objs)
    else: bcast(objs)``), apart from those on paths where the group has one rank: then
    which definition reaches does not decide the value."""
    made: set[str] = set()
    for single, leaves in values:
        if single:
            continue
        if not leaves or any(leaf.category != "agreed" for leaf in leaves):
            return False
        made.update(leaf.reason for leaf in leaves)
    return len(made) == 1


def _slice_objects(index: ast.expr) -> bool:
    """An index built of parts, some maybe slice objects: a tuple display, or ``tuple(...)``
    / ``list(...)`` of a sequence (``x[tuple(slc)]`` with ``slc[dim] = slice(a, b)``)."""
    if isinstance(index, ast.Tuple):
        return True
    return isinstance(index, ast.Call) and isinstance(index.func, ast.Name) \
        and index.func.id in ("tuple", "list") and len(index.args) == 1


_ARRAY_HEADS = ("torch.", "np.", "numpy.")
_ARRAY_MAKERS = frozenset({"tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty",
                           "full", "arange", "linspace", "array", "asarray", "stack", "cat",
                           "zeros_like", "ones_like", "empty_like", "full_like",
                           "LongTensor", "IntTensor", "FloatTensor", "BoolTensor"})


def _fixed_length(reaching: tuple) -> bool:
    """Whether every definition of a name reaching a read, other than what is put into it,
    builds a list or a tensor (a display, ``[0] * n``, a comprehension, ``list(...)``,
    ``torch.zeros(n)`` and the like): setting an element at an index never changes its
    length there (into a mapping it may add a key)."""
    built = [d.value for d, _f in reaching if d.kind != "fill"]
    return bool(built) and all(_sequence_built(v) for v in built)


def _sequence_built(value: ast.expr | None) -> bool:
    if isinstance(value, ast.List | ast.ListComp):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, ast.List) or isinstance(value.right, ast.List)
    if isinstance(value, ast.Call):
        text = ast.unparse(value.func)
        return text == "list" or text.startswith(_ARRAY_HEADS) \
            and text.rsplit(".", 1)[-1] in _ARRAY_MAKERS
    return False


def _only_def(value: ast.expr, ctx: Ctx) -> Any:
    """The one definition a returned name reads, else None."""
    reaching = ctx.flow.reaching.get(id(value), ()) if isinstance(value, ast.Name) else ()
    return reaching[0][0] if len(reaching) == 1 else None


def _enumerate_loop(d: Any, ctx: Ctx, position: int) -> ast.Call | None:
    """The ``enumerate(...)`` call when ``d`` is the name at ``position`` of ``for i, x in
    enumerate(seq[, start])`` (a loop or a comprehension; 0: the index, 1: the element)."""
    call, loop = d.value, d.guards[-1].node if d.guards else None
    target = getattr(loop, "target", None)
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "enumerate" and call.args
            and not isinstance(call.args[0], ast.Starred)
            and not ctx.flow.reaching.get(id(call.func))
            and isinstance(target, ast.Tuple) and len(target.elts) > position
            and isinstance(target.elts[position], ast.Name)
            and target.elts[position].id == d.name and (position == 0 or d.index == position)):
        return call
    return None


def _enumerated(d: Any, ctx: Ctx) -> list[ast.expr] | None:
    """For the index of ``for i, x in enumerate(seq[, start])``: ``[seq, start]``, whose
    length and value make the index; else None."""
    call = _enumerate_loop(d, ctx, 0)
    return None if call is None else [call.args[0], *call.args[1:2],
                                      *(k.value for k in call.keywords)]


def _enumerated_element(d: Any, ctx: Ctx) -> ast.expr | None:
    """For ``x`` of ``for i, x in enumerate(seq)``: ``seq``, the sequence its values come
    from; else None."""
    call = _enumerate_loop(d, ctx, 1)
    return None if call is None else call.args[0]


def _zipped(d: Any, ctx: Ctx) -> ast.expr | None:
    """For ``b`` of ``for a, b in zip(xs, ys)`` (a loop or a comprehension): ``ys``, the
    sequence its values come from; else None."""
    call, loop = d.value, d.guards[-1].node if d.guards else None
    target = getattr(loop, "target", None)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "zip" and not ctx.flow.reaching.get(id(call.func))
            and all(k.arg == "strict" for k in call.keywords)
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and isinstance(target, ast.Tuple) and len(target.elts) == len(call.args)
            and d.index is not None and d.index < len(call.args)
            and isinstance(target.elts[d.index], ast.Name)
            and target.elts[d.index].id == d.name):
        return None
    return call.args[d.index]


def _outer(mode: str, attr: str) -> str:
    """The mode for ``base`` when ``base.attr`` is read in ``mode``: an attribute chain
    (``attr:a.b`` = the value of ``base.a.b``; ``lattr:`` its length), at most four deep."""
    if mode.startswith(("attr:", "lattr:")):
        kind, chain = mode.split(":", 1)
        if chain.count(".") >= 3:
            return "length" if kind == "lattr" else "value"
        return f"{kind}:{attr}.{chain}"
    return f"lattr:{attr}" if mode == "length" else f"attr:{attr}"


def _group_object(node: ast.AST) -> ast.Name | None:
    """The name whose own rank ``node`` reads: ``group.rank_in_group`` (a coordinator's
    field) or ``group.rank()`` (a ProcessGroup's method); else None."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
        if not (isinstance(node, ast.Attribute) and node.attr == "rank"):
            return None
    elif not (isinstance(node, ast.Attribute) and node.attr == "rank_in_group"):
        return None
    return node.value if isinstance(node.value, ast.Name) else None
