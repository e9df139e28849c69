"""Mutation operators: one small class each, registered by name (like libcst's visitors)."""

from __future__ import annotations

from deskcheck.mutants.operators.base import (
    BrokenMutant,
    Operator,
    OperatorParamError,
    StaleOperator,
)
from deskcheck.mutants.operators.drop_call import DropCall
from deskcheck.mutants.operators.force_branch import ForceBranch
from deskcheck.mutants.operators.offset import Offset
from deskcheck.mutants.operators.replace import Replace
from deskcheck.mutants.operators.return_value import ReturnValue
from deskcheck.mutants.operators.swap import Swap

OPERATORS: dict[str, type[Operator]] = {}


def register(cls: type[Operator]) -> type[Operator]:
    """Register an operator class under its ``name`` (usable as a decorator)."""
    if not cls.name or cls.name in OPERATORS:
        raise ValueError(f"operator name {cls.name!r} is empty or already registered")
    OPERATORS[cls.name] = cls
    return cls


for _cls in (Replace, Swap, DropCall, ForceBranch, ReturnValue, Offset):
    register(_cls)


def catalog_operators() -> dict[str, type[Operator]]:
    """The operators a catalog file may name: the same whatever else was registered."""
    return {name: cls for name, cls in OPERATORS.items() if cls.in_catalogs}


def operator_class(name: str) -> type[Operator]:
    return OPERATORS[name]


__all__ = ["OPERATORS", "catalog_operators", "BrokenMutant", "Operator", "OperatorParamError", "StaleOperator",
           "operator_class", "register"]
