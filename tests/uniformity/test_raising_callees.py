"""A call that raises on some ranks, where a try catches the exception and the rank goes
on, skips on those ranks the collectives between the call and the handler: the others
wait for them. Those collectives are gated by the conditions under which the callee (or a
function it calls) raises (docs/uniformity.md "Gating decisions": early exits composed
along the call chain, kind `raise`). Nothing reported it: the raise sat in a helper
(``self.check()``) and only the caller issued the collective. An exception nothing catches
ends the rank's process (a crash, loud, not a hang) and is not reported. Twins: a raise
the callee catches itself, a try around the call alone, a call after the collective, a
raise on configuration."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\nconfig = ["self.strict"]\n'

SOURCE = """
    import time


    class S:
        def __init__(self, tp_group, strict):
            self.tp_group = tp_group
            self.strict = strict

        def check(self):
            CHECK

        def inner(self):
            INNER

        def work(self):
            WORK

        def step(self):
            STEP
"""

CLOCK_RAISE = "if time.monotonic() > 5:\n    raise RuntimeError('late')"
CAUGHT_AROUND_BOTH = ("try:\n    self.check()\n    dist.barrier(group=self.tp_group)\n"
                      "except Exception:\n    pass")
CAUGHT_BY_THE_CALLER = "try:\n    self.work()\nexcept Exception:\n    pass"
CHECK_THEN_BARRIER = "self.check()\ndist.barrier(group=self.tp_group)"


def _decisions(make_pkg, check: str, step: str, inner: str = "pass", work: str = "pass"):
    text = SOURCE
    for mark, body in (("CHECK", check), ("STEP", step), ("INNER", inner), ("WORK", work)):
        text = text.replace(mark, "\n            ".join(body.splitlines()))
    return audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS)).decisions


@pytest.mark.parametrize("check, inner, step, work, why", [
    (CLOCK_RAISE, "pass", CAUGHT_AROUND_BOTH, "pass",
     "`if time.monotonic() > 5: raise` in check(), caught by the try around the call and "
     "the barrier"),
    ("assert time.monotonic() < 5", "pass", CAUGHT_AROUND_BOTH, "pass",
     "`assert time.monotonic() < 5` in check(), caught by the try around the call and the "
     "barrier"),
    ("self.inner()", CLOCK_RAISE, CAUGHT_AROUND_BOTH, "pass",
     "a raise in inner(), which check() calls, caught around the call and the barrier"),
    (CLOCK_RAISE, "pass", CAUGHT_BY_THE_CALLER, CHECK_THEN_BARRIER,
     "a raise in check() before work()'s barrier, caught by step() around work()"),
    (CLOCK_RAISE, "pass", CAUGHT_AROUND_BOTH.replace("except Exception",
                                                     "except (ValueError, RuntimeError)"),
     "pass", "a RuntimeError raised in check(), caught by `except (ValueError, RuntimeError)` "
     "around the call and the barrier"),
    ("try:\n    " + CLOCK_RAISE.replace("\n", "\n    ") + "\nexcept StopIteration:\n    pass",
     "pass", CAUGHT_AROUND_BOTH, "pass",
     "check()'s own try catches StopIteration only: its RuntimeError leaves check() and is "
     "caught around the call and the barrier"),
    ("assert time.monotonic() < 5", "pass",
     CAUGHT_AROUND_BOTH.replace("except Exception", "except AssertionError"), "pass",
     "a failed assert in check() (an AssertionError), caught by `except AssertionError` "
     "around the call and the barrier"),
    ("self.inner()", CLOCK_RAISE, CAUGHT_AROUND_BOTH.replace(
        "    self.check()\n", "    self.check()\n    if self.strict:\n    ").replace(
        "\n    dist.barrier", "\n        dist.barrier"), "pass",
     "a raise in inner() via check(), caught by the try around the call and a barrier nested "
     "one block deeper (under `if self.strict:`)"),
    ("try:\n    self.inner()\nexcept Exception:\n    time.sleep(0)\n    raise", CLOCK_RAISE,
     CAUGHT_AROUND_BOTH, "pass",
     "a raise in inner(), which check() calls inside a try whose handler cleans up and "
     "raises it again (it leaves check()), caught around the call and the barrier"),
    (CLOCK_RAISE, CHECK_THEN_BARRIER, CAUGHT_BY_THE_CALLER, "self.inner()",
     "a raise in check() before inner()'s barrier, caught by step() two calls up (step -> "
     "work -> inner)"),
], ids=["raise", "assert", "raise_one_call_deeper", "caught_by_a_caller", "caught_by_class",
        "callee_try_of_another_class", "assert_caught_by_class", "site_in_a_nested_block",
        "callee_handler_reraises", "caught_two_calls_up"])
def test_a_caught_raise_on_a_rank_local_condition_gates_the_collectives_it_skips(
        make_pkg, check, inner, step, work, why):
    found = _decisions(make_pkg, check, step, inner, work)
    raising = [d for d in found if d.kind == "raise"]
    assert not any("except" in d.condition for d in raising), (
        "a handler that raises again is no raise of its own (the exception it caught goes "
        f"on): no `raise` decision on an except clause; got {[d.condition for d in raising]}")
    assert raising and all(d.verdict is Verdict.RANK_LOCAL for d in raising), (
        f"{why}: the ranks where the clock says so skip the TP barrier and go on, the others "
        "wait at it, so that condition must be reported as a RANK-LOCAL decision of kind "
        f"`raise` gating the barrier; got "
        f"{[(d.function, d.kind, d.verdict.value, d.condition) for d in found]}")
    sites = {s.call for d in raising for s in d.collectives}
    assert sites == {"dist.barrier"}, (
        f"the raise gates the barrier issued after the call; got gated sites {sites}")


@pytest.mark.parametrize("check, step, work, why", [
    (CLOCK_RAISE, CHECK_THEN_BARRIER, "pass",
     "nothing catches check()'s exception: the rank's process ends (a crash, not a hang)"),
    ("try:\n    " + CLOCK_RAISE.replace("\n", "\n    ") + "\nexcept RuntimeError:\n    pass",
     CAUGHT_AROUND_BOTH, "pass", "check() catches its own raise: the call returns on every rank"),
    (CLOCK_RAISE, "try:\n    self.check()\nexcept RuntimeError:\n    pass\n"
     "dist.barrier(group=self.tp_group)", "pass",
     "step() catches what check() raises before the barrier: every rank reaches it"),
    (CLOCK_RAISE, "try:\n    time.sleep(0)\n    dist.barrier(group=self.tp_group)\n"
     "    self.check()\nexcept Exception:\n    pass", "pass",
     "check() runs after the barrier: its raise gates nothing"),
    (CLOCK_RAISE, CAUGHT_AROUND_BOTH.replace("except Exception", "except StopIteration"),
     "pass", "the try around the call and the barrier catches StopIteration only: check()'s "
     "RuntimeError leaves step() uncaught (a crash, not a hang)"),
    (CLOCK_RAISE, CAUGHT_BY_THE_CALLER.replace("except Exception", "except StopIteration"),
     CHECK_THEN_BARRIER, "step()'s try around work() catches StopIteration only: check()'s "
     "RuntimeError leaves step() uncaught (a crash, not a hang)"),
    (CLOCK_RAISE, "try:\n    try:\n        self.check()\n    except Exception:\n        pass\n"
     "    dist.barrier(group=self.tp_group)\nexcept Exception:\n    pass", "pass",
     "the inner try around check() alone catches its raise before the barrier (the outer "
     "try around both never sees it): every rank reaches the barrier"),
], ids=["uncaught", "caught_in_the_callee", "caught_around_the_call_alone",
        "called_after_the_collective", "handler_of_another_class",
        "caller_handler_of_another_class", "caught_by_the_inner_of_two_tries"])
def test_a_raise_that_skips_no_collective_of_a_rank_that_goes_on_gates_nothing(
        make_pkg, check, step, work, why):
    found = _decisions(make_pkg, check, step, work=work)
    raising = [d for d in found if d.kind == "raise"]
    assert not raising, (
        f"{why}, so no decision of kind `raise` may be reported; got "
        f"{[(d.function, d.verdict.value, d.condition) for d in raising]}")


def test_a_raise_on_configuration_is_uniform(make_pkg):
    found = _decisions(make_pkg, "if self.strict:\n    raise RuntimeError('strict')",
                       CAUGHT_AROUND_BOTH)
    raising = [d for d in found if d.kind == "raise"]
    assert raising and all(d.verdict is Verdict.UNIFORM for d in raising), (
        "check() raises where self.strict (configuration) holds: every rank raises alike, so "
        "the decision gating the barrier is reported and UNIFORM; got "
        f"{[(d.function, d.kind, d.verdict.value) for d in found]}")


def test_a_raise_decision_and_an_assert_have_a_live_can_fail_arm(make_pkg):
    from deskcheck.uniformity import run_can_fail

    check = "if self.strict:\n    raise RuntimeError('strict')\nassert self.strict is not None"
    text = SOURCE
    for mark, body in (("CHECK", check), ("STEP", CAUGHT_AROUND_BOTH), ("INNER", "pass"),
                       ("WORK", "pass")):
        text = text.replace(mark, "\n            ".join(body.splitlines()))
    root = make_pkg({"s.py": text}, ROOTS)
    report = audit("pkg.s:S", root=root)
    raising = [d for d in report.decisions if d.kind == "raise"]
    assert len(raising) == 2, (
        "check() raises under `self.strict` and under `not (self.strict is not None)` (its "
        f"assert): two decisions of kind `raise`; got {[d.condition for d in raising]}")
    run_can_fail(report, "pkg.s:S", root=root)
    arms = {d.condition: d.can_fail for d in raising}
    assert all(arm == "LIVE" for arm in arms.values()), (
        "a clock planted into each raise condition (the `if` test, the assert's test) must "
        f"be reported for that decision: every arm LIVE; got {arms}")



FORCED = """
    import time


    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def check(self, force):
            if time.monotonic() > 5:
                if force:
                    raise RuntimeError("late")

        def step(self):
            try:
                self.check(force=True)
                dist.barrier(group=self.tp_group)
            except Exception:
                pass
"""


def test_a_raise_a_constant_argument_makes_certain_is_no_dead_code(make_pkg):
    found = audit("pkg.s:S", root=make_pkg({"s.py": FORCED}, ROOTS)).decisions
    raising = [d for d in found if d.kind == "raise"]
    assert [(d.condition, d.verdict) for d in raising] == [
        ("time.monotonic() > 5", Verdict.RANK_LOCAL)], (
        "check(force=True) raises wherever the clock passes 5: the raise is reached (its own "
        "early exit is no guard of it), `force` is decided by the constant and the clock is "
        "the RANK-LOCAL decision of kind `raise`; got "
        f"{[(d.condition, d.verdict.value) for d in raising]}")
