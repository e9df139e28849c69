"""Every condition an early exit sits under decides whether the collective after it runs,
however deep (docs/uniformity.md "Decisions": "the conditions that exit sits under"). An
``elif`` chain nests one level per test, so verl's checkpoint manager
(``if self.rank == 0:`` around ``if ...: elif ...: elif ...: else: raise
NotImplementedError``, then ``dist.barrier()``) lost the rank test once the chain had three
tests: only two outer conditions of an exit were kept. Rank 0 raising leaves the others in
the barrier. Twins: the same chain under a configuration test holds."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    class Worker:
        def __init__(self, arch, strict):
            self.rank = dist.get_rank()
            self.arch = arch
            self.strict = strict

        def step(self):
            if OUTER:
                CHAIN
                else:
                    raise NotImplementedError(self.arch)
            dist.barrier()
"""


def _chain(tests: int) -> str:
    lines = []
    for i in range(tests):
        lines.append(f"{'if' if i == 0 else 'elif'} 'arch{i}' in self.arch:")
        lines.append(f"    kind = {i}")
    return "\n                ".join(lines)


@pytest.mark.parametrize("tests", [1, 2, 3, 6], ids=["one", "two", "three", "six"])
def test_the_rank_test_around_a_long_elif_chain_decides_the_exit(make_pkg, tests):
    source = SOURCE.replace("OUTER", "self.rank == 0").replace("CHAIN", _chain(tests))
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == "self.rank == 0"]
    assert found, (
        f"`if self.rank == 0:` holds an elif chain of {tests} test(s) whose else raises before "
        f"`dist.barrier()`: the rank test decides whether rank 0 reaches the barrier, but it "
        f"is no decision: {[(d.condition, d.verdict.value) for d in report.decisions]}")
    assert found[0].verdict is Verdict.RANK_LOCAL, (
        f"rank 0 alone may raise before the barrier: must be RANK-LOCAL; got "
        f"{found[0].verdict.value}: {found[0].why}")


def test_the_same_chain_under_configuration_holds(make_pkg):
    source = SOURCE.replace("OUTER", "self.strict").replace("CHAIN", _chain(3))
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    bad = [(d.condition, d.verdict.value) for d in report.decisions
           if d.verdict is Verdict.RANK_LOCAL]
    assert not bad, f"every test of the chain and around it is configuration: {bad}"
    assert any(d.condition == "self.strict" for d in report.decisions), (
        "`if self.strict:` decides whether the raise can leave before the barrier: it must be "
        f"a decision: {[d.condition for d in report.decisions]}")
