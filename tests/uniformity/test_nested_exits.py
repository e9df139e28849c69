"""An early exit nested under another condition (``if self.strict: if self.tp_size > 1:
return``) holds past it only where that condition held (docs/uniformity.md, "What a path's
condition proves"): on the path where ``strict`` is false the code runs on with ``tp_size >
1``. The audit read the inner test alone: the clock decision after it was TRIVIAL ("the TP
group has one rank there"), and after ``if strict: if found is None: return`` the ``None``
was ruled out (outsider set KK found the second). The same exits one level up (directly in
the function) still prove what they prove."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\nconfig = ["self.strict"]\n'

CLOCK = """
    class S:
        def __init__(self, tp_group, tp_size, strict):
            self.tp_group = tp_group
            self.tp_size = tp_size
            self.strict = strict

        def step(self):
            n = time.monotonic()
            EXIT
            if n > 3:
                dist.barrier(group=self.tp_group)
"""

FOUND = """
    LIMIT = 7

    class S:
        def __init__(self, tp_group, items, strict):
            self.tp_group = tp_group
            self.items = items
            self.strict = strict

        def step(self):
            found = None
            for item in self.items:
                if item.owner == dist.get_rank():
                    found = LIMIT
            EXIT
            if found is not None:
                dist.barrier(group=self.tp_group)
"""


def _verdict(make_pkg, source: str, exit_: str, condition: str):
    lines = exit_.strip("\n").splitlines()
    text = source.replace("EXIT", "\n            ".join(lines))
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    return next(d for d in report.decisions if d.condition == condition)


@pytest.mark.parametrize("source, exit_, condition, why", [
    (CLOCK, "if self.strict:\n    if self.tp_size > 1:\n        return", "n > 3",
     "the return is taken only when `strict` holds too: with `strict` false the clock "
     "reaches the TP barrier with `tp_size > 1`"),
    (CLOCK, "if self.strict:\n    assert self.tp_size == 1", "n > 3",
     "the assert runs only when `strict` holds"),
    (FOUND, "if self.strict:\n    if found is None:\n        return", "found is not None",
     "the return rules out `found = None` only when `strict` holds: with `strict` false "
     "a rank that matched nothing reaches the decision with None"),
    (FOUND, "if self.strict:\n    assert found is not None", "found is not None",
     "the assert rules out `found = None` only when `strict` holds"),
], ids=["nested_single_rank_return", "nested_single_rank_assert", "nested_rules_out_return",
        "nested_rules_out_assert"])
def test_an_exit_nested_under_a_condition_proves_nothing_alone(make_pkg, source, exit_,
                                                               condition, why):
    d = _verdict(make_pkg, source, exit_, condition)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{why}: `if {condition}:` must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("source, exit_, condition, verdict", [
    (CLOCK, "if self.tp_size > 1:\n    return", "n > 3", Verdict.TRIVIAL),
    (FOUND, "if found is None:\n    return", "found is not None", Verdict.UNIFORM),
], ids=["single_rank_return", "rules_out_return"])
def test_the_same_exit_at_the_top_still_proves_it(make_pkg, source, exit_, condition,
                                                  verdict):
    d = _verdict(make_pkg, source, exit_, condition)
    assert d.verdict is verdict, (
        f"`{exit_.splitlines()[0]}` directly in the function holds on every path past it: "
        f"`if {condition}:` must be {verdict.value}; got {d.verdict.value}: {d.why}")


POLL = """
    class S:
        def __init__(self, tp_group, strict):
            self.tp_group = tp_group
            self.strict = strict

        def _poll(self, force):
            n = time.monotonic()
            EXIT
            if n > 3:
                dist.barrier(group=self.tp_group)

        def step(self):
            self._poll(force=True)
