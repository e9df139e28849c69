"""Collectives reached through a module alias are sites (docs/uniformity.md "Collective
sites"): torch's functional collectives (``import torch.distributed._functional_collectives
as funcol``; ``funcol.all_reduce(x, "sum", group=mesh)``, which returns the reduced value)
and ``torch.distributed`` under any name. Found on torchtitan (``distributed/utils.py``: every
loss and token-count reduction goes through ``funcol``): no site was seen, so the decisions
gating them were missing (11 -> 24 decisions on its trainer). Also: a name counting something
per rank (``num_tokens_per_dp_rank``) is no rank id."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

IMPORTS = {
    "funcol": "import torch.distributed._functional_collectives as funcol",
    "tdist": "import torch.distributed as tdist",
    "from_torch": "from torch import distributed as comm",
}
CALLS = {"funcol": "funcol.all_reduce(t, \"sum\", group=self.tp_group)",
         "tdist": "tdist.all_reduce(t, group=self.tp_group)",
         "from_torch": "comm.all_reduce(t, group=self.tp_group)"}

GATED = """
    IMPORT

    class S:
        def step(self):
            t = torch.ones(1)
            if time.monotonic() > 5:
                CALL
"""


@pytest.mark.parametrize("alias", sorted(IMPORTS))
def test_a_collective_through_a_module_alias_is_a_site(make_pkg, alias):
    src = GATED.replace("IMPORT", IMPORTS[alias]).replace("CALL", CALLS[alias])
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    calls = [s.call for s in report.sites]
    assert CALLS[alias].split("(")[0] in calls, (
        f"`{IMPORTS[alias]}` makes `{CALLS[alias].split('(')[0]}` torch.distributed's "
        f"all_reduce: it must be a collective site; got sites {calls}")
    d = [d for d in report.decisions if "monotonic" in d.condition][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"a clock decides whether {alias}'s all_reduce runs: RANK-LOCAL; got "
        f"{d.verdict.value}: {d.why}")


def test_a_module_of_our_own_under_that_name_is_not_torch(make_pkg):
    src = GATED.replace("IMPORT", "import pkg.comm as funcol").replace(
        "CALL", CALLS["funcol"])
    root = make_pkg({"s.py": src, "comm.py": "def all_reduce(t, op, group=None):\n"
                                             "    return t\n"}, ROOTS)
    report = audit("pkg.s:S", root=root)
    assert not report.sites, (
        "funcol is this package's own module here (pkg.comm), whose all_reduce is a plain "
        f"function: no collective site; got {[s.call for s in report.sites]}")


FUNCTIONAL_RESULT = """
    import torch.distributed._functional_collectives as funcol

    class S:
        def step(self):
            local = torch.tensor([time.monotonic()])
            total = funcol.all_reduce(local, "max", group=self.tp_group)
            if total.item() > 5:
                dist.barrier(group=self.tp_group)
"""


def test_what_a_functional_collective_returns_is_agreed(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": FUNCTIONAL_RESULT}, ROOTS))
    d = [d for d in report.decisions if "total" in d.condition][0]
    assert d.verdict is Verdict.UNIFORM, (
        "funcol.all_reduce returns the value reduced over the tp group: `total` is agreed, "
        f"so `if total.item() > 5` gating a tp barrier is UNIFORM; got {d.verdict.value}: "
        f"{d.why}")


@pytest.mark.parametrize("name, verdict", [("tokens_per_dp_rank", Verdict.UNIFORM),
                                           ("num_experts_per_rank", Verdict.UNIFORM),
                                           ("tp_rank", Verdict.RANK_LOCAL)])
def test_a_count_per_rank_is_no_rank_id(make_pkg, name, verdict):
    src = f"""
    class S:
        def __init__(self):
            self.{name} = 4

        def step(self):
            if self.{name} > 2:
                dist.barrier(group=self.tp_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = report.decisions[0]
    assert d.verdict is verdict, (
        f"self.{name}: " + ("a count per rank, the same on every rank (a constant here), "
                            "not a rank id" if verdict is Verdict.UNIFORM else
                            "a rank id: it differs between the ranks")
        + f"; the decision must be {verdict.value}; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("read", ["self.tp_group.rank", "self.tp_group.rank()", "rank"])
def test_a_groups_rank_is_a_rank_id(make_pkg, read):
    src = f"""
    class S:
        def step(self, rank=None):
            rank = self.tp_group.rank()
            if {read} == 0:
                dist.barrier(group=self.tp_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if "== 0" in d.condition][0]
    assert d.verdict is Verdict.RANK_LOCAL and "rank id" in d.why, (
        f"`{read}` is this rank's place in the tp group (a bare `rank` too): a rank id, so "
        f"the decision is RANK-LOCAL naming it; got {d.verdict.value}: {d.why}")
