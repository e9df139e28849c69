"""Which parallel dimension a name or a call speaks of (docs/uniformity.md "Groups"):
Megatron's and nanotron's long names (``tensor_model_parallel``, ``pipeline_parallel``,
``data_parallel``, ``context_parallel``, ``expert_model_parallel``) are the tp/pp/dp/cp/ep
dimensions; ``dist.get_rank(group)`` and ``dist.get_world_size(group=g)`` speak of ``g``'s
dimension, not the world's; and a size whose dimension is not known proves no group has one
rank. Found on nanotron: ``if self.context_parallel_size > 1: raise`` made every later
collective TRIVIAL (a silent miss: the unknown size counted as the world's), and
``pp_rank = dist.get_rank(pg)`` gating a TP all-reduce was a world rank (a false report)."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

EXIT_FIRST = """
    from megatron.core import mpu


    class S:
        def __init__(self):
            self.last = 0.0

        def step(self):
            if SIZE > 1:
                raise NotImplementedError("not supported")
            if time.monotonic() - self.last > 5.0:
                dist.all_reduce(self.t, group=self.GROUP)
"""

SIZES = [
    # (id, size test, group of the gated collective, verdict)
    ("context_parallel_vs_dp", "self.context_parallel_size", "dp_group", Verdict.RANK_LOCAL),
    ("context_parallel_vs_cp", "self.context_parallel_size", "cp_group", Verdict.TRIVIAL),
    ("tensor_parallel_vs_dp", "self.tensor_parallel_size", "dp_group", Verdict.RANK_LOCAL),
    ("tensor_parallel_vs_tp", "self.tensor_parallel_size", "tp_group", Verdict.TRIVIAL),
    ("megatron_tp_call_vs_dp", "mpu.get_tensor_model_parallel_world_size()", "dp_group",
     Verdict.RANK_LOCAL),
    ("megatron_tp_call_vs_tp", "mpu.get_tensor_model_parallel_world_size()", "tp_group",
     Verdict.TRIVIAL),
    ("group_keyword_vs_dp", "dist.get_world_size(group=self.tp_group)", "dp_group",
     Verdict.RANK_LOCAL),
    ("group_keyword_vs_tp", "dist.get_world_size(group=self.tp_group)", "tp_group",
     Verdict.TRIVIAL),
    ("group_positional_vs_dp", "dist.get_world_size(self.tp_group)", "dp_group",
     Verdict.RANK_LOCAL),
    ("whole_world", "dist.get_world_size()", "dp_group", Verdict.TRIVIAL),
    ("unknown_size", "self.shard_size", "dp_group", Verdict.RANK_LOCAL),
]


@pytest.mark.parametrize("size, group, verdict", [s[1:] for s in SIZES],
                         ids=[s[0] for s in SIZES])
def test_a_single_rank_exit_speaks_of_its_own_dimension(make_pkg, size, group, verdict):
    source = EXIT_FIRST.replace("SIZE", size).replace("GROUP", group)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if "monotonic" in d.condition][0]
    assert d.verdict is verdict, (
        f"`if {size} > 1: raise`, then a clock deciding an all_reduce over {group}: past the "
        f"exit only the group {size} speaks of has one rank: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


RANK_OF = """
    from megatron.core import mpu


    class S:
        def step(self):
            pp_rank = RANK
            for _ in range(self.pp_size - pp_rank - 1):
                dist.all_reduce(self.t, group=self.GROUP)
"""

RANKS = [
    ("group_positional_vs_tp", "dist.get_rank(self.pp_group)", "tp_group", Verdict.UNIFORM),
    ("group_keyword_vs_tp", "dist.get_rank(group=self.pp_group)", "tp_group", Verdict.UNIFORM),
    ("group_positional_vs_pp", "dist.get_rank(self.pp_group)", "pp_group",
     Verdict.RANK_LOCAL),
    ("no_group_vs_tp", "dist.get_rank()", "tp_group", Verdict.RANK_LOCAL),
    ("megatron_pp_vs_tp", "mpu.get_pipeline_model_parallel_rank()", "tp_group",
     Verdict.UNIFORM),
    ("megatron_pp_vs_pp", "mpu.get_pipeline_model_parallel_rank()", "pp_group",
     Verdict.RANK_LOCAL),
    ("megatron_dp_vs_dp", "mpu.get_data_parallel_rank()", "dp_group", Verdict.RANK_LOCAL),
]


@pytest.mark.parametrize("rank, group, verdict", [r[1:] for r in RANKS],
                         ids=[r[0] for r in RANKS])
def test_a_rank_id_speaks_of_its_groups_dimension(make_pkg, rank, group, verdict):
    source = RANK_OF.replace("RANK", rank).replace("GROUP", group)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.kind == "for"][0]
    assert d.verdict is verdict, (
        f"`pp_rank = {rank}` deciding how many all_reduces over {group} run: a rank id "
        f"differs only within groups of its own dimension: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


PARAM_GROUP = """
    class S:
        def step(self):
            self.warm_up(self.GROUP)

        def warm_up(self, pg):
            pp_rank = dist.get_rank(pg)
            for _ in range(self.pp_size - pp_rank - 1):
                dist.all_reduce(self.t, group=self.tp_group)
"""


@pytest.mark.parametrize("group, verdict", [("pp_group", Verdict.UNIFORM),
                                            ("tp_group", Verdict.RANK_LOCAL)],
                         ids=["pp_group_passed", "tp_group_passed_twin"])
def test_a_rank_of_a_group_parameter_speaks_of_what_callers_pass(make_pkg, group, verdict):
    source = PARAM_GROUP.replace("GROUP", group)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.kind == "for"][0]
    assert d.verdict is verdict, (
        f"`dist.get_rank(pg)` with every caller passing self.{group}, deciding how many TP "
        f"all_reduces run: the rank is of {group}'s dimension: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")
