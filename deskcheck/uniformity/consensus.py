"""Functions the code itself marks as points every rank reaches together: decorators named
under ``consensus`` (SGLang's ``@rank_consensus``: "called by all ranks, in the same order",
checked at run time when its checker is on). A call to such a function is a collective
site over the entry's group (every rank unless it names one); ``same_results=True`` on the
decorator claims what the function returns is the same on every rank, so its return is
SANCTIONED by that claim."""

from __future__ import annotations

import ast

from deskcheck.static import Fn
from deskcheck.uniformity.config import Consensus
from deskcheck.uniformity.rules import hop_text, matches

RESULTS_KEYWORD = "same_results"  # the decorator's keyword that claims agreed returns


def consensus_decorator(fn: Fn, patterns: list[str]) -> ast.expr | None:
    """The decorator of ``fn`` that ``patterns`` name (a glob over the decorator as written,
    without its arguments: ``rank_consensus``, ``*.rank_consensus``), or None."""
    if not patterns:
        return None
    for decorator in getattr(fn.node, "decorator_list", ()):
        if matches(hop_text(decorator), tuple(patterns)) is not None:
            return decorator
    return None


def consensus_entry(fn: Fn, entries: list[Consensus]) -> Consensus | None:
    """The first ``consensus`` entry whose decorator ``fn`` carries, or None."""
    for entry in entries:
        if consensus_decorator(fn, [entry.decorator]) is not None:
            return entry
    return None


def claims_same_results(decorator: ast.expr) -> bool:
    """``@rank_consensus(same_results=True)``: the return value is claimed the same on every
    rank (a list of fields claims those only, which is not the whole value)."""
    return isinstance(decorator, ast.Call) and any(
        k.arg == RESULTS_KEYWORD and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in decorator.keywords)


def consensus_claim(fn: Fn, entries: list[Consensus]) -> str | None:
    """Why ``fn``'s return is agreed, when its consensus decorator claims it; else None."""
    decorator = consensus_decorator(fn, [e.decorator for e in entries])
    if decorator is None or not claims_same_results(decorator):
        return None
    return (f"returned agreed, as claimed by @{ast.unparse(decorator)} at "
            f"{fn.file}:{decorator.lineno} (checked at run time by its own checker)")
