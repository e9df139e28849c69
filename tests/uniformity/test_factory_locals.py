"""A local holding what a factory returns (``batch = Batch.init_new(...)``, a classmethod
ending ``return cls(...)``; ``w = make_worker(...)``, a function returning ``Worker(...)``)
holds an object of that class: the methods called on it are entered (docs/uniformity.md
"Input sets": components by their constructor calls and factories). SGLang builds every
batch with ``ScheduleBatch.init_new(...)``: ``new_batch.prepare_for_extend()`` and 21 other
calls on such locals were listed as not entered. Twins: a factory returning one of two
classes, and a call whose callee is not one function, name no class and are listed."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    class Batch:
        def __init__(self, tp_group, limit):
            self.tp_group = tp_group
            self.limit = limit

        @classmethod
        def init_new(cls, tp_group, limit):
            return cls(tp_group, limit)

        @staticmethod
        def either(tp_group, limit, flag):
            if flag:
                return Batch(tp_group, limit)
            return Other(tp_group)

        def prepare(self):
            if time.monotonic() > self.limit:
                dist.barrier(group=self.tp_group)


    class Other:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def prepare(self):
            dist.barrier(group=self.tp_group)


    def make_batch(tp_group, limit):
        batch = Batch(tp_group, limit)
        return batch


    def make_either(tp_group, limit, flag):
        made = Batch(tp_group, limit)
        if flag:
            made = Other(tp_group)
        return made


    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self):
            batch = BUILD
            batch.prepare()
"""


def _audit(make_pkg, build: str):
    return audit("pkg.s:S", root=make_pkg({"s.py": SOURCE.replace("BUILD", build)}, ROOTS))


@pytest.mark.parametrize("build", [
    "Batch.init_new(self.tp_group, 5)",
    "make_batch(self.tp_group, 5)",
], ids=["classmethod_returning_cls", "function_returning_a_local"])
def test_a_local_holding_a_factorys_result_enters_its_class_methods(make_pkg, build):
    report = _audit(make_pkg, build)
    found = [d for d in report.decisions if d.function.endswith("Batch.prepare")]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        f"`batch = {build}` holds a Batch (the factory returns that one class): "
        f"`batch.prepare()` must be entered and its clock before the TP barrier reported "
        f"RANK-LOCAL; got {[(d.function, d.verdict.value) for d in report.decisions]}, "
        f"calls not entered {[u.call for u in report.not_entered]}")
    assert not any(u.call == "batch.prepare" for u in report.not_entered), (
        f"`batch.prepare()` was entered: it must not also be listed as not entered "
        f"({[u.call for u in report.not_entered]})")


@pytest.mark.parametrize("build, why", [
    ("Batch.either(self.tp_group, 5, True)", "returns a Batch or an Other"),
    ("load_plugin('Batch')(self.tp_group, 5)", "calls what a plugin loader returns"),
    ("make_either(self.tp_group, 5, True)",
     "returns a local bound to a Batch, then to an Other"),
], ids=["two_classes", "no_one_callee", "returned_local_bound_twice"])
def test_a_local_of_no_one_factory_class_is_listed_not_entered(make_pkg, build, why):
    report = _audit(make_pkg, build)
    entered = [d.function for d in report.decisions if d.function.endswith(".prepare")]
    assert not entered, (
        f"`batch = {build}` {why}: no one class is known, so no prepare() may be entered "
        f"as if the local held it; entered {entered}")
    assert any(u.call == "batch.prepare" for u in report.not_entered), (
        f"`batch = {build}` {why}: `batch.prepare()` must be listed as not entered, got "
        f"{[u.call for u in report.not_entered]}")
