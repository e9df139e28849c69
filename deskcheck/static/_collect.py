"""Every ``self.X`` one function touches, including inside its closures, lambdas and
comprehensions, with the chain of branch conditions each touch sits under (``if``/``elif``/
``else``, early ``return``s, loops, ``except`` handlers, ``and``/``or``, ternaries) and the
line of its statement (what coverage.py records). Also the *context reads*: module-level
runtime state the function reads besides ``self`` (``get_parallel().pp_size``,
``envs.SGLANG_X``, ``global`` names). Results are cached per parsed function node; the
records are in ``_facts``, the traversal in ``_collector`` (context reads: ``_context_reads``)."""

from __future__ import annotations

from deskcheck.static._collector import Collector
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

__all__ = ["CALL", "DELETE", "ELEMENT", "GUARDED", "PARAM", "READ", "RMW", "WRITE", "Access", "Cond", "ContextRead",
           "FunctionFacts", "clear_cache", "first_param", "function_facts"]

_FACTS: dict[tuple[int, str | None], tuple[FunctionNode, FunctionFacts]] = {}


def function_facts(node: FunctionNode, self_name: str | None) -> FunctionFacts:
    """The touches of ``self_name`` (``self``, or any parameter) in ``node``, cached."""
    key = (id(node), self_name)
    cached = _FACTS.get(key)
    if cached is None or cached[0] is not node:
        cached = (node, Collector(node, self_name).facts())  # the node kept: ids not reused
        _FACTS[key] = cached
    return cached[1]


def first_param(node: FunctionNode) -> str | None:
    params = node.args.posonlyargs + node.args.args
    return params[0].arg if params else None


def clear_cache() -> None:
    _FACTS.clear()
