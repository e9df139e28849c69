"""A collective whose group is a parameter of a wrapper (``all_reduce_flags(flags, group)``)
is judged over the group *each call* passes, on both sides of the judgement: the sites a
gated call reaches, and the value the wrapper returns agreed. Resolved over every caller
alike, two callers passing the TP and the PP group made every such value "agreed over
pp|tp" and every such collective a "pp|tp" site: a value agreed over TP gating a TP
collective was reported RANK-LOCAL (SGLang's ``decode.py:3048``)."""

from __future__ import annotations

import pytest

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


_DEFAULTS = """
TP_GROUP = None

def reduce_flags(flags, group=None):
    t = list(flags)
    dist.all_reduce(t, group=group)
    return t

def reduce_tp(flags, group=TP_GROUP):
    t = list(flags)
    dist.all_reduce(t, group=group)
    return t

class S:
    def step(self):
        ready = reduce_flags([time.time()], self.tp_group)
        if ready[0]:
            reduce_flags([1])
        held = reduce_tp([time.time()], self.tp_group)
        if held[0]:
            reduce_tp([2])
"""


def test_a_call_passing_no_group_runs_over_the_wrappers_default_group(make_pkg):
    """A gated call that leaves the group parameter out passes the wrapper's default: over
    WORLD for `group=None`, over TP for `group=TP_GROUP` (like the value side, which binds
    the default of a call that passes none)."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": _DEFAULTS}, CFG))
    found = {d.condition: d for d in report.decisions}
    world, tp = found["ready[0]"], found["held[0]"]
    assert world.verdict is Verdict.RANK_LOCAL, (
        f"`ready[0]` is agreed over TP and gates `reduce_flags([1])`, whose default group=None "
        f"is WORLD: ranks of other TP groups can disagree; expected RANK-LOCAL, got "
        f"{world.verdict.value} ({world.why})")
    dims = sorted({s.dim for s in tp.collectives})
    assert tp.verdict is Verdict.UNIFORM and dims == ["tp"], (
        f"`held[0]` is agreed over TP and gates `reduce_tp([2])`, whose default group is "
        f"TP_GROUP: expected UNIFORM over a tp site, got {tp.verdict.value} over {dims} "
        f"({tp.why}; the call's missing group argument was read as the parameter's name, not "
        f"its default)")


_BOUND = """
def reduce_flags(flags, group):
    t = list(flags)
    dist.all_reduce(t, group=group)
    return t

def reduce_polls(polls, pg):
    return reduce_flags(polls, pg)

def reduce_tree(flags, group, depth):
    if depth > 0:
        return reduce_tree(flags, group, depth - 1)
    return reduce_flags(flags, group)

def reduce_both(flags, first, second):
    reduce_flags(flags, first)
    return reduce_flags(flags, second)

class S:
    def __init__(self):
        self.sync_group = self.tp_group

    def step(self):
        aliased = reduce_flags([time.time()], self.tp_group)
        if aliased[0]:
            reduce_flags([1], self.sync_group)
        polled = reduce_polls([time.time()], self.tp_group)
        if polled[0]:
            reduce_polls([2], self.tp_group)
        deep = reduce_tree([time.time()], self.tp_group, 2)
        if deep[0]:
            reduce_tree([3], self.tp_group, 2)
        reduce_polls([6], self.pp_group)
        both = reduce_flags([time.time()], self.tp_group)
        if both[0]:
            reduce_both([5], self.tp_group, self.pp_group)
        kw = {"flags": [time.time()], "group": self.pp_group}
        spread = reduce_flags(**kw)
        if spread[0]:
            dist.barrier(group=self.tp_group)
        self._sync(self.tp_group)
        self._sync(self.pp_group)
        self._local(self.tp_group)

    def _sync(self, group):
        agreed = reduce_flags([time.time()], self.pp_group)
        if agreed[0]:
            reduce_flags([4], group)

    def _local(self, group):
        t = torch.tensor([time.time()])
        dist.all_reduce(t, group=group)
        if t.item() > 0:
            dist.barrier(group=group)
