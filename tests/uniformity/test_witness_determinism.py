"""The audit's answer is the same on every run: a witness through a cycle group never
depends on the memory addresses of the syntax tree (a set of keys holding ``id()`` values
was walked in its own order, so of two equally short paths either could be shown)."""

from __future__ import annotations

import gc

from deskcheck.static import clear_cache
from deskcheck.uniformity import audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"
# self.a is written when self.d holds, self.d when self.b or self.c holds, and each of those
# when self.a holds and when this rank's clock says so: the clock reaches self.a through b
# and through c, two paths of two hops each
SOURCE = """
    class S:
        def step(self):
            self.update()
            if self.a:
                dist.barrier(group=self.tp_cpu_group)

        def update(self):
            if self.d:
                self.a = 1
            if self.b:
                self.d = 1
            if self.c:
                self.d = 2
            if self.a:
                self.b = 1
            if self.a:
                self.c = 1
            if time.time() > 1:
                self.b = 2
            if time.time() > 2:
                self.c = 2
"""


def _answer(root) -> list:
    report = audit("pkg.s:S", root=root)
    return [(d.line, d.verdict.value, [(i.name, i.witness) for i in d.inputs])
            for d in report.decisions]


def test_two_audits_of_one_tree_give_the_same_witnesses(make_pkg):
    root = make_pkg({"s.py": SOURCE}, CFG)
    first = _answer(root)
    assert any("time.time" in str(d) for d in first), f"the fixture lost its clock: {first}"
    keep = []
    for run in range(12):
        clear_cache()  # new trees at new addresses
        keep.append([object() for _ in range(run * 37)])  # shift where the next ones land
        gc.collect()
        again = _answer(root)
        assert again == first, (
            f"run {run + 2} of one unchanged tree gave other witnesses:\n{again}\n"
            f"first run:\n{first}")
