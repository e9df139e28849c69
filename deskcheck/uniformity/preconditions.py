"""Root preconditions: what the code that starts a root proves about its groups (mechanism 1,
read at the root).

A root is often one of several loops a dispatcher picks by configuration (SGLang's
``_dispatch_event_loop_once``)::

    if get_parallel().pp_size > 1:
        scheduler.event_loop_pp()
    else:
        scheduler.event_loop_normal()

On every path through ``event_loop_normal`` the pipeline group has one rank. Every call of a
root (``<anything>.event_loop_normal(...)``, by the root's method name) in the modules that
define the roots and the target class is read, except the calls inside the walk itself (a
root another root calls is reached from that root, which the walk already follows); the
dimensions the conditions of *every* such call prove single-rank (``tp_size == 1``, the else
of ``pp_size > 1``) are the root's precondition. A root called nowhere there, or once without
such a proof (module-level code, a launcher), has none.

A function the walk reaches only from roots with a precondition holds what they have in
common (:func:`reached_only_where`): the values it computes carry those dimensions (a rank
id of a group with one rank is the same on every rank), and a collective it issues over such
a group is TRIVIAL. The search of the module texts is noted for the audit cache
(:data:`DISPATCH_READ`): a new call of a root anywhere in them makes a cached answer stale."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from deskcheck.static import Fn, flow_facts, holding_guards, note_read
from deskcheck.uniformity.rules import single_rank_dim

DISPATCH_READ = "dispatch:"  # a read noted for the cache: "these root names are called here"


@dataclass(frozen=True)
class Precondition:
    """A root's precondition: the dimensions whose group has one rank on every call of it
    found (``dims``, empty: none proven) and those calls (``file:line``)."""

    root: str
    dims: frozenset[str]
    sites: tuple[str, ...]

    def note(self) -> str:
        groups = ", ".join(sorted(self.dims))
        return (f"{self.root} runs only where the {groups} group has one rank (the "
                f"conditions of every call of it: {', '.join(self.sites)})")


def call_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """A call of one of ``names`` as a method (``x.name(``): the text the search looks for."""
    either = "|".join(re.escape(n) for n in sorted(set(names), key=lambda n: (-len(n), n)))
    return re.compile(rf"\.\s*({either})\s*\(")


def calls_of(data: bytes, names: Iterable[str]) -> list[str]:
    """The root names ``data`` calls as methods, in order (what the cache compares)."""
    names = [n for n in names if n]
    if not names:
        return []
    text = data.decode("utf-8", "replace")
    return [m.group(1) for m in call_pattern(names).finditer(text)]


def root_preconditions(roots: list[Fn], modules: Iterable[str], index, walked: set[tuple]
                       ) -> dict[tuple, Precondition]:
    """Per root (its ``Fn.key``): its precondition, where every call of it found proves one.
    ``modules``: where to search; ``walked``: (file, def line) of the functions the walk
    entered, whose calls of a root it follows itself."""
    by_name = {fn.node.name: fn for fn in roots}
    if not by_name:
        return {}
    pattern = call_pattern(by_name)
    proofs: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for module in dict.fromkeys(modules):
        info = index.module(module) if module else None
        if info is None or info.parsed is None:
            continue
        parsed = info.parsed
        note_read(parsed.path, -1, DISPATCH_READ + ",".join(sorted(by_name)))
        text = parsed.data.decode("utf-8", "replace")
        lines = {text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)}
        if not lines:
            continue
        for site, name, dims in _calls(parsed, lines, by_name, walked):
            proofs.setdefault(name, []).append((site, dims))
    out: dict[tuple, Precondition] = {}
    for name, found in proofs.items():
        dims = frozenset.intersection(*(d for _s, d in found))
        if dims:
            fn = by_name[name]
            out[fn.key] = Precondition(fn.qualname, dims, tuple(s for s, _d in found))
    return out


def _calls(parsed, lines: set[int], by_name: dict[str, Fn], walked: set[tuple]
           ) -> list[tuple[str, str, frozenset[str]]]:
    """(file:line, root name, dims proven) for each call of a root on ``lines``: in a def's
    body, proven by the conditions that hold on every path to it; elsewhere, nothing."""
    out: list[tuple[str, str, frozenset[str]]] = []
    tree = parsed.tree
    defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defs.append(node)
        elif isinstance(node, ast.ClassDef):
            defs += [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for call in _root_calls(_outside_defs(tree), by_name):  # module and class level code
        out.append((f"{parsed.path}:{call.lineno}", call.func.attr, frozenset()))
    for node in defs:
        if (parsed.path, node.lineno) in walked:
            continue
        body = parsed.bodies.get(node.lineno)
        end = body.end_line if body is not None else (node.end_lineno or node.lineno)
        if not any(node.lineno <= line <= end for line in lines):
            continue
        full = parsed.function(node)
        flow = flow_facts(full)
        for call in _root_calls(ast.walk(full), by_name):
            dims = {single_rank_dim(g.test, g.negated)
                    for g in holding_guards(flow.guards.get(id(call), ()))
                    if g.kind in ("if", "exit") and g.test is not None}
            out.append((f"{parsed.path}:{call.lineno}", call.func.attr,
                        frozenset(d for d in dims if d)))
    return out


def _outside_defs(tree: ast.Module) -> list[ast.AST]:
    """The nodes of a module outside every def (its hollowed bodies hold nothing)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _root_calls(nodes: Iterable[ast.AST], by_name: dict[str, Fn]) -> list[ast.Call]:
    return [n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in by_name]


def reached_only_where(preconditions: dict[tuple, Precondition], root_ctxs: list,
                       ) -> dict[tuple, frozenset[str]]:
    """Per function key reached from the roots: the dimensions single-rank on every root that
    reaches it (only the non-empty ones). ``root_ctxs``: each root's context."""
    if not preconditions:
        return {}
    common: dict[tuple, frozenset[str]] = {}
    for root in root_ctxs:
        dims = preconditions.get(root.fn.key, Precondition("", frozenset(), ())).dims
        seen: set[int] = set()
        todo = [root]
        while todo:
            ctx = todo.pop()
            if id(ctx) in seen:
                continue
            seen.add(id(ctx))
            key = ctx.fn.key
            common[key] = common[key] & dims if key in common else dims
            todo.extend(t for _call, t in ctx.edges if id(t) not in seen)
    return {k: v for k, v in common.items() if v}