"""


def _bound(make_pkg) -> dict:
    report = audit("pkg.s:S", root=make_pkg({"s.py": _BOUND}, CFG))
    return {d.condition: d for d in report.decisions}


def test_the_group_a_call_passes_is_read_in_the_callers_context(make_pkg):
    """`reduce_flags([1], self.sync_group)`: the argument is the caller's field, written
    `self.sync_group = self.tp_group` in its class: a TP collective."""
    d = _bound(make_pkg)["aliased[0]"]
    dims = sorted({s.dim for s in d.collectives})
    assert d.verdict is Verdict.UNIFORM and dims == ["tp"], (
        f"`aliased[0]` is agreed over TP and gates `reduce_flags([1], self.sync_group)`, a "
        f"field the caller's class sets to its TP group: expected UNIFORM over a tp site, got "
        f"{d.verdict.value} over {dims} ({d.why}; the argument was read in the wrapper, "
        f"not in the caller)")


def test_a_group_passed_on_under_another_parameter_name_is_followed(make_pkg):
    """`reduce_polls(polls, pg)` passes `pg` on as `reduce_flags`'s `group` (and another
    call passes it the PP group: the value this call returns is agreed over TP alone)."""
    d = _bound(make_pkg)["polled[0]"]
    dims = sorted({s.dim for s in d.collectives})
    assert d.verdict is Verdict.UNIFORM and dims == ["tp"], (
        f"`polled[0]` is agreed over TP and gates `reduce_polls([2], self.tp_group)`, which "
        f"passes its `pg` on as `reduce_flags`'s `group`: expected UNIFORM over a tp site, got "
        f"{d.verdict.value} over {dims} ({d.why}; the wrapper's parameter was looked up "
        f"under the inner function's name)")


def test_a_recursive_wrapper_passing_its_group_on_is_bound_at_the_call(make_pkg):
    d = _bound(make_pkg)["deep[0]"]
    dims = sorted({s.dim for s in d.collectives})
    assert d.verdict is Verdict.UNIFORM and dims == ["tp"], (
        f"`deep[0]` is agreed over TP and gates `reduce_tree([3], self.tp_group, 2)`, which "
        f"recurses with the same group down to `reduce_flags`: expected UNIFORM over a tp site, "
        f"got {d.verdict.value} over {dims} ({d.why})")


def test_a_call_passing_a_parameter_bound_to_two_groups_runs_over_both(make_pkg):
    """`_sync(self, group)` is called with TP and with PP: its `reduce_flags([4], group)`
    runs over pp|tp, so a value agreed over PP alone does not make the decision uniform."""
    d = _bound(make_pkg)["agreed[0]"]
    dims = sorted({s.dim for s in d.collectives})
    assert d.verdict is Verdict.RANK_LOCAL and dims == ["pp|tp"], (
        f"`agreed[0]` is agreed over PP and gates a collective over `group`, which `_sync`'s "
        f"callers bind to the TP and the PP group: expected RANK-LOCAL over a pp|tp site, got "
        f"{d.verdict.value} over {dims} ({d.why}; one of the groups was dropped)")


def test_a_local_reduced_over_a_parameter_group_outside_a_summary_is_agreed(make_pkg):
    """In `_local(self, group)` (reached as a method, not summarised for a return value) the
    in-place `all_reduce(t, group=group)` is agreed over the groups its callers pass."""
    d = _bound(make_pkg)["t.item() > 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"`t` is reduced in place over `group` (TP at the only call) and gates a barrier over "
        f"the same group: expected UNIFORM, got {d.verdict.value} ({d.why}; outside a call-site "
        f"summary the group must be resolved, not left a parameter marker)")


_JUDGED_FIRST = """
def reduce_flags(flags, group):
    t = list(flags)
    dist.all_reduce(t, group=group)
    if t[0]:
        dist.barrier(group=group)
    return t

class S:
    def step(self):
        reduce_flags([0], self.pp_group)
        self._later()

    def _later(self):
        ready = reduce_flags([time.time()], self.tp_group)
        if ready[0]:
            reduce_flags([1], self.tp_group)
"""


def test_a_wrapper_judged_for_its_own_decision_first_still_binds_the_group_at_each_call(
        make_pkg):
    """`reduce_flags` has a decision of its own, judged (over every caller's group) before
    `_later`'s: the in-place reductions found for that context must not stand for the call's
    summary, where `group` is the group this call passes."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": _JUDGED_FIRST}, CFG))
    d = {d.condition: d for d in report.decisions}["ready[0]"]
    assert d.verdict is Verdict.UNIFORM, (
        f"`ready[0]` is reduced over TP by `reduce_flags(..., self.tp_group)` and gates a TP "
        f"collective: expected UNIFORM, got {d.verdict.value} ({d.why}; the summary reused "
        f"the wrapper's own context's reductions, resolved over every caller)")


