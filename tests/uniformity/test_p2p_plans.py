"""Point-to-point transfers over the default group name their peers by global rank
(``P2POp(isend, t, get_global_rank(ep_group, r))``, ``batch_isend_irecv(ops)``): a decision
that gates only such transfers is judged over the group its plan was agreed over (docs/
uniformity.md "Verdicts"). Found on vLLM's EPLB (``rebalance_execute.py``: ``if p2p_ops:
batch_isend_irecv(p2p_ops)``, the ops built from the expert load all-reduced over the EP
group): judged over the world, the EP-agreed plan read as "agreed over ep, not over world"
(two false RANK-LOCAL reports). Twins: a plan sized by a clock, a transfer over an explicit
group, a decision that also gates a world collective."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

PLAN = """
    class S:
        def step(self):
            load = torch.zeros(4)
            dist.all_reduce(load, group=self.ep_group)
            ops = []
            for peer in range(SIZE):
                ops.append(dist.P2POp(dist.isend, load, peer))
            if ops:
                GATED
"""

CASES = {
    "an EP-agreed plan, default-group batch": ("int(load.sum())",
                                               "dist.batch_isend_irecv(ops)", Verdict.UNIFORM),
    "a clock-sized plan": ("int(time.monotonic())", "dist.batch_isend_irecv(ops)",
                           Verdict.RANK_LOCAL),
    "a transfer over an explicit pp group": ("int(load.sum())",
                                             "dist.send(load, dst=1, group=self.pp_group)",
                                             Verdict.RANK_LOCAL),
    "a world collective gated too": ("int(load.sum())",
                                     "dist.batch_isend_irecv(ops)\n"
                                     "                dist.barrier()", Verdict.RANK_LOCAL),
}


@pytest.mark.parametrize("shape", sorted(CASES),
                         ids=["a_clock_sized_plan", "a_transfer_over_an_explicit_pp_group",
                              "a_world_collective_gated_too", "an_EP_agreed_plan"])
def test_a_default_group_transfer_is_judged_over_its_plans_group(make_pkg, shape):
    size, gated, verdict = CASES[shape]
    src = PLAN.replace("SIZE", size).replace("GATED", gated)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "ops"][0]
    assert d.verdict is verdict, (
        f"{shape}: `if ops` gates {gated.split()[0]}; "
        + ("the ops are planned from load, all-reduced over the EP group, and sent over the "
           "default group by global rank: its peers are taken to be in the EP group, so the "
           "decision is UNIFORM"
           if verdict is Verdict.UNIFORM else
           "it must stay RANK-LOCAL (a clock sizes the plan, or the transfer names a group "
           "the plan was not agreed over, or a world collective is gated too)")
        + f"; got {d.verdict.value}: {d.why}")
    if verdict is Verdict.UNIFORM:
        assert "peers are taken to be in the ep group" in d.why, (
            "the verdict must say the assumption it rests on (the peers of a default-group "
            f"transfer taken to be in the group its plan was agreed over); got: {d.why}")
