"""Mutation operators: one small class each, registered by name (like libcst's visitors)."""

from __future__ import annotations

from deskcheck.mutants.operators.base import (
    BrokenMutant,
    OccurrenceOutOfRange,
    Operator,
    OperatorParamError,
    StaleOperator,
)
from deskcheck.mutants.operators.drop_call import DropCall
from deskcheck.mutants.operators.drop_collective import DropCollective
from deskcheck.mutants.operators.force_branch import ForceBranch
from deskcheck.mutants.operators.group_size_one import GroupSizeOne
from deskcheck.mutants.operators.offset import Offset
from deskcheck.mutants.operators.rank_local import RankLocal
from deskcheck.mutants.operators.reduce_op import ReduceOpSwap
from deskcheck.mutants.operators.replace import Replace
from deskcheck.mutants.operators.return_value import ReturnValue
from deskcheck.mutants.operators.skip_on_rank import SkipOnRank
from deskcheck.mutants.operators.slot_shift import SlotShift
from deskcheck.mutants.operators.swap import Swap
from deskcheck.mutants.operators.swap_group import SwapGroup

OPERATORS: dict[str, type[Operator]] = {}


def register(cls: type[Operator]) -> type[Operator]:
    """Register an operator class under its ``name`` (usable as a decorator)."""
    if not cls.name or cls.name in OPERATORS:
        raise ValueError(f"operator name {cls.name!r} is empty or already registered")
    OPERATORS[cls.name] = cls
    return cls


for _cls in (Replace, Swap, DropCall, ForceBranch, ReturnValue, Offset):
    register(_cls)

# The bug class of TP schedulers: ranks that stop agreeing (docs/mutants.md, "Operators for
# the bug class"). Auto prefers them on changed lines that touch a collective.
BUG_CLASS_OPERATORS: tuple[type[Operator], ...] = (
    ReduceOpSwap, RankLocal, SkipOnRank, DropCollective, SwapGroup, SlotShift, GroupSizeOne)
for _cls in BUG_CLASS_OPERATORS:
    register(_cls)


def catalog_operators() -> dict[str, type[Operator]]:
    """The operators a catalog file may name: the same whatever else was registered."""
    return {name: cls for name, cls in OPERATORS.items() if cls.in_catalogs}


def operator_class(name: str) -> type[Operator]:
    return OPERATORS[name]


__all__ = ["BUG_CLASS_OPERATORS", "OPERATORS", "catalog_operators", "BrokenMutant",
           "OccurrenceOutOfRange", "Operator", "OperatorParamError", "StaleOperator",
           "operator_class", "register"]
