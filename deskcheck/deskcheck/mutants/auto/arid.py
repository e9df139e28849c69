"""Arid code: statements whose mutants only waste a reviewer's time.

Google's code-review mutation testing suppresses "arid" nodes: logging, metrics and other
side channels a test is not expected to pin. Here a node is arid when it is (or sits in) one of:

- a call statement to logging / print / metrics / warnings (``logger.info(...)``,
  ``print(...)``, ``self.metrics.inc(...)``, ``warnings.warn(...)``), extendable with
  fnmatch patterns over the callee's dotted name (``[tool.deskcheck] auto_arid_calls``);
- an ``assert``; a docstring or other bare string statement;
- ``__repr__`` / ``__str__`` bodies;
- type-only code: annotations, ``if TYPE_CHECKING:`` blocks, imports from ``typing`` /
  ``typing_extensions`` / ``collections.abc``, ``...`` statements, bare annotated names,
  ``TypeVar``/``NewType``/``ParamSpec`` assignments and ``@overload`` stubs.

``aridity(node)`` returns the reason a node is arid, or ``None``; the body (not the ``else``)
of an ``if TYPE_CHECKING:`` is recognised with ``is_type_checking(test)``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

import libcst as cst

LOGGER_NAMES = frozenset({"logging", "logger", "log", "_logger", "_log", "LOGGER", "LOG", "loguru"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                         "log", "fatal"})
METRIC_WORDS = ("metric", "stats", "counter", "gauge", "histogram", "telemetry", "tracer")
METRIC_METHODS = frozenset({"inc", "dec", "observe", "record", "increment"})
TYPING_MODULES = frozenset({"typing", "typing_extensions", "collections.abc", "types"})
TYPE_FACTORIES = frozenset({"TypeVar", "NewType", "ParamSpec", "TypeVarTuple", "TypeAliasType"})
ARID_FUNCTIONS = frozenset({"__repr__", "__str__"})


def dotted_name(node: cst.BaseExpression) -> str:
    """``a.b.c`` for attribute chains; a call inside the chain becomes ``f()``; else ``""``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    if isinstance(node, cst.Call):
        head = dotted_name(node.func)
        return f"{head}()" if head else ""
    return ""


def arid_call_reason(call: cst.Call, extra_patterns: Sequence[str] = ()) -> str | None:
    """Why a call is arid (``"logging call"`` ...), or ``None``."""
    name = dotted_name(call.func)
    if not name:
        return None
    parts = [p.removesuffix("()") for p in name.split(".")]
    receiver, method = parts[:-1], parts[-1]
    if name == "print":
        return "print call"
    if name in ("warnings.warn", "warn"):
        return "warnings call"
    if any(p in LOGGER_NAMES or p.lower().endswith("logger") for p in receiver):
        return "logging call"
    if method in LOG_METHODS and any("log" in p.lower() for p in receiver):
        return "logging call"
    if any(word in p.lower() for p in receiver for word in METRIC_WORDS):
        return "metrics call"
    if method in METRIC_METHODS and receiver:
        return "metrics call"
    for pattern in extra_patterns:
        if fnmatch.fnmatchcase(name, pattern):
            return f"arid call ({pattern})"
    return None


def is_type_checking(test: cst.BaseExpression) -> bool:
    return dotted_name(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _import_module_name(node: cst.ImportFrom) -> str:
    if node.relative or node.module is None:
        return ""
    return dotted_name(node.module)


def small_statement_aridity(node: cst.BaseSmallStatement,
                            extra_patterns: Sequence[str] = ()) -> str | None:
    """Aridity of one small statement (the unit a line-level reviewer sees)."""
    if isinstance(node, cst.Assert):
        return "assert"
    if isinstance(node, cst.Expr):
        value = node.value
        if isinstance(value, cst.SimpleString | cst.ConcatenatedString | cst.FormattedString):
            return "docstring"
        if isinstance(value, cst.Ellipsis):
            return "type-only (...)"
        if isinstance(value, cst.Call):
            return arid_call_reason(value, extra_patterns)
    if isinstance(node, cst.ImportFrom) and _import_module_name(node) in TYPING_MODULES:
        return "type-only (typing import)"
    if isinstance(node, cst.Import) and all(
        dotted_name(alias.name) in TYPING_MODULES for alias in node.names
    ):
        return "type-only (typing import)"
    if isinstance(node, cst.AnnAssign) and node.value is None:
        return "type-only (annotation)"
    if isinstance(node, cst.Assign | cst.AnnAssign) and isinstance(node.value, cst.Call):
        factory = dotted_name(node.value.func).split(".")[-1]
        if factory in TYPE_FACTORIES:
            return f"type-only ({factory})"
    if isinstance(node, cst.AnnAssign) and node.annotation is not None and _is_type_alias(node):
        return "type-only (TypeAlias)"
    return None


def _is_type_alias(node: cst.AnnAssign) -> bool:
    return dotted_name(node.annotation.annotation).split(".")[-1] == "TypeAlias"


def aridity(node: cst.CSTNode, extra_patterns: Sequence[str] = ()) -> str | None:
    """The reason ``node`` (and everything under it) is arid, or ``None``."""
    if isinstance(node, cst.Annotation):
        return "type-only (annotation)"
    if isinstance(node, cst.BaseSmallStatement):
        return small_statement_aridity(node, extra_patterns)
    if isinstance(node, cst.FunctionDef):
        if node.name.value in ARID_FUNCTIONS:
            return f"{node.name.value} body"
        if any(dotted_name(d.decorator).split(".")[-1] == "overload" for d in node.decorators):
            return "type-only (@overload stub)"
    return None
