"""Direct checks of what docs/mutants.md promises each bug-class operator does, one sentence
each, on a small function's source (libcst only, nothing imported or run)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from deskcheck.mutants.operators import StaleOperator, operator_class
from deskcheck.mutants.operators.collectives import is_collective_call

SOURCE = textwrap.dedent("""
    def plan(self, vals, t):
        reduced = dist.all_reduce(vals, op=dist.ReduceOp.MIN, group=self.tp_group)
        dist.broadcast(t, src=0, group=self.tp_group)
        head = reduced[1:3]
        return head, dist.get_world_size(self.tp_group)
""")


def mutate(operator: str, source: str = SOURCE, stale_means: str = "", **params) -> str:
    """The mutated source; a StaleOperator fails the test with ``stale_means`` (what the
    operator missed, in words)."""
    func = cst.parse_module(source).body[0]
    assert isinstance(func, cst.FunctionDef), (
        "the test source must start with a function definition; it starts with "
        f"{type(func).__name__}"
    )
    try:
        mutated = operator_class(operator)(params).apply(func, "function plan")
    except StaleOperator as stale:
        pytest.fail(f"{operator} {params}: {stale_means or 'no site found'} ({stale})")
    return cst.Module(body=[mutated]).code


def test_reduce_op_names_the_op_on_a_call_with_torchs_default_sum():
    code = mutate("reduce-op", "def f(t):\n    dist.all_reduce(t)\n", to="MAX",
                  stale_means="dist.all_reduce(t) (torch's default op, SUM) was not taken for "
                              "a reducing call")
    assert "op=dist.ReduceOp.MAX" in code, (
        f"reduce-op on a call with torch's default op did not add op=dist.ReduceOp.MAX:\n{code}")


def test_skip_on_rank_runs_the_collective_on_the_rank_runs_on_names():
    code = mutate("skip-on-rank", "def f(t, rank):\n    dist.broadcast(t, src=rank)\n",
                  runs_on=1)
    assert "if rank == 1:" in code, (
        f"skip-on-rank ignored runs_on = 1: the guard is not `rank == 1`:\n{code}")


def test_skip_on_rank_lets_a_skipping_rank_go_on_with_its_rank_local_value():
    code = mutate("skip-on-rank", "def f(vals, rank):\n    return dist.all_reduce(vals)\n")
    assert "else vals)" in code, (
        f"skip-on-rank: a skipping rank does not go on with the call's input `vals`:\n{code}")


def test_swap_group_changes_only_the_collective_call_names():
    code = mutate("swap-group", call="dist.broadcast",
                  stale_means="call = 'dist.broadcast' did not pick the one broadcast")
    assert "dist.all_reduce(vals, op=dist.ReduceOp.MIN, group=self.tp_group)" in code, (
        f"swap-group with call = 'dist.broadcast' also changed the all_reduce's group:\n{code}")
    assert "dist.broadcast(t, src=0)" in code, (
        f"swap-group did not remove the broadcast's group= (call ignored?):\n{code}")


def test_slot_shift_moves_both_ends_of_a_slice():
    code = mutate("slot-shift")
    assert "reduced[1 + 1:3 + 1]" in code, (
        f"slot-shift did not move both ends of the slice reduced[1:3]:\n{code}")


def test_group_size_one_reads_a_get_world_size_call_as_one():
    code = mutate("group-size-one",
                  stale_means="dist.get_world_size(self.tp_group) was not taken for a group size")
    assert "return head, 1" in code, (
        f"group-size-one did not turn dist.get_world_size(self.tp_group) into 1:\n{code}")


def test_drop_collective_uses_value_for_a_used_result():
    code = mutate("drop-collective", "def f(vals):\n    return dist.all_reduce(vals)\n",
                  value="[0]")
    assert "return [0]" in code, f"drop-collective ignored value = '[0]':\n{code}"


@pytest.mark.parametrize("call", ["functools.reduce(f, xs)", "torch.gather(t, 0, i)"])
def test_generic_names_off_torch_distributed_are_not_collectives(call):
    assert not is_collective_call(cst.parse_expression(call)), (
        f"{call} was taken for a collective (reduce/gather count only on torch.distributed)")


def test_generic_names_on_torch_distributed_are_collectives():
    assert is_collective_call(cst.parse_expression("dist.reduce(t, 0)")), (
        "dist.reduce(t, 0) was not taken for a collective")


@pytest.mark.parametrize("call", [
    "dist.all_reduce(t)", "self._all_reduce_min(vals)", "tensor_model_parallel_all_reduce(t)",
    "dist.all_gather_into_tensor(out, t)", "dist.reduce_scatter(out, ts)",
    "dist.all_to_all_single(out, t)", "dist.broadcast(t, src=0)", "dist.barrier()",
    "self._broadcast_requests(reqs)", "dist.gather(t, ts)", "torch.distributed.scatter(t, ts)",
])
def test_every_documented_collective_name_makes_a_collective(call):
    assert is_collective_call(cst.parse_expression(call)), (
        "docs/mutants.md: a call whose callee's last name contains all_reduce, all_gather, "
        "reduce_scatter, all_to_all, broadcast or barrier (or reduce/gather/scatter on "
        f"torch.distributed) is a collective; {call} was not taken for one")


@pytest.mark.parametrize("call", ["self.scatter(t)", "np.gather(a)", "self.reduce_floor(v)",
                                  "dist.get_world_size(g)", "queue.all_items()"])
def test_other_calls_are_not_collectives(call):
    assert not is_collective_call(cst.parse_expression(call)), (
        f"{call} was taken for a collective; its last name contains none of the documented "
        "collective names and reduce/gather/scatter count only on torch.distributed")
