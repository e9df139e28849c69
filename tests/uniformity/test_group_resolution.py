"""How a collective site's group is found (docs/uniformity.md "Collective sites" and the
``groups`` key under "Declaring a source"): the ``groups`` mapping of group expressions to
dimensions comes first, whatever a name suggests; a parameter, a field or a local holding
the group is resolved to every expression that can reach it (``attn_tp|attn_cp`` when they
differ), each named through that mapping."""

from __future__ import annotations

from deskcheck.uniformity import audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'


def _dims(report) -> list[str]:
    return sorted({s.dim for s in report.sites})


def test_a_local_bound_to_two_groups_runs_over_both(make_pkg):
    src = """
    class S:
        def step(self):
            group = self.attn_tp_group
            if self.server_args.cp:
                group = self.attn_cp_group
            dist.barrier(group=group)
"""
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    assert _dims(report) == ["attn_cp|attn_tp"], (
        "group is self.attn_tp_group or, when configured, self.attn_cp_group: the barrier "
        "runs over either, so its site must be attn_cp|attn_tp (every definition reaching "
        f"the local), not the last one alone; got {_dims(report)}")


def test_a_group_resolved_through_a_parameter_is_named_by_the_mapping(make_pkg):
    src = """
    class S:
        def _sync(self, group):
            dist.barrier(group=group)

        def step(self):
            self._sync(self.cpu_group)
"""
    mapped = ROOTS + 'groups = { "self.cpu_group" = "tp" }\n'
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, mapped))
    assert _dims(report) == ["tp"], (
        "the caller passes self.cpu_group, which the groups mapping names tp: the wrapper's "
        f"barrier must run over tp, not the world; got {_dims(report)}")


def test_the_configured_mapping_wins_over_what_a_name_suggests(make_pkg):
    src = """
    class S:
        def step(self):
            dist.barrier(group=self.tp_group)
"""
    mapped = ROOTS + 'groups = { "self.tp_group" = "attn_tp" }\n'
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, mapped))
    assert _dims(report) == ["attn_tp"], (
        "groups maps self.tp_group to attn_tp: the declaration must win over the tp its name "
        f"suggests; got {_dims(report)}")


def test_a_group_a_caller_holds_in_a_local_is_resolved_where_the_caller_binds_it(make_pkg):
    src = """
    class S:
        def _sync(self, group):
            dist.barrier(group=group)

        def step(self):
            grp = self.tp_cpu_group
            self._sync(grp)
"""
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    assert _dims(report) == ["tp"], (
        "the caller passes its local grp, bound to self.tp_cpu_group: the argument must be "
        "followed in the caller's context (where grp is defined), so the wrapper's barrier "
        f"runs over tp, not the world; got {_dims(report)}")
