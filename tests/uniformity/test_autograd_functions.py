"""``Cls.apply(...)`` on a ``torch.autograd.Function`` of ours runs ``Cls.forward(ctx,
...)`` (docs/uniformity.md "Collective sites"): Megatron's ``_ReduceFromModelParallelRegion
.apply(x)``, verl's ``Gather.apply(group, x)`` hold their all-reduce or all-gather in
``forward``. The walk did not enter them (``apply`` is torch's), so the collective was
unseen and the clock gating it was no decision (verl's Ulysses gather). The call's
arguments bind ``forward``'s parameters after ``ctx``. Twins: a configured gate holds; a
class that is not an autograd Function gains no ``apply``."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch
    from torch.autograd import Function

    class Gather(BASE):
        @staticmethod
        def forward(ctx, group, x):
            ctx.group = group
            out = torch.empty(x.shape[0] * 2)
            dist.all_gather_into_tensor(out, x, group=group)
            return out

        @staticmethod
        def backward(ctx, g):
            return None, g

    class Worker:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.every = 4
            self.last = time.monotonic()

        def step(self, x):
            if GATE:
                x = Gather.apply(self.tp_group, x)
            return x
"""


def _audit(make_pkg, gate: str, base: str = "torch.autograd.Function"):
    source = SOURCE.replace("GATE", gate).replace("BASE", base)
    return audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))


@pytest.mark.parametrize("base", ["torch.autograd.Function", "Function"],
                         ids=["dotted", "imported"])
def test_apply_runs_forward_and_its_collective(make_pkg, base):
    gate = "time.monotonic() - self.last > 5.0"
    report = _audit(make_pkg, gate, base)
    sites = [(s.function, s.dim) for s in report.sites]
    assert ("Gather.forward", "tp") in sites, (
        "`Gather.apply(self.tp_group, x)` runs Gather.forward(ctx, group, x), whose "
        "all_gather runs over the group the caller passes (self.tp_group, tp): the site must "
        f"be found with that group; sites: {sites}")
    d = next((d for d in report.decisions if d.condition == gate), None)
    assert d is not None and d.verdict is Verdict.RANK_LOCAL, (
        f"this rank's clock decides whether it enters the gather: `if {gate}` must be a "
        f"RANK-LOCAL decision; got {d and (d.verdict.value, d.why)}")


def test_a_configured_gate_around_apply_holds(make_pkg):
    report = _audit(make_pkg, "self.every > 2")
    d = next((d for d in report.decisions if d.condition == "self.every > 2"), None)
    assert d is not None and d.verdict is Verdict.UNIFORM, (
        "`if self.every > 2: Gather.apply(...)` gates the gather by configuration: must be "
        f"a UNIFORM decision; got {d and (d.verdict.value, d.why)}")


def test_a_class_that_is_no_autograd_function_has_no_apply(make_pkg):
    report = _audit(make_pkg, "time.monotonic() - self.last > 5.0", base="object")
    assert not report.sites, (
        "Gather is no torch.autograd.Function here: `Gather.apply` is no call of its forward, "
        f"so no collective may be found through it: {[s.call for s in report.sites]}")


def test_a_class_named_function_from_elsewhere_has_no_apply(make_pkg):
    source = SOURCE.replace("from torch.autograd import Function", "from mylib import Function")
    source = source.replace("GATE", "time.monotonic() - self.last > 5.0").replace(
        "BASE", "Function")
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    assert not report.sites, (
        "Gather derives from mylib's Function, not torch.autograd.Function: its `apply` is "
        f"not torch's, so no collective may be found through it: {[s.call for s in report.sites]}")
