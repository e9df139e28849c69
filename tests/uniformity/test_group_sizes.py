"""The size of a process group (``ep_group.size()``, ``self.tp_group.size()``,
``pg.size()``, ``get_ep_group().size()``) is the same on every rank: each group of one
dimension has as many ranks (docs/uniformity.md, default configuration rules). The audit
read ``ep_group.size()`` as a read of the group object's content, down to the rank id its
constructor was given: vLLM's EPLB check ``num_physical_experts == ep_size *
num_local_physical_experts`` was RANK-LOCAL through ``local_rank``. Twins: the group's rank
(``ep_group.rank()``) still differs within it, a tensor's ``size()`` still reads the
tensor."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch

    class Coordinator:
        def __init__(self, group_ranks, local_rank):
            self.local_rank = local_rank
            groups = [dist.new_group(ranks) for ranks in group_ranks]
            self.device_group = groups[local_rank // 2]  # the group holding this rank

    def get_ep_group():
        return Coordinator([[0, 1], [2, 3]], dist.get_rank())

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.coord = Coordinator([[0, 1], [2, 3]], dist.get_rank())

        def step(self):
            ep_group = get_ep_group().device_group
            pg = self.coord.device_group
            mine = torch.zeros(int(time.monotonic()))
            n = READ
            if n > 1:
                dist.barrier(group=self.tp_group)
"""


def _verdict(make_pkg, read: str):
    report = audit("pkg.s:S", root=make_pkg({"s.py": SOURCE.replace("READ", read)}, ROOTS))
    return next(d for d in report.decisions if d.condition == "n > 1")


@pytest.mark.parametrize("read", ["ep_group.size()", "self.coord.device_group.size()",
                                  "pg.size()", "get_ep_group().device_group.size()"])
def test_a_process_groups_size_is_the_same_on_every_rank(make_pkg, read):
    d = _verdict(make_pkg, read)
    assert d.verdict is Verdict.UNIFORM, (
        f"`n = {read}` is the size of a process group, the same on every rank of its "
        f"dimension (not the rank id the group object was built with): the decision must "
        f"be UNIFORM; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("read, why", [
    ("ep_group.rank()", "the rank's own id within its group"),
    ("self.coord.local_rank", "the rank id the coordinator was built with"),
    ("mine.size(0)", "the size of a tensor whose length the rank's clock decides"),
], ids=["group_rank", "coordinator_rank", "tensor_size"])
def test_a_groups_rank_and_a_tensors_size_still_differ(make_pkg, read, why):
    d = _verdict(make_pkg, read)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`n = {read}` is {why}: the decision must be RANK-LOCAL; got {d.verdict.value}: "
        f"{d.why}")
