"""A class a method returns, called to build an object (``adder =
self.get_prefill_adder_class()(...)``), builds that class: its ``__init__`` runs and the
local holds one of its objects, whose methods are entered (docs/uniformity.md "Input sets":
components by their constructor calls). SGLang 0.5.22 moved ``PrefillAdder(...)`` behind
``get_prefill_adder_class()`` (a hook a subclass may override): the whole adder, with the
prefill delayer's per-rank timeout under it (SGLang issue #32454), was no longer walked.
Twins: a method that returns one of two classes (no one class), and a class held in a
field."""

from __future__ import annotations

import pytest

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


    def make_adder(tp_group, limit):
        return load_plugin("Adder")(tp_group, limit)


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


ADDERS = """
    class Adder2:
        def __init__(self, tp_group, limit):
            self.tp_group = tp_group

        def add(self):
            if time.monotonic() > 5:
                dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("body", ["return Adder", "return adders.Adder2"],
                         ids=["name", "module_attribute"])
def test_a_class_a_method_returns_is_built_and_its_methods_entered(make_pkg, body):
    text = ("\n    from pkg import adders\n" + SOURCE).replace("BODY", body).replace(
        "BUILD", "self.adder_class()")
    report = audit("pkg.s:S", root=make_pkg({"s.py": text, "adders.py": ADDERS}, ROOTS))
    found = [d for d in report.decisions if d.function.endswith(".add")]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        f"`adder = self.adder_class()(...)` builds the class adder_class returns (`{body}`): "
        "`adder.add()` must be entered and its clock before the TP barrier reported "
        f"RANK-LOCAL; got {[(d.function, d.verdict.value) for d in report.decisions]}, "
        f"calls not entered {[u.call for u in report.not_entered]}")


@pytest.mark.parametrize("body, step, why", [
    ("if self.pick:\n                return Adder\n            return Other",
     "adder = self.adder_class()(self.tp_group, 5)",
     "adder_class returns Adder or Other (no one class: the walk names a class only when "
     "every return names the same one)"),
    ("if self.pick:\n                return load_plugin('Adder')\n            return Adder",
     "adder = self.adder_class()(self.tp_group, 5)",
     "adder_class returns Adder or what a plugin loader returns (not known)"),
    ("return Adder", "adder = Adder(self.tp_group, 5)\n            if self.pick:\n"
     "                adder = make_adder(self.tp_group, 5)",
     "`adder` is an Adder or what make_adder returns (a plugin's class, not known)"),
], ids=["two_classes", "a_return_of_no_class", "local_bound_again"])
def test_a_local_of_no_one_known_class_enters_no_method(make_pkg, body, step, why):
    text = SOURCE.replace("BODY", body).replace(
        "adder = BUILD(self.tp_group, 5)", step)
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    assert not [d for d in report.decisions if d.function == "Adder.add"], (
        f"{why}: `adder.add()` must not be entered as Adder.add; got "
        f"{[(d.function, d.verdict.value) for d in report.decisions]}")


LOADED = """
    class Waiter:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def wait(self):
            dist.barrier(group=self.tp_group)


    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.items = []

        def step(self):
            STEP
"""


@pytest.mark.parametrize("step, listed, why", [
    ("w = load_plugin('waiter')(self.tp_group)\nw.wait()", True,
     "`w` holds what a plugin loader builds (its class is not known)"),
    ("w = make_waiter(self.tp_group)\nw.wait()", True,
     "`w` holds what an unresolved factory returns"),
    ("w = []\nw.append(1)", False, "`w.append` is a list's own method"),
    ("w = make_tensor()\nw.numel()", False,
     "`numel` is a method no class in the code read defines"),
    ("w = self.items\nw.wait()", False, "`w` is a field's value, not a call's result"),
], ids=["plugin_loader", "factory", "builtin_method", "foreign_method", "not_a_call"])
def test_a_method_called_on_a_local_of_unknown_class_is_listed_as_not_entered(
        make_pkg, step, listed, why):
    text = LOADED.replace("STEP", "\n            ".join(step.splitlines()))
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    calls = {n.call: n.why for n in report.not_entered}
    call = step.splitlines()[-1].split("(")[0]
    if listed:
        assert call in calls and "receiver is the local w" in calls[call], (
            f"{why}: a collective inside `{call}()` would not be seen, so the call must be "
            f"listed as not entered, naming the local; got {calls}")
    else:
        assert call not in calls, (
            f"{why}: it hides no collective of ours and must not be listed; got {calls}")
