"""A collective whose group is a parameter of a wrapper (``all_reduce_flags(flags, group)``)
is judged over the group *each call* passes, on both sides of the judgement: the sites a
gated call reaches, and the value the wrapper returns agreed. Resolved over every caller
alike, two callers passing the TP and the PP group made every such value "agreed over
pp|tp" and every such collective a "pp|tp" site: a value agreed over TP gating a TP
collective was reported RANK-LOCAL (SGLang's ``decode.py:3048``)."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
"""

_WRAPPER = """
def reduce_flags(flags, group):
    t = list(flags)
    dist.all_reduce(t, group=group)
    return t

def reduce_polls(polls, group):
    return reduce_flags(polls, group)

class S:
    def step(self):
        ready = reduce_flags([time.time()], self.tp_group)
        if ready[0]:
            reduce_flags([1], self.tp_group)
        held = reduce_flags([time.time()], self.pp_group)
        if held[0]:
            reduce_flags([2], self.pp_group)
        mixed = reduce_flags([time.time()], self.pp_group)
        if mixed[0]:
            reduce_flags([3], self.tp_group)
        polled = reduce_polls([time.time()], self.tp_group)
        if polled[0]:
            reduce_polls([4], self.tp_group)
"""


def _by_condition(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": _WRAPPER}, CFG))
    return {d.condition: d for d in report.decisions}


def test_a_value_agreed_over_the_group_its_call_passes_gates_that_groups_collective(make_pkg):
    found = _by_condition(make_pkg)
    for condition, group in (("ready[0]", "TP"), ("held[0]", "PP"), ("polled[0]", "TP")):
        d = found[condition]
        assert d.verdict is Verdict.UNIFORM, (
            f"`{condition}` is reduced over the {group} group by its call and gates a "
            f"collective over the {group} group; expected UNIFORM, got {d.verdict.value}: "
            f"{d.why} (the wrapper's group parameter was resolved over every caller, not "
            f"at the call)")


def test_a_value_agreed_over_another_group_than_the_gated_collective_stays_rank_local(
        make_pkg):
    d = _by_condition(make_pkg)["mixed[0]"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`mixed[0]` is agreed over the PP group only and gates a TP collective: ranks of "
        f"one TP group can disagree; expected RANK-LOCAL, got {d.verdict.value} ({d.why})")
    assert "not over tp" in d.why, f"the finding should say which group it misses: {d.why}"


def test_the_sites_a_gated_call_reaches_carry_the_group_that_call_passes(make_pkg):
    found = _by_condition(make_pkg)
    dims = {c: sorted({s.dim for s in found[c].collectives}) for c in ("ready[0]", "held[0]")}
    assert dims == {"ready[0]": ["tp"], "held[0]": ["pp"]}, (
        f"each gated `reduce_flags(..., group)` call reaches a collective over the group it "
        f"passes; the decisions' sites had dimensions {dims}")
