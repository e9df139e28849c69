"""A collective whose group is a for-loop variable over a literal tuple of groups
(``for group in (self.attn_cp_group, self.attn_tp_group): all_reduce(t, group=group)``,
SGLang's ``unified_radix_cache.py:357``) runs over each group of the tuple, never over
WORLD: a PP rank id gating it is uniform over TP, and a loop over a tuple naming the PP
group keeps it rank-local."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.uniformity import Verdict, audit

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
"""


def _decisions(make_pkg, body: str) -> dict:
    code = textwrap.dedent("""
        import torch.distributed as dist

        class S:
            def step(self, t):
                if self.pp_rank == 0:
                    self._reduce(t)

            def _reduce(self, t):
        """) + textwrap.indent(textwrap.dedent(body), " " * 8)
    report = audit("pkg.s:S", root=make_pkg({"s.py": code}, CFG))
    return {d.condition: d for d in report.decisions}, report


def test_a_loop_over_a_tuple_of_groups_runs_the_collective_over_each_group(make_pkg):
    found, report = _decisions(make_pkg, """
        for group in (self.tp_group, self.attn_tp_group):
            dist.all_reduce(t, group=group)
    """)
    sites = {s.line: s for s in report.sites}
    dims = sorted({s.dim for s in sites.values()})
    assert dims == ["attn_tp|tp"], (
        f"the all_reduce over `group`, the loop variable over (self.tp_group, "
        f"self.attn_tp_group), should run over attn_tp|tp; its site's dimension is {dims} "
        f"(the loop variable was read as WORLD)")
    d = found["self.pp_rank == 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"pp_rank gates collectives over the TP and attention-TP groups only, where it is "
        f"the same on every rank; expected UNIFORM, got {d.verdict.value}: {d.why}")


def test_a_loop_over_a_tuple_holding_the_pp_group_keeps_pp_rank_rank_local(make_pkg):
    found, _report = _decisions(make_pkg, """
        for group in (self.tp_group, self.pp_group):
            dist.all_reduce(t, group=group)
    """)
    d = found["self.pp_rank == 0"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"one group of the loop's tuple is the PP group, over which pp_rank differs; "
        f"expected RANK-LOCAL, got {d.verdict.value}: {d.why}")


_NO_GROUP = [
    ("for group in self.tp_groups:\n    dist.all_reduce(t, group=group)",
     "a loop over a field holding groups (`self.tp_groups`) binds each of its elements, which "
     "the code does not name (the field's own name was read as the group)"),
    ("for group in (*self.tp_groups, self.tp_group):\n    dist.all_reduce(t, group=group)",
     "`*self.tp_groups` unpacks a field holding groups the code does not name: the loop "
     "variable may be any of them (the starred field was read as a group: set SP29 07)"),
    ("group = self.tp_group\nfor group in self.groups:\n    pass\n"
     "dist.all_reduce(t, group=group)",
     "after `for group in self.groups`, `group` is the TP group or any element of a field the "
     "code does not name: one reaching definition names no group (read as the groups the "
     "other definitions name)"),
]


@pytest.mark.parametrize("body, why", _NO_GROUP, ids=["field", "starred", "rebound"])
def test_a_loop_that_names_no_group_leaves_the_site_over_world(make_pkg, body, why):
    _found, report = _decisions(make_pkg, body)
    dims = sorted({s.dim for s in report.sites})
    assert dims == ["world"], f"{why}: the site should stay over WORLD, not {dims}"
