"""A source a decision's input set reaches (a leaf of the walk), and small shared helpers."""

from __future__ import annotations

import ast
import heapq
from collections.abc import Callable
from typing import Any, NamedTuple


class Leaf(NamedTuple):
    """A source of a decision's input. ``category``: rank_id (``dim`` says of which group),
    rank_local, agreed (over ``dim``), config, sanctioned, unknown. ``single``: dimensions
    whose group has one rank on the path this leaf reaches the decision by. ``group``: for a
    value reduced over a group held in a parameter, which parameter (``param_group``)."""

    name: str
    category: str
    reason: str
    dim: str = ""
    witness: tuple[str, ...] = ()
    single: frozenset[str] = frozenset()
    group: str = ""  # agreed over a group parameter of its function: "module.qualname|param"


def default_of(node: Any, name: str) -> ast.expr | None:
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    defaults = node.args.defaults
    for param, default in zip(params[len(params) - len(defaults):], defaults, strict=True):
        if param == name:
            return default
    for kw_arg, default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
        if kw_arg.arg == name:
            return default
    return None


_MAX_LEAVES = 96
_REFERENCES = ("cycle", "param")  # edges of the walk, resolved later: never capped
_CAN_FAIL = ("rank_local", "rank_id", "unknown")
_PRIORITY = {"rank_local": 0, "rank_id": 1, "unknown": 2, "agreed": 3, "sanctioned": 4,
             "config": 5}


def dedupe_leaves(leaves: list[Leaf]) -> tuple[Leaf, ...]:
    """One leaf per source (the shortest witness); over the cap, the sources that can fail
    a decision are kept first, then the rest in a stable order. References to an open member
    of a cycle (category ``cycle``) are edges of the walk: never dropped."""
    seen: dict[tuple, Leaf] = {}
    marked = False
    for leaf in leaves:
        key = (leaf.name, leaf.category, leaf.dim, leaf.single)
        if key not in seen or len(leaf.witness) < len(seen[key].witness):
            seen[key] = leaf
        if leaf.single:
            marked = True
    if marked:
        _fewest_marks(seen)
    if len(seen) <= _MAX_LEAVES:
        return tuple(seen.values())
    return cap_leaves(list(seen.values()))


def _fewest_marks(seen: dict[tuple, Leaf]) -> None:
    """Of one source reached on paths with different single-rank marks, keep the paths whose
    marks no other path's marks contain: a path with more marks can make no verdict other
    than a path with fewer (a group with one rank on the second path has one on the first),
    so the fewest decide."""
    singles: dict[tuple, list[tuple[frozenset, tuple]]] = {}
    for key, leaf in seen.items():
        singles.setdefault((leaf.name, leaf.category, leaf.dim), []).append((leaf.single, key))
    if len(singles) == len(seen):
        return
    for found in singles.values():
        if len(found) > 1:
            for single, key in found:
                if any(other < single for other, _key in found):
                    del seen[key]


def cap_leaves(leaves: list[Leaf]) -> tuple[Leaf, ...]:
    """At most ``_MAX_LEAVES`` sources (plus every cycle or parameter reference): first those
    that can fail a decision on a path with no single-rank mark (they count for every
    group), then those that can fail one where marked (TRIVIAL for some groups), then the
    rest; of one source the path with the fewest single-rank marks first."""
    refs = [leaf for leaf in leaves if leaf.category in _REFERENCES]
    rest = [leaf for leaf in leaves if leaf.category not in _REFERENCES]
    if len(rest) <= _MAX_LEAVES:
        return tuple(leaves)
    buckets: dict[tuple[int, int], list[Leaf]] = {}
    for x in rest:
        buckets.setdefault(bucket(x.category, x.single), []).append(x)
    return tuple(ranked_within_cap(buckets, lambda built: built) + refs)


def bucket(category: str, single: frozenset) -> tuple[int, int]:
    """The first two parts of a source's rank (see :func:`cap_leaves`)."""
    return ((1 if single else 0) if category in _CAN_FAIL else 2, _PRIORITY.get(category, 9))


def ranked_within_cap(buckets: dict[tuple[int, int], list], build: Callable[[list], list[Leaf]]
                      ) -> list[Leaf]:
    """``sorted(sources, key=_rank)[:cap]`` over sources grouped by :func:`bucket` (each
    group in the order found), building and ranking in full only the groups that reach the
    cap (``build`` turns a group into its leaves)."""
    ranked: list[Leaf] = []
    for first in sorted(buckets):
        room = _MAX_LEAVES - len(ranked)
        if room <= 0:
            break
        ranked += heapq.nsmallest(room, build(buckets[first]), key=_rank)
    return ranked


def _rank(x: Leaf) -> tuple:
    return ((1 if x.single else 0) if x.category in _CAN_FAIL else 2,
            _PRIORITY.get(x.category, 9), len(x.single), x.name, x.dim,
            sorted(x.single) if x.single else _NONE, len(x.witness))


_NONE: list[str] = []


def param_group(fn: Any, group: str, flow: Any) -> str:
    """``"module.qualname|param"`` when ``group`` is a parameter of ``fn`` never rebound in
    its body (a collective over it runs over whatever group the caller passed), else ""."""
    if group not in flow.params or any(d.name == group and d.kind != "param"
                                       for d in flow.defs):
        return ""
    return f"{fn.module}.{fn.qualname}|{group}"
