"""A definition an early exit rules out never reaches a read past it (docs/uniformity.md,
"Inputs"): ``found = None``, then ``found = v`` under a rank-dependent test in a loop, then
``assert found is not None`` — past the assert only ``v`` can be what ``found`` holds, so
which of the two definitions reaches is not decided by the rank. The audit read the
selection anyway: vLLM's ``GroupCoordinator`` (``self_cpu_group = None; for ranks in
group_ranks: ... if self.rank in ranks: self_cpu_group = cpu_group; assert self_cpu_group is
not None``) made every type test of a group handle RANK-LOCAL. The assert itself still
reads the selection (a rank that finds nothing stops there)."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    LIMIT = 7

    class S:
        def __init__(self, tp_group, items):
            self.tp_group = tp_group
            self.items = items

        def step(self):
            found = INITIAL
            for item in self.items:
                if item.owner == dist.get_rank():
                    found = VALUE
            EXIT
            if found > 2:
                dist.barrier(group=self.tp_group)
"""


def _decisions(make_pkg, initial: str, exit_: str, value: str = "3"):
    lines = exit_.strip("\n").splitlines()
    source = SOURCE.replace("INITIAL", initial).replace("VALUE", value).replace(
        "EXIT", "\n            ".join(lines))
    return audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS)).decisions


@pytest.mark.parametrize("initial, value, exit_, why", [
    ("None", "LIMIT", "assert found is not None",
     "`assert found is not None` rules out `found = None`, leaving `found = LIMIT`"),
    ("None", "LIMIT", "if found is None:\n    return",
     "`if found is None: return` rules out `found = None`, leaving `found = LIMIT`"),
    ("None", "3", "assert found", "`assert found` rules out the falsy `found = None`"),
    ("3", "0", "if found:\n    return", "`if found: return` rules out the truthy `found = 3`"),
], ids=["assert_not_none", "return_if_none", "assert_truthy_none", "return_if_truthy"])
def test_an_exit_rules_out_the_constant_it_excludes_not_the_other(make_pkg, initial, value,
                                                                   exit_, why):
    decisions = _decisions(make_pkg, initial, exit_, value=value)
    found = [d for d in decisions if d.condition == "found > 2"]
    assert found and found[0].verdict is Verdict.UNIFORM, (
        f"{why} (a constant): whichever rank found it, `if found > 2:` must be UNIFORM; "
        f"got {[(d.verdict.value, d.why) for d in found]}")


@pytest.mark.parametrize("initial, exit_, why", [
    ("None", "assert found is not None", "`assert found is not None` rules out `found = None`"),
    ("None", "if found is None:\n    return", "`if found is None: return` rules out `None`"),
    ("None", "if found is None:\n    raise RuntimeError('no group')",
     "`if found is None: raise` rules out `None`"),
    ("0", "assert found", "`assert found` rules out the falsy `found = 0`"),
    ("None", "assert found is not None and self.items",
     "an assert whose first part is `found is not None` rules out `None`"),
], ids=["assert_not_none", "return_if_none", "raise_if_none", "assert_truthy",
        "assert_conjunction"])
def test_a_definition_an_exit_rules_out_does_not_decide_the_read(make_pkg, initial, exit_, why):
    found = [d for d in _decisions(make_pkg, initial, exit_) if d.condition == "found > 2"]
    assert found and found[0].verdict is Verdict.UNIFORM, (
        f"{why}: past the exit `found` can only hold 3, whichever rank found it, so `if "
        f"found > 2:` must be UNIFORM; got {[(d.verdict.value, d.why) for d in found]}")


@pytest.mark.parametrize("initial, exit_, why", [
    ("None", "pass", "no exit: a rank that found nothing keeps `None`"),
    ("None", "mine = self.items\nassert mine is not None", "the assert tests another name"),
    ("5", "assert found is not None", "`found = 5` is not None: the assert rules it out not"),
    ("None", "assert found is None or self.items",
     "an assert that holds with `found` None (either part may hold)"),
], ids=["no_exit", "other_name", "not_none_initial", "disjunction"])
def test_a_definition_no_exit_rules_out_still_decides_the_read(make_pkg, initial, exit_, why):
    found = [d for d in _decisions(make_pkg, initial, exit_) if d.condition == "found > 2"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        f"{why}: which definition of `found` reaches depends on the rank's own match, so "
        f"`if found > 2:` must be RANK-LOCAL; got "
        f"{[(d.verdict.value, d.why) for d in found]}")


def test_the_assert_itself_still_reads_the_selection(make_pkg):
    decisions = _decisions(make_pkg, "None", "assert found is not None")
    found = [d for d in decisions if d.condition == "found is not None"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "`assert found is not None` stops a rank that matched no item: it reads which "
        "definition reaches (the rank's own match) and must stay RANK-LOCAL; got "
        f"{[(d.verdict.value, d.why) for d in found]}")
