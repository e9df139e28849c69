"""An input set over the leaf cap (96 sources per value) keeps first the sources that can fail
the decision on a path where the group has more than one rank (docs/uniformity.md "Verdicts":
TRIVIAL only when every rank-local input reaches the decision where its group has one rank).
Measured on SGLang: ranking by category alone dropped unresolved inputs behind a hundred
single-rank rank-local ones and reported 74 UNKNOWN decisions TRIVIAL."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'


def _source(pools: int) -> str:
    summed = " + ".join(f"self.p{i}.available_size()" for i in range(pools))
    return f"""
    class S:
        def step(self):
            v = self.unresolved.poll_state()
            if self.tp_size == 1:
                v = v + {summed}
            if v:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_an_input_on_a_many_rank_path_survives_the_cap(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": _source(120)}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v"]
    assert found and found[0].verdict is Verdict.UNKNOWN and "unresolved" in found[0].why, (
        "v reaches the barrier from self.unresolved.poll_state() on every path (an unresolved "
        "receiver: UNKNOWN) and from 120 pool sizes only where tp_size == 1: over the cap the "
        "unresolved input must be kept, so the decision is UNKNOWN, not TRIVIAL; got "
        f"{found[0].verdict if found else None} ({found[0].why if found else report.decisions})")


def test_under_the_cap_the_same_shape_is_unknown_too(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": _source(3)}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v"]
    assert found and found[0].verdict is Verdict.UNKNOWN, (
        "with three pools (under the cap) the decision is UNKNOWN; the cap must not change "
        f"it; got {found}")


TWO_PATHS = """
    class S:
        def _direct(self):
            if self.tp_size == 1:
                return time.monotonic()
            return 0

        def _deep(self):
            return self._deeper()

        def _deeper(self):
            return self._deepest()

        def _deepest(self):
            return time.monotonic()

        def step(self):
            v = self._direct() + self._deep()
            if v > 0:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_one_source_on_a_single_rank_and_a_many_rank_path_keeps_both(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": TWO_PATHS}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v > 0"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "time.monotonic reaches v where tp_size == 1 (a short path) and through _deep on "
        "every path (a longer one): the source is one, its paths two, and the unmarked one "
        "makes the decision RANK-LOCAL, not TRIVIAL; got "
        f"{found[0].verdict if found else None} ({found[0].why if found else report.decisions})")
