"""A class a method returns, called to build an object (``adder =
self.get_prefill_adder_class()(...)``), builds that class: its ``__init__`` runs and the
local holds one of its objects, whose methods are entered (docs/uniformity.md "Input sets":
components by their constructor calls). SGLang 0.5.22 moved ``PrefillAdder(...)`` behind
``get_prefill_adder_class()`` (a hook a subclass may override): the whole adder, with the
prefill delayer's per-rank timeout under it (SGLang issue #32454), was no longer walked.
Twins: a method that returns one of two classes (no one class), and a class held in a
field."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\nconfig = ["self.pick"]\n'

SOURCE = """
    class Adder:
        def __init__(self, tp_group, limit):
            self.tp_group = tp_group
            self.limit = limit

        def add(self):
            if time.monotonic() > self.limit:
                dist.barrier(group=self.tp_group)


    class Other(Adder):
        pass


    class S:
        def __init__(self, tp_group, pick):
            self.tp_group = tp_group
            self.pick = pick
            self.held = Adder

        def adder_class(self):
            BODY

        def step(self):
            adder = BUILD(self.tp_group, 5)
            adder.add()
"""


def _audit(make_pkg, body: str, build: str = "self.adder_class()"):
    text = SOURCE.replace("BODY", body).replace("BUILD", build)
    return audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))


def test_a_class_a_method_returns_is_built_and_its_methods_entered(make_pkg):
    report = _audit(make_pkg, "return Adder")
    found = [d for d in report.decisions if d.function == "Adder.add"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "`adder = self.adder_class()(...)` builds an Adder (adder_class returns the class "
        "Adder): `adder.add()` must be entered and its clock before the TP barrier reported "
        f"RANK-LOCAL; got {[(d.function, d.verdict.value) for d in report.decisions]}, "
        f"calls not entered {[u.call for u in report.not_entered]}")


def test_a_method_returning_one_of_two_classes_names_no_one_class(make_pkg):
    report = _audit(make_pkg, "if self.pick:\n                return Adder\n"
                              "            return Other")
    assert not [d for d in report.decisions if d.function == "Adder.add"], (
        "adder_class returns Adder or Other: no one class is built (Other inherits add, "
        "but the walk names a class only when every return names the same one); got "
        f"{[(d.function, d.verdict.value) for d in report.decisions]}")