"""


@pytest.mark.parametrize("exit_, live", [
    ("if self.strict:\n    if force:\n        return", True),
    ("if force:\n    return", False),
], ids=["nested_exit_keeps_code_alive", "top_exit_kills_code"])
def test_a_constant_nested_exit_leaves_the_code_after_it_alive(make_pkg, exit_, live):
    lines = exit_.strip("\n").splitlines()
    text = POLL.replace("EXIT", "\n            ".join(lines))
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    found = [d for d in report.decisions if d.condition == "n > 3"]
    if live:
        assert found and found[0].verdict is Verdict.RANK_LOCAL, (
            "`_poll(force=True)` returns early only when `self.strict` holds too: with "
            "`strict` false the clock decision runs and must be reported RANK-LOCAL (not "
            f"taken for dead code); got {[(d.verdict.value, d.why) for d in found]}")
    else:
        assert not found, (
            "`_poll(force=True)` always returns before the clock decision: it is dead in "
            f"that context and must not be reported; got {[d.verdict.value for d in found]}")


@pytest.mark.parametrize("source, body, condition, verdict, why", [
    (CLOCK, "if self.strict:\n    if self.tp_size > 1:\n        return\n    if n > 3:\n"
     "        dist.barrier(group=self.tp_group)", "n > 3", Verdict.TRIVIAL,
     "inside the `strict` block, past its `if self.tp_size > 1: return`, the TP group has "
     "one rank"),
    (FOUND, "if self.strict:\n    if found is None:\n        return\n"
     "    if found is not None:\n        dist.barrier(group=self.tp_group)",
     "found is not None", Verdict.UNIFORM,
     "inside the `strict` block, past its `if found is None: return`, `found` is LIMIT"),
    (CLOCK, "if self.strict:\n    if self.tp_size > 1:\n        return\n    if self.strict:\n"
     "        if n > 3:\n            dist.barrier(group=self.tp_group)", "n > 3",
     Verdict.TRIVIAL, "one block deeper inside the `strict` block, past its `if self.tp_size "
     "> 1: return`, the TP group has one rank"),
], ids=["single_rank_in_the_same_block", "rules_out_in_the_same_block",
        "single_rank_a_block_deeper"])
def test_an_exit_holds_for_a_read_in_the_block_it_is_nested_in(make_pkg, source, body,
                                                               condition, verdict, why):
    d = _verdict(make_pkg, source, body, condition)
    assert d.verdict is verdict, (
        f"{why}: the exit is nested under `strict` only as seen from outside that block, so "
        f"`if {condition}:` there must be {verdict.value}; got {d.verdict.value}: {d.why}")


GATED = """
    class S:
        def __init__(self, tp_group, tp_size, strict):
            self.tp_group = tp_group
            self.tp_size = tp_size
            self.strict = strict

        def step(self):
            n = time.monotonic()
            if n > 3:
                if self.strict:
                    if self.tp_size > 1:
                        return
                    dist.barrier(group=self.tp_group)
"""


def test_a_call_past_a_nested_exit_in_its_own_block_runs_only_where_the_exit_holds(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": GATED}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "n > 3")
    assert d.verdict is Verdict.TRIVIAL, (
        "the barrier sits in the `strict` block past that block's `if self.tp_size > 1: "
        "return`: it runs only where the TP group has one rank, so the clock decision "
        "gating it is TRIVIAL (the statement's guards must hold the exit per block, as a "
        f"read's do); got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("place, where", [
    ("                dist.barrier(group=self.tp_group)", "past the `strict` block"),
    ("                else:\n                    dist.barrier(group=self.tp_group)",
     "in the `else` arm of `if self.strict:`"),
], ids=["after_the_block", "in_the_other_arm"])
def test_a_call_outside_the_block_of_a_nested_exit_is_not_held_by_it(make_pkg, place, where):
    body = GATED.replace("                    dist.barrier(group=self.tp_group)\n", "")
    report = audit("pkg.s:S", root=make_pkg({"s.py": body.rstrip() + "\n" + place + "\n"},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == "n > 3")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{where} the barrier also runs where `strict` is false and the TP group has several "
        "ranks (the nested `if self.tp_size > 1: return` was not taken there): the clock "
        f"decision gating it must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


DEAD = """
    class S:
        def __init__(self, tp_group, strict):
            self.tp_group = tp_group
            self.strict = strict

        def _poll(self, force):
            n = time.monotonic()
            if self.strict:
                if force:
                    return
                if n > 3:
                    dist.barrier(group=self.tp_group)

        def step(self):
            self._poll(force=True)
"""


def test_code_past_a_constant_nested_exit_in_its_own_block_is_dead(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": DEAD}, ROOTS))
    found = [d for d in report.decisions if d.condition == "n > 3"]
    assert not found, (
        "inside the `strict` block, `if force: return` with `force=True` always returns: "
        "the clock decision after it in that block is dead in the only context and must "
        f"not be reported; got {[(d.verdict.value, d.why) for d in found]}")


DEEPER_READ = """
    class S:
        def __init__(self, tp_group, tp_size, strict):
            self.tp_group = tp_group
            self.tp_size = tp_size
            self.strict = strict

        def step(self):
            n = time.monotonic()
            late = False
            if self.strict:
                if self.tp_size > 1:
                    return
                if self.strict:
                    late = n > 3
            if late:
                dist.barrier(group=self.tp_group)
"""


def test_a_value_read_deeper_inside_the_block_of_a_nested_exit_carries_its_proof(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": DEEPER_READ}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "late")
    assert d.verdict is Verdict.TRIVIAL, (
        "the clock is read one block deeper inside the `strict` block, past that block's `if "
        "self.tp_size > 1: return`: it reaches `late` only where the TP group has one rank, "
        "so `if late:` (outside the block, where no statement guard holds the exit) must be "
        f"TRIVIAL; got {d.verdict.value}: {d.why}")
