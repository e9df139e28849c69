"""Two ``if`` statements on the same local test take the same arm on every run when nothing
between them defines the names the test reads: a value set in the first's true arm never
reaches the second's false arm (docs/uniformity.md "Input sets": locals by their reaching
definitions). vLLM 0.11.0's ``GroupCoordinator.recv_tensor_dict`` slices the received tensor
at the rank's own offset under ``if use_all_gather:`` and all-gathers it back under a
second ``if use_all_gather:``: the rank's slice was read as reaching the returned dict
through the second test's false arm, a path no run takes. Twins: the test's local defined
again between the two (a new value: the path is real), a value carried from an earlier
pass of a loop, a test that reads a field (a call between may change it), a test the
first arm itself changes."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = ('[tool.deskcheck.uniformity]\nroots = ["step"]\n'
         'config = ["self.use_gather", "self.other", "self.limit", "self.items"]\n')

SOURCE = """
    import time


    class S:
        def __init__(self, tp_group, use_gather, other, limit, items):
            self.tp_group = tp_group
            self.use_gather = use_gather
            self.other = other
            self.limit = limit
            self.items = items

        def refresh(self, pending=None):
            pass

        def step(self):
            STEP
"""

CORRELATED = """use = self.use_gather
x = self.limit
if use:
    x = time.monotonic()
if use:
    x = self.limit
if x > 5:
    dist.barrier(group=self.tp_group)"""


def _gate(make_pkg, step: str):
    text = SOURCE.replace("STEP", "\n            ".join(step.splitlines()))
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    found = [d for d in report.decisions if d.condition == "x > 5"]
    assert len(found) == 1, f"expected one decision on `x > 5`, got {report.decisions}"
    return found[0]


@pytest.mark.parametrize("step, why", [
    (CORRELATED, "the clock is set under `if use:` and replaced under the same `if use:`"),
    (CORRELATED.replace("if use:\n    x = self.limit", "if not use:\n    pass\nelse:\n"
                        "    x = self.limit"),
     "the second test written `if not use: ... else:` (the same test, flipped)"),
    (CORRELATED.replace("use = self.use_gather", "use = self.use_gather and self.other")
     .replace("if use:\n    x = self.limit", "print(use)\nif use:\n    x = self.limit"),
     "a test local read (not defined) between the two"),
], ids=["same_test", "flipped_test", "read_between"])
def test_a_value_from_one_arm_never_reaches_the_other_arm_of_the_same_test(
        make_pkg, step, why):
    d = _gate(make_pkg, step)
    assert d.verdict is Verdict.UNIFORM, (
        f"{why}: the clock never reaches `x > 5` (the path through the first's true arm "
        f"and the second's false arm is taken by no run), but the audit says "
        f"{d.verdict.value}: {d.why}")


@pytest.mark.parametrize("step, why", [
    (CORRELATED.replace("if use:\n    x = self.limit", "use = self.other\nif use:\n"
                        "    x = self.limit"),
     "`use` is defined again between the two tests: the second may take the other arm"),
    ("x = self.limit\nfor item in self.items:\n    use = item\n    if use:\n"
     "        x = time.monotonic()\n        if self.other:\n            continue\n"
     "    if use:\n        x = self.limit\n    elif x > 5:\n"
     "        dist.barrier(group=self.tp_group)",
     "the clock set in one pass of the loop, then `continue`, reaches the next pass's second "
     "test where `use` (a new item) is false"),
    (CORRELATED.replace("use = self.use_gather\n", "").replace("if use:", "if self.use_gather:")
     .replace("if self.use_gather:\n    x = self.limit",
              "self.refresh()\nif self.use_gather:\n    x = self.limit"),
     "the test reads a field, which the call between the two may change"),
    (CORRELATED.replace("    x = time.monotonic()\n", "    x = time.monotonic()\n    use = False\n"),
     "the first arm sets `use` to False: the second test takes its false arm"),
    ("pending = set(self.items)\nkey = self.other\nx = self.limit\nif key in pending:\n"
     "    x = time.monotonic()\nself.refresh(pending)\nif key in pending:\n"
     "    x = self.limit\nif x > 5:\n    dist.barrier(group=self.tp_group)",
     "the test is a membership test: the call between may take `key` out of `pending` "
     "with no name defined again"),
], ids=["redefined_between", "carried_by_the_loop", "field_test", "changed_in_the_arm",
        "membership_test"])
def test_a_value_that_can_reach_the_other_arm_still_decides(make_pkg, step, why):
    d = _gate(make_pkg, step)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{why}, so the clock can reach `x > 5` and must be reported RANK-LOCAL; got "
        f"{d.verdict.value}: {d.why}")
