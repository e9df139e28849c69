"""A constant argument is followed into the callee only for a parameter the callee never
binds again (docs/uniformity.md "Decisions": constant arguments specialise the callee). verl's
``gather_outputs_and_unpad(x, ..., group=None)`` starts with ``group =
get_ulysses_sequence_parallel_group() if group is None else group; if group is None: return
x`` before its all-gather: the default ``None`` was taken for the rebound name too, so the
early return looked certain and the gather (and the clock gating it) vanished. Twin: a flag
the callee only reads (``def gather(x, skip=True): if skip: return``) is still followed."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

REBOUND = """
    _GROUP = None

    def set_group(g):
        global _GROUP
        _GROUP = g

    def get_group():
        return _GROUP

    def gather(x, group=None):
        group = get_group() if group is None else group
        if group is None:
            return x
        dist.barrier(group=group)
        return x

    class W:
        def step(self, x):
            if time.monotonic() > 3:
                gather(x)
"""

READ_ONLY = """
    def gather(x, group, skip=True):
        if skip:
            return x
        dist.barrier(group=group)
        return x

    class W:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self, x):
            if time.monotonic() > 3:
                gather(x, self.tp_group)
"""


def test_a_rebound_parameter_is_not_its_default_through_the_body(make_pkg):
    report = audit("pkg.m:W", root=make_pkg({"m.py": REBOUND}, ROOTS))
    assert report.sites, (
        "`group = get_group() if group is None else group` binds the parameter again: the "
        "default None says nothing of it after that line, so the barrier after `if group is "
        "None: return x` is reachable and must be a collective site; none was found")
    d = next((d for d in report.decisions if d.condition == "time.monotonic() > 3"), None)
    assert d is not None and d.verdict is Verdict.RANK_LOCAL, (
        "this rank's clock decides whether it calls the gather: `if time.monotonic() > 3` "
        f"must be a RANK-LOCAL decision; got {d and (d.verdict.value, d.why)}")


def test_a_parameter_only_read_is_still_specialised(make_pkg):
    report = audit("pkg.m:W", root=make_pkg({"m.py": READ_ONLY}, ROOTS))
    assert not report.decisions, (
        "`gather(x, group)` passes the default skip=True, which the callee only reads: the "
        "barrier after `if skip: return x` never runs from this call, so nothing gates a "
        f"collective: {[(d.condition, d.verdict.value) for d in report.decisions]}")


@pytest.mark.parametrize("rebind", ["n += int(time.monotonic())",
                                    "for n in range(int(time.monotonic())):\n            pass",
                                    "(n := int(time.monotonic()))"],
                         ids=["augmented", "loop_target", "walrus"])
def test_every_kind_of_rebinding_ends_the_constant(make_pkg, rebind):
    source = f"""
    def helper(group, n=0):
        {rebind}
        if n > 0:
            dist.barrier(group=group)

    class W:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self):
            helper(self.tp_group)
"""
    report = audit("pkg.m:W", root=make_pkg({"m.py": source}, ROOTS))
    d = next((d for d in report.decisions if d.condition == "n > 0"), None)
    assert d is not None and d.verdict is Verdict.RANK_LOCAL, (
        f"`{rebind.splitlines()[0]}` binds `n` again after the default 0: `if n > 0` reads "
        f"the clock and must be a RANK-LOCAL decision; got {d and (d.verdict.value, d.why)}")
