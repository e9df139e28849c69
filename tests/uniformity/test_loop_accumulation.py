"""A value a loop builds up (``n += 1``, ``xs += [x]``, ``xs = xs + [x]``) depends on how
often the loop runs (docs/uniformity.md "Inputs": the conditions and loops each definition
sits under). Found reading vLLM's EPLB (``rebalance_execute.py``: ``p2p_ops += [P2POp(...)
for ...]`` inside loops over this rank's experts): where two definitions of a local reach a
read, only ``if``/``while``/exit conditions were read, so a counter bumped under a loop over
a clock-sized range was judged UNIFORM (a silent miss; a field's writes already read their
loops). Each shape has a twin whose loop runs a configured number of times."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

LOOP = """
    class S:
        def step(self):
            n = 0
            xs = []
            for i in range(COUNT):
                BODY
            if READ:
                dist.barrier(group=self.tp_cpu_group)
"""

BODIES = {"a counter": ("n += 1", "n"), "a list extended by +=": ("xs += [i]", "xs"),
          "a list rebuilt": ("xs = xs + [i]", "xs"), "a sum rebuilt": ("n = n + 1", "n")}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(BODIES), ids=_ids(BODIES))
@pytest.mark.parametrize("count, verdict", [("int(time.monotonic())", Verdict.RANK_LOCAL),
                                            ("self.server_args.n", Verdict.UNIFORM)],
                         ids=["clock", "configured"])
def test_what_a_loop_builds_up_depends_on_its_trip_count(make_pkg, shape, count, verdict):
    body, read = BODIES[shape]
    src = LOOP.replace("COUNT", count).replace("BODY", body).replace("READ", read)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"{shape} (`{body}`) under `for i in range({count})`: how often the loop runs decides "
        f"`{read}`, so `if {read}` must be {verdict.value}; got {d.verdict.value}: {d.why}")


BREAK = """
    class S:
        def step(self):
            n = 0
            for i in range(self.server_args.n):
                if STOP:
                    break
                n += 1
            if n:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("stop, verdict", [("time.monotonic() > 5", Verdict.RANK_LOCAL),
                                           ("i > self.server_args.cap", Verdict.UNIFORM)],
                         ids=["clock", "configured"])
def test_a_break_before_the_update_decides_the_count(make_pkg, stop, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": BREAK.replace("STOP", stop)}, ROOTS))
    d = [d for d in report.decisions if d.condition == "n"][0]
    assert d.verdict is verdict, (
        f"`if {stop}: break` stops the loop before `n += 1`, so it decides n: `if n` must be "
        f"{verdict.value}; got {d.verdict.value}: {d.why}")


RETURN_IN_LOOP = """
    class S:
        def _any(self):
            for i in range(COUNT):
                return True
            return False

        def step(self):
            if self._any():
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("count, verdict", [("int(time.monotonic())", Verdict.RANK_LOCAL),
                                            ("self.server_args.n", Verdict.UNIFORM)],
                         ids=["clock", "configured"])
def test_a_return_inside_a_loop_depends_on_whether_the_loop_runs(make_pkg, count, verdict):
    src = RETURN_IN_LOOP.replace("COUNT", count)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if "_any" in d.condition][0]
    assert d.verdict is verdict, (
        f"_any() returns True from inside `for i in range({count})` only when the loop runs, "
        f"so which return is taken follows the range: {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")
