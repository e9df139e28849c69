"""Functions the code itself marks as points every rank reaches together: decorators named
under ``consensus`` (SGLang's ``@rank_consensus``: "called by all ranks, in the same order",
checked at run time when its checker is on). A call to such a function is a collective
site over the entry's group (every rank unless it names one); ``same_results=True`` on the
decorator claims what the function returns is the same on every rank, so its return is
SANCTIONED by that claim; ``same_params`` claims the arguments are (``True``: every
parameter; a list of selectors: ``"n"``, an attribute ``"req.rid"``, a length
``"len(tokens)"``), so a read of what it claims inside the function is SANCTIONED."""

from __future__ import annotations

import ast

from deskcheck.static import Fn, decorators
from deskcheck.uniformity.config import Consensus
from deskcheck.uniformity.rules import hop_text, matches

RESULTS_KEYWORD = "same_results"  # the decorator's keyword that claims agreed returns
PARAMS_KEYWORD = "same_params"  # ... and the one that claims agreed arguments


def consensus_decorator(fn: Fn, patterns: list[str]) -> ast.expr | None:
    """The decorator of ``fn`` that ``patterns`` name (a glob over the decorator as written,
    without its arguments: ``rank_consensus``, ``*.rank_consensus``), or None."""
    if not patterns:
        return None
    for decorator in decorators(fn.node):
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


def _selector(text: str) -> tuple[str, str, bool] | None:
    """A ``same_params`` selector as (parameter, attribute path, length):
    ``"n"`` -> ("n", "", False), ``"req.rid"`` -> ("req", "rid", False),
    ``"len(tokens)"`` -> ("tokens", "", True); None for any other expression."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    length = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "len" and len(node.args) == 1 and not node.keywords)
    if length:
        node = node.args[0]
    path: list[str] = []
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, ".".join(path), length


def _claims(selector: tuple[str, str, bool], name: str, mode: str) -> bool:
    """Whether a selector covers reading parameter ``name`` in ``mode`` (the walk's mode:
    value, length, truth, attr:a.b, lattr:a.b, ...): a whole parameter covers every read
    of it; an attribute covers reads of that attribute and below; a length covers the
    length only."""
    param, path, length = selector
    if param != name:
        return False
    if not path:
        return mode == "length" if length else True
    kind, _colon, chain = mode.partition(":")
    if length:
        return kind == "lattr" and chain == path
    return kind in ("attr", "lattr") and (chain == path or chain.startswith(path + "."))


def param_claim(fn: Fn, entries: list[Consensus], name: str, mode: str) -> str | None:
    """Why reading ``fn``'s parameter ``name`` in ``mode`` is agreed, when its consensus
    decorator's ``same_params`` claims it (``self`` and ``cls`` are the object called on,
    never claimed: what is read through them is the object's); else None."""
    if name in (fn.self_name, "cls"):
        return None
    decorator = consensus_decorator(fn, [e.decorator for e in entries])
    if not isinstance(decorator, ast.Call):
        return None
    claim = next((k.value for k in decorator.keywords if k.arg == PARAMS_KEYWORD), None)
    if isinstance(claim, ast.Constant) and claim.value is True:
        covered = True
    elif isinstance(claim, (ast.List, ast.Tuple)):
        selectors = [_selector(e.value) for e in claim.elts
                     if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        covered = any(s is not None and _claims(s, name, mode) for s in selectors)
    else:
        covered = False
    if not covered:
        return None
    return (f"argument claimed the same on every rank by @{ast.unparse(decorator)} at "
            f"{fn.file}:{decorator.lineno} (checked at run time by its own checker)")
