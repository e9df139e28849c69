"""What the bug-class operators share: which calls are collectives, which names are ranks and
group sizes, and where a collective's input and output live in a function.

Read from source only (libcst), nothing imported. A *collective* is a call whose callee's last
name contains a collective's name (``dist.all_reduce``, ``self._all_reduce_min``,
``tensor_model_parallel_all_reduce``, ``broadcast_object_list``); the generic names
(``reduce``, ``gather``, ``scatter``) count only on ``torch.distributed`` (``dist.reduce``),
so ``functools.reduce`` and ``torch.gather`` are not collectives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from deskcheck.mutants.operators.base import ExpressionCollector, code_of, normalized

STRONG_NAMES = ("all_reduce", "allreduce", "all_gather", "allgather", "reduce_scatter",
                "all_to_all", "alltoall", "broadcast", "barrier")
WEAK_NAMES = ("reduce", "gather", "scatter")  # collectives only on torch.distributed
DIST_PREFIXES = ("dist", "distributed", "torch.distributed")
REDUCE_OPS = ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")
_RANK = re.compile(r"(?:^|_)rank$")
_SIZE = re.compile(r"(?:^|_)(?:world|tp|pp|dp|ep|cp|sp|group)_size$")
_SIZE_CALL = re.compile(r"^get_\w*(?:world_size|group_size|tp_size)$")
_RANK_CALL = re.compile(r"^get_\w*rank$")
DEFAULT_RANK = '__import__("torch.distributed").distributed.get_rank()'


def dotted(node: cst.BaseExpression) -> str:
    """``self.tp_cpu_group`` / ``dist.all_reduce``; ``""`` for anything that is not a name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def is_collective_call(node: cst.CSTNode) -> bool:
    """A call of a collective (see the module docstring)."""
    if not isinstance(node, cst.Call):
        return False
    name = dotted(node.func)
    if not name:
        return False
    prefix, _, last = name.rpartition(".")
    last = last.lower().lstrip("_")
    if any(strong in last for strong in STRONG_NAMES):
        return True
    return last in WEAK_NAMES and prefix in DIST_PREFIXES


def collective_calls(func: cst.FunctionDef, call: str | None = None) -> list[cst.Call]:
    """The collective calls in ``func``'s body in source order; with ``call``, only those whose
    callee (or whole call) is that snippet, collective-named or not (a user's own wrapper)."""
    want = normalized(call) if call else None

    def wanted(node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        if want is None:
            return is_collective_call(node)
        return normalized(code_of(node.func)) == want or normalized(code_of(node)) == want

    collector = ExpressionCollector(wanted)
    func.body.visit(collector)
    return [node for node in collector.found if isinstance(node, cst.Call)]


def call_label(call: str | None) -> str:
    return f"collective {call!r}" if call else "a collective call"


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name),
                None)


def first_positional(call: cst.Call) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is None and not a.star), None)


def is_rank_name(node: cst.CSTNode) -> bool:
    """``self.tp_rank``, ``rank``, ``local_rank`` (not ``dist.get_rank``, a callee)."""
    last = (dotted(node) if isinstance(node, cst.BaseExpression) else "").rpartition(".")[2]
    return bool(_RANK.search(last)) and not last.startswith("get_")


def is_size_expression(node: cst.CSTNode) -> bool:
    """``self.tp_size``, ``world_size``, ``dist.get_world_size(group)``, ..."""
    if isinstance(node, cst.Call):
        name = dotted(node.func)
        return bool(name) and bool(_SIZE_CALL.match(name.rpartition(".")[2]))
    last = (dotted(node) if isinstance(node, cst.BaseExpression) else "").rpartition(".")[2]
    return bool(_SIZE.search(last)) and not last.startswith("get_")


def find(func: cst.FunctionDef, wanted: Callable[[cst.BaseExpression], bool]
         ) -> list[cst.BaseExpression]:
    collector = ExpressionCollector(wanted)
    func.body.visit(collector)
    return collector.found


def rank_expression(func: cst.FunctionDef) -> str:
    """How ``func`` names this process's rank: the first rank name it reads (``self.tp_rank``,
    ``rank``), else the first rank call (``dist.get_rank()``), else torch's default group rank."""
    names = find(func, lambda n: isinstance(n, cst.Name | cst.Attribute) and is_rank_name(n))
    if names:
        return code_of(names[0].with_changes(lpar=[], rpar=[]))
    calls = find(func, lambda n: isinstance(n, cst.Call) and bool(
        _RANK_CALL.match(dotted(n.func).rpartition(".")[2])))
    if calls:
        return code_of(calls[0].with_changes(lpar=[], rpar=[]))
    return DEFAULT_RANK


@dataclass(frozen=True)
class Produced:
    """A name bound to a collective's result: ``reduced = self._all_reduce_min(vals)``."""

    output: str  # the name the result is bound to
    local: str  # the rank-local value it was made from (the call's first argument)
    statement: cst.CSTNode  # the assignment


def produced_values(func: cst.FunctionDef) -> list[Produced]:
    """Every ``name = <collective>(local, ...)`` in ``func``, in source order. An in-place
    collective (``dist.all_reduce(t)``) binds nothing: its output is its argument."""
    found: list[Produced] = []

    class Assignments(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value.expression if isinstance(node.value, cst.Await) else node.value
            if len(node.targets) != 1 or not is_collective_call(value):
                return
            target = node.targets[0].target
            arg = first_positional(value)  # type: ignore[arg-type]
            if isinstance(target, cst.Name) and arg is not None:
                found.append(Produced(target.value, code_of(arg.value), node))

    func.body.visit(Assignments())
    return found


def in_place_outputs(func: cst.FunctionDef) -> list[str]:
    """Names passed first to a collective used as a statement (``dist.all_reduce(tensor)``)."""
    names: list[str] = []

    class Statements(cst.CSTVisitor):
        def visit_Expr(self, node: cst.Expr) -> None:
            value = node.value.expression if isinstance(node.value, cst.Await) else node.value
            if is_collective_call(value):
                arg = first_positional(value)  # type: ignore[arg-type]
                if arg is not None and isinstance(arg.value, cst.Name):
                    names.append(arg.value.value)

    func.body.visit(Statements())
    return names


class StatementOf(cst.CSTVisitor):
    """The statement line (``SimpleStatementLine``) whose ``Expr`` is one of ``calls``."""

    def __init__(self, calls: set[int]):
        self.calls = calls
        self.lines: dict[int, cst.SimpleStatementLine] = {}
        self._line: cst.SimpleStatementLine | None = None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._line = node

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._line = None

    def visit_Expr(self, node: cst.Expr) -> None:
        value = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if id(value) in self.calls and self._line is not None and len(self._line.body) == 1:
            self.lines[id(value)] = self._line


def statement_lines(func: cst.FunctionDef, calls: list[cst.Call]
                    ) -> dict[int, cst.SimpleStatementLine]:
    """``id(call) -> its statement line`` for the calls that are a whole statement."""
    finder = StatementOf({id(c) for c in calls})
    func.body.visit(finder)
    return finder.lines
