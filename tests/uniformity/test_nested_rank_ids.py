"""A rank id differs within every group that lies inside its dimension's groups, not only
within the groups its own groups lie inside (docs/uniformity.md "Group-relative"): the
members of one attention-TP group (a part of a TP group) hold different TP ranks, so
``if self.tp_rank == 0: dist.barrier(group=self.attn_tp_group)`` lets one member in and
hangs the others; so does a model-parallel rank over a TP group (mp groups hold TP and PP
groups). Both were read as "the same on every rank of the group" (UNIFORM). Twins: a DP
rank over a TP group, and a TP rank over a DP group, are the same on every rank of it."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    class S:
        def __init__(self, ranks, groups):
            self.tp_rank, self.mp_rank, self.dp_rank, self.attn_tp_rank, self.pp_rank = ranks
            self.tp_group, self.attn_tp_group, self.dp_group, self.model_parallel_group = groups

        def step(self):
            if self.RANK == 0:
                dist.barrier(group=self.GROUP)
"""


@pytest.mark.parametrize("rank, group, verdict", [
    ("tp_rank", "attn_tp_group", Verdict.RANK_LOCAL),
    ("mp_rank", "tp_group", Verdict.RANK_LOCAL),
    ("attn_tp_rank", "tp_group", Verdict.RANK_LOCAL),
    ("tp_rank", "tp_group", Verdict.RANK_LOCAL),
    ("pp_rank", "model_parallel_group", Verdict.RANK_LOCAL),
    ("dp_rank", "model_parallel_group", Verdict.UNIFORM),
    ("dp_rank", "tp_group", Verdict.UNIFORM),
    ("tp_rank", "dp_group", Verdict.UNIFORM),
], ids=["tp_rank_over_attn_tp", "mp_rank_over_tp", "attn_tp_rank_over_tp", "tp_over_tp",
        "pp_rank_over_mp", "dp_rank_over_mp_twin", "dp_rank_over_tp_twin",
        "tp_rank_over_dp_twin"])
def test_a_rank_id_differs_within_groups_inside_its_dimension(make_pkg, rank, group, verdict):
    source = SOURCE.replace("RANK", rank).replace("GROUP", group)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == f"self.{rank} == 0")
    members = "hold different" if verdict is Verdict.RANK_LOCAL else "share one"
    assert d.verdict is verdict, (
        f"`if self.{rank} == 0: dist.barrier(group=self.{group})`: the members of one "
        f"{group} {members} {rank}: must be {verdict.value}; got {d.verdict.value}: {d.why}")
