"""A value reduced in place over one group and then over another is agreed over both
(docs/uniformity.md "Groups"): DeepSpeed's ZeRO overflow flag is all-reduced MAX over the
data-parallel group, then over the model-parallel group (``_model_parallel_all_reduce``),
and gates collectives over both. The audit kept only the first reduction ("agreed over
dp, not over world") and read ``self.model_parallel_group`` as no dimension (the world's):
a false RANK-LOCAL. "model parallel" names the mp dimension (tensor x pipeline). Twins: a
flag reduced over one group only, or over the second only on some paths, or gating a
collective over the whole world, stays RANK-LOCAL (nothing says the two groups span the
world)."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch

    class Z:
        def __init__(self, dp_process_group, model_parallel_group, pp_group):
            self.dp_process_group = dp_process_group
            self.model_parallel_group = model_parallel_group
            self.pp_group = pp_group

        def _model_parallel_all_reduce(self, tensor, op):
            dist.all_reduce(tensor=tensor, op=op, group=self.model_parallel_group)

        def step(self, x):
            overflow = torch.tensor([float(time.monotonic() > 3)])
            REDUCE
            if overflow.item():
                GATED
"""

OVER_DP = "dist.all_reduce(overflow, op=dist.ReduceOp.MAX, group=self.dp_process_group)"
OVER_MP = "self._model_parallel_all_reduce(overflow, dist.ReduceOp.MAX)"
BOTH = OVER_DP + "\n            " + OVER_MP
DP_GATHER = "dist.all_reduce(x, group=self.dp_process_group)"
MP_GATHER = "dist.all_reduce(x, group=self.model_parallel_group)"


def _decision(make_pkg, reduce: str, gated: str):
    source = SOURCE.replace("REDUCE", reduce).replace("GATED", gated)
    report = audit("pkg.z:Z", root=make_pkg({"z.py": source}, ROOTS))
    return next(d for d in report.decisions if d.condition == "overflow.item()"), report


@pytest.mark.parametrize("gated", [MP_GATHER, DP_GATHER,
                                   MP_GATHER + "\n                " + DP_GATHER,
                                   "dist.barrier(group=self.pp_group)"],
                         ids=["mp", "dp", "both", "pp_inside_mp"])
def test_a_flag_reduced_over_two_groups_is_agreed_over_each(make_pkg, gated):
    d, _ = _decision(make_pkg, BOTH, gated)
    assert d.verdict is Verdict.UNIFORM, (
        "`overflow` all-reduced over the DP group and then over the model-parallel group "
        f"gates `{gated.split(chr(10))[0].strip()}`: every rank of either group holds the "
        f"same flag, so it must be UNIFORM; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("reduce, gated, why", [
    (OVER_DP, MP_GATHER, "reduced over the DP group only, gating a model-parallel collective"),
    (OVER_MP, DP_GATHER, "reduced over the model-parallel group only, gating a DP collective"),
    (BOTH, "dist.barrier()", "reduced over DP and model parallel, gating a world barrier"),
    (OVER_DP + "\n            if x.numel() > 4:\n                " + OVER_MP, MP_GATHER,
     "reduced over model parallel only when a condition holds, gating a model-parallel "
     "collective"),
], ids=["dp_only", "mp_only", "world", "mp_only_sometimes"])
def test_a_flag_not_reduced_over_the_gated_group_stays_rank_local(make_pkg, reduce, gated, why):
    d, _ = _decision(make_pkg, reduce, gated)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the flag is {why}: ranks of that group may hold different flags: must be "
        f"RANK-LOCAL; got {d.verdict.value}: {d.why}")


def test_model_parallel_names_the_mp_dimension(make_pkg):
    _, report = _decision(make_pkg, BOTH, MP_GATHER)
    dims = {s.group: s.dim for s in report.sites}
    assert dims.get("self.model_parallel_group") == "mp", (
        "`self.model_parallel_group` is the model-parallel group (tensor x pipeline): its "
        f"dimension must be mp, not the world's; got {dims}")
