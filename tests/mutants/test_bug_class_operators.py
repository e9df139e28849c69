"""The bug-class operators (ranks that stop agreeing): each applied to a real TP planner,
formatting kept, STALE when its site is not there, its catalog keys checked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutated import StaleOperator
from deskcheck.mutants.mutation import build_mutation
from deskcheck.mutants.operators import (
    BUG_CLASS_OPERATORS,
    OperatorParamError,
    catalog_operators,
    operator_class,
)

BUGCLASS = Path(__file__).parent / "fixtures" / "bugclass"
REDUCE = "tpkg.planner:Planner._all_reduce_min"
PLAN = "tpkg.planner:Planner.plan"
COLLECTIVE = "        dist.all_reduce(tensor, op=dist.ReduceOp.MIN, group=self.tp_group)"


@pytest.fixture(autouse=True)
def fixture_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(BUGCLASS))


def changed(target: str, operator: str, **params) -> tuple[list[str], list[str]]:
    mutated = build_mutation(Mutant(id="t", title="t", target=target, operator=operator,
                                    params=params))
    diff = mutated.diff().splitlines()
    return ([line[1:] for line in diff if line.startswith("-") and not line.startswith("---")],
            [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")])


def test_every_bug_class_operator_is_usable_in_a_catalog():
    names = {cls.name for cls in BUG_CLASS_OPERATORS}
    assert names == {"reduce-op", "rank-local", "skip-on-rank", "drop-collective",
                     "swap-group", "slot-shift", "group-size-one"}, names
    missing = names - set(catalog_operators())
    assert not missing, f"bug-class operators a catalog cannot name: {missing}"


@pytest.mark.parametrize("to", ["MAX", "SUM"])
def test_reduce_op_swaps_the_op_of_the_collective(to):
    minus, plus = changed(REDUCE, "reduce-op", to=to)
    assert minus == [COLLECTIVE], minus
    assert plus == [COLLECTIVE.replace("ReduceOp.MIN", f"ReduceOp.{to}")], plus


def test_reduce_op_to_the_same_op_is_stale():
    with pytest.raises(StaleOperator, match="already reduces with MIN"):
        changed(REDUCE, "reduce-op", to="MIN")


def test_reduce_op_names_torchs_default_sum_explicitly(tmp_path, monkeypatch):
    (tmp_path / "summing.py").write_text(
        "import torch.distributed as dist\n\ndef total(t):\n    dist.all_reduce(t)\n"
        "    return t\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # this test's own summing.py, never a module of that name an earlier run imported from a
    # temp folder since removed (mutmut runs the tests many times in one process)
    monkeypatch.delitem(sys.modules, "summing", raising=False)
    _, plus = changed("summing:total", "reduce-op", to="MAX")
    assert plus == ["    dist.all_reduce(t, op=dist.ReduceOp.MAX)"], plus


def test_rank_local_replaces_one_read_of_the_agreed_value_by_its_local_source():
    minus, plus = changed(PLAN, "rank-local", occurrence=1)
    assert minus == ["        return Plan(admit=reduced[FREE_SLOT], budget=reduced[BUDGET_SLOT])"], (
        "rank-local with occurrence = 1 must change the return of the agreed reads; it removed "
        f"{minus}"
    )
    assert plus == ["        return Plan(admit=vals[FREE_SLOT], budget=reduced[BUDGET_SLOT])"], plus


def test_rank_local_with_several_reads_needs_an_occurrence():
    with pytest.raises(StaleOperator, match="matches 2 sites"):
        changed(PLAN, "rank-local")


def test_rank_local_on_a_function_without_a_collective_is_stale():
    with pytest.raises(StaleOperator, match="rank-local"):
        changed("tpkg.planner:Planner.plan_or_none", "rank-local")


def test_skip_on_rank_guards_a_statement_collective():
    minus, plus = changed(REDUCE, "skip-on-rank", rank="self.tp_rank")
    assert minus == [COLLECTIVE], (
        f"skip-on-rank must guard the one collective statement; it removed {minus}"
    )
    assert plus == ["        if self.tp_rank == 0:", "    " + COLLECTIVE], (
        "skip-on-rank must guard the collective so only rank `runs_on` (default 0) runs it: "
        f"`if self.tp_rank == 0:`; the mutant added {plus}")


def test_skip_on_rank_keeps_the_local_value_where_the_result_is_used():
    _, plus = changed(PLAN, "skip-on-rank", rank="self.tp_rank")
    assert plus == ["        reduced = (self._all_reduce_min(vals) if self.tp_rank == 0 "
                    "else vals)"], (
        "where the result is used, skip-on-rank makes it `(call if rank == 0 else <its "
        f"input>)`, rank `runs_on` defaulting to 0; the mutant added {plus}")


def test_skip_on_rank_finds_the_rank_the_function_reads(tmp_path, monkeypatch):
    (tmp_path / "ranked.py").write_text(
        "import torch.distributed as dist\n\ndef step(t, rank):\n    print(rank)\n"
        "    dist.broadcast(t, src=0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _, plus = changed("ranked:step", "skip-on-rank")
    assert plus == ["    if rank == 0:", "        dist.broadcast(t, src=0)"], (
        "skip-on-rank must guard with the rank the function reads (`rank`) and `runs_on` "
        f"defaulting to 0: `if rank == 0:`; the mutant added {plus}")


def test_skip_on_rank_without_a_rank_name_asks_torch():
    _, plus = changed(REDUCE, "skip-on-rank", runs_on=1)
    assert plus[0].strip() == ('if __import__("torch.distributed").distributed.get_rank() '
                               '== 1:'), plus


def test_drop_collective_removes_the_call_on_every_rank():
    minus, plus = changed(REDUCE, "drop-collective")
    assert (minus, plus) == ([COLLECTIVE], ["        pass"]), (minus, plus)
    _, plus = changed(PLAN, "drop-collective")
    assert plus == ["        reduced = vals"], plus


def test_swap_group_falls_back_to_the_default_group_or_to_another():
    _, plus = changed(REDUCE, "swap-group")
    assert plus == ["        dist.all_reduce(tensor, op=dist.ReduceOp.MIN)"], plus
    _, plus = changed(REDUCE, "swap-group", to="self.dp_group")
    assert plus == [COLLECTIVE.replace("self.tp_group", "self.dp_group")], plus


def test_swap_group_without_a_group_argument_is_stale():
    with pytest.raises(StaleOperator, match="with group="):
        changed(PLAN, "swap-group")


def test_slot_shift_reads_the_neighbouring_slot():
    _, plus = changed(PLAN, "slot-shift", index="FREE_SLOT")
    assert plus == ["        return Plan(admit=reduced[FREE_SLOT + 1], "
                    "budget=reduced[BUDGET_SLOT])"], plus
    _, plus = changed(PLAN, "slot-shift", occurrence=2, by=-1)
    assert plus == ["        return Plan(admit=reduced[FREE_SLOT], "
                    "budget=reduced[BUDGET_SLOT - 1])"], plus


def test_slot_shift_of_an_index_nobody_reads_is_stale():
    with pytest.raises(StaleOperator, match="'HEAD_SLOT'"):
        changed(PLAN, "slot-shift", index="HEAD_SLOT")


def test_group_size_one_reads_the_tp_size_as_one():
    minus, plus = changed(PLAN, "group-size-one")
    assert (minus, plus) == (["        if self.tp_size == 1:"], ["        if 1 == 1:"]), (
        f"group-size-one must read self.tp_size as 1; removed {minus}, added {plus}"
    )


@pytest.mark.parametrize("operator, params, key", [
    ("reduce-op", {"to": "MEDIAN"}, "to"),
    ("rank-local", {"output": "reduced"}, "output"),
    ("skip-on-rank", {"runs_on": -1}, "runs_on"),
    ("slot-shift", {"by": 0}, "by"),
    ("group-size-one", {"occurrence": 0}, "occurrence"),
    ("drop-collective", {"line": 4}, "line"),
    ("swap-group", {"group": "x"}, "group"),
])
def test_catalog_keys_are_checked(operator, params, key):
    with pytest.raises(OperatorParamError) as info:
        operator_class(operator).validate(params)
    keys = [p[0] for p in info.value.problems]
    assert key in keys, f"{operator} {params}: no problem named key {key!r}: {info.value.problems}"


@pytest.mark.parametrize("code, collective", [
    ("dist.all_reduce(t)", True), ("self._all_reduce_min(vals)", True),
    ("tensor_model_parallel_all_reduce(x)", True), ("dist.broadcast_object_list(objs)", True),
    ("dist.reduce(t, dst=0)", True), ("torch.distributed.gather(t)", True),
    ("functools.reduce(add, xs)", False), ("torch.gather(t, 0, idx)", False),
    ("reduce(add, xs)", False), ("self.scatter_(0, idx, src)", False),
])
def test_which_calls_are_collectives(code, collective):
    import libcst as cst

    from deskcheck.mutants.operators.collectives import is_collective_call

    assert is_collective_call(cst.parse_expression(code)) is collective, (
        f"{code} was {'not ' if collective else ''}taken for a collective")
