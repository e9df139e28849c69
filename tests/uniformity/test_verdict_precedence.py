"""A decision's verdict from its input classes (docs/uniformity.md verdict table): an input
the static model could not resolve keeps the decision UNKNOWN even when another input comes
through a declared source; SANCTIONED needs every other input agreed or config."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

SRC = {"s.py": """
    class S:
        def __init__(self, thing):
            self.mystery = thing
        def step(self):
            self.budget = self._all_reduce_min([self.pool.available_size()])[0]
            if self.budget > 0 and self.mystery.value():
                dist.barrier(group=self.tp_group)
            if self.budget > 0 and self.tp_size > 1:
                dist.barrier(group=self.tp_group)
        def _all_reduce_min(self, vals):
            return vals
"""}

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._all_reduce_min"]

[[tool.deskcheck.uniformity.agreed]]
field = "self.budget"
collective = "self._all_reduce_min"
"""


def test_a_sanctioned_input_beside_an_unresolved_one_is_unknown(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(SRC, CFG))
    by_cond = {d.condition: d for d in report.decisions}
    d = by_cond["self.budget > 0 and self.mystery.value()"]
    assert d.verdict is Verdict.UNKNOWN, (
        "docs/uniformity.md: SANCTIONED means an input comes through a declared source, "
        "UNKNOWN a hop the static model could not resolve; a declared self.budget beside the "
        "unresolved self.mystery must not hide that hop (it would pass --strict): the audit "
        f"said {d.verdict} ({d.why})")
    assert report.exit_code(strict=True) == 1, (
        "an UNKNOWN decision must fail the audit under --strict; it exited 0")
    plain = by_cond["self.budget > 0 and self.tp_size > 1"]
    assert plain.verdict is Verdict.SANCTIONED, (
        "a declared source beside configuration is SANCTIONED: the audit said "
        f"{plain.verdict} ({plain.why})")
