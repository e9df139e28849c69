"""A STALE mutant names the snippet as the catalog and the source write it (docs/mutants.md:
"naming the snippet and the function"), never an internal form of it."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from deskcheck.mutants.operators import StaleOperator, operator_class

SOURCE = textwrap.dedent("""
    def plan(self, vals):
        reduced = dist.all_reduce(vals, op=dist.ReduceOp.MIN)
        return reduced[0]
""")


def stale_message(operator: str, **params) -> str:
    func = cst.parse_module(SOURCE).body[0]
    assert isinstance(func, cst.FunctionDef), (
        "the test SOURCE must start with a function definition; it starts with "
        f"{type(func).__name__}"
    )
    with pytest.raises(StaleOperator) as stale:
        operator_class(operator)(params).apply(func, "function pkg.m:plan")
    return str(stale.value)


def test_slot_shift_stale_names_the_collective_result_as_written():
    message = stale_message("slot-shift", index="9")
    assert "Name(id=" not in message, (
        f"slot-shift's STALE message names the collective result by its ast dump, not as the "
        f"source writes it: {message}")
    assert "reduced" in message and "'9'" in message and "function pkg.m:plan" in message, (
        f"slot-shift's STALE message does not name the result, the index and the function: "
        f"{message}")