def test_a_wrapper_passing_two_group_parameters_to_one_site_runs_over_both(make_pkg):
    """`reduce_both(flags, first, second)` reaches `reduce_flags`'s all_reduce through both
    parameters: the call passing TP and PP reaches a pp|tp site."""
    d = _bound(make_pkg)["both[0]"]
    dims = sorted({s.dim for s in d.collectives})
    assert d.verdict is Verdict.RANK_LOCAL and dims == ["pp|tp"], (
        f"`both[0]` is agreed over TP and gates `reduce_both([5], self.tp_group, "
        f"self.pp_group)`, whose all_reduce runs over TP and over PP: expected RANK-LOCAL over "
        f"a pp|tp site, got {d.verdict.value} over {dims} ({d.why}; one parameter's group "
        f"replaced the other's)")


def test_a_call_whose_group_argument_cannot_be_read_is_agreed_over_every_callers_group(
        make_pkg):
    """`reduce_flags(**kw)`: the group is not readable at the call and has no default, so the
    value is agreed over what every caller passes (pp|tp), not over WORLD (which would
    cover any collective)."""
    d = _bound(make_pkg)["spread[0]"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`spread[0]` comes from `reduce_flags(**kw)`, agreed over the groups reduce_flags' "
        f"callers pass (pp|tp), and gates a TP barrier: expected RANK-LOCAL, got "
        f"{d.verdict.value} ({d.why}; an unreadable group argument was taken for WORLD)")


def test_a_bound_sites_group_shows_the_parameter_and_what_this_call_passes(make_pkg):
    """The site's group as reported: `<the parameter> = <what this call passes>`, once."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": _DEFAULTS}, CFG))
    d = {d.condition: d for d in report.decisions}["held[0]"]
    groups = sorted({s.group for s in d.collectives})
    assert groups == ["group = TP_GROUP"], (
        f"`reduce_tp([2])` reaches `dist.all_reduce(t, group=group)` with the default "
        f"TP_GROUP: its site's group should read 'group = TP_GROUP', it read {groups}")


_SAME_PARAM = """
def reduce_then(flags, group, other):
    t = list(flags)
    dist.all_reduce(t, group=group)
    if t[0]:
        dist.barrier(group={gated})

class S:
    def step(self):
        reduce_then([time.time()], self.tp_group, self.pp_group)
        reduce_then([time.time()], self.pp_group, self.tp_group)
"""


_PAIRED = {
    "group": (Verdict.UNIFORM, "`t` is all-reduced over the wrapper's `group` and gates a "
              "barrier over that same `group`: whichever group a caller passes, both are it"),
    "other": (Verdict.RANK_LOCAL, "`t` is reduced over `group` and gates a barrier over "
              "`other`, and the callers pass (tp, pp) and (pp, tp): agreed over one group, "
              "judged over the other"),
}


@pytest.mark.parametrize("gated", sorted(_PAIRED))
def test_a_value_reduced_over_a_group_parameter_is_agreed_for_that_parameter_only(
        make_pkg, gated):
    expected, why = _PAIRED[gated]
    root = make_pkg({"s.py": _SAME_PARAM.format(gated=gated)}, CFG)
    (d,) = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "t[0]"]
    assert d.verdict is expected, (
        f"{why}; expected {expected.value}, got {d.verdict.value}: {d.why}")


def test_a_local_reduced_over_a_parameter_group_gating_a_fixed_group_is_resolved(make_pkg):
    """Outside a call-site summary, a group held in a parameter is resolved over the callers
    (here TP alone), not left a marker: the value gates a barrier over `self.tp_group`, a
    group the pairing of one parameter's two uses does not cover."""
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                self._local(self.tp_group)

            def _local(self, group):
                t = [time.time()]
                dist.all_reduce(t, group=group)
                if t[0] > 0:
                    dist.barrier(group=self.tp_group)
    """}, CFG)
    (d,) = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "t[0] > 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"`t` is reduced over `group`, which the only caller binds to TP, and gates a TP "
        f"barrier: expected UNIFORM, got {d.verdict.value} ({d.why}; outside a call-site "
        f"summary the group must be resolved, not left a parameter marker)")
