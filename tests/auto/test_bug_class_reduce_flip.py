"""auto's reduce-op candidates swap the op for another one (MIN <-> MAX, SUM -> MAX): a
changed line with a reduce gets a real reduce-op mutant (docs/auto.md, docs/mutants.md)."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from deskcheck.mutants.auto.bug_class import apply_site, bug_class_sites


@pytest.mark.parametrize(("op", "flipped"), [("MIN", "MAX"), ("MAX", "MIN")])
def test_a_changed_reduce_line_gets_a_reduce_op_mutant_with_the_op_flipped(op, flipped):
    source = (f"def f(vals):\n    reduced = dist.all_reduce(vals, op=dist.ReduceOp.{op})\n"
              "    return reduced\n")
    wrapper = MetadataWrapper(cst.parse_module(source))
    positions = wrapper.resolve(PositionProvider)
    func = wrapper.module.body[0]
    assert isinstance(func, cst.FunctionDef), (
        f"the test source must parse to a function definition; it parsed to {type(func).__name__}"
    )

    def span(node: cst.CSTNode) -> tuple[int, int, int]:
        pos = positions[node]
        return pos.start.line, pos.end.line, pos.start.column

    sites = [s for s in bug_class_sites(func, frozenset({2}), span) if s.family == "REDOP"]
    assert sites, "no reduce-op candidate for a changed line holding a reduce"
    assert sites[0].params["to"] == flipped, (
        f"auto's reduce-op candidate for op {op} asks for {sites[0].params['to']}, not {flipped}")
    mutated = apply_site(func, sites[0], "function f")
    assert mutated is not None, (
        f"auto's reduce-op candidate for op {op} changes nothing (the op was not flipped)")
    assert f"ReduceOp.{flipped}" in cst.Module(body=[mutated]).code, (
        f"auto's reduce-op mutant for op {op} must give ReduceOp.{flipped}; it gave "
        f"{cst.Module(body=[mutated]).code!r}"
    )
