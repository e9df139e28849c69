"""``with contextlib.suppress(E): ...`` is ``try: ... except E: pass``: an exception of class
``E`` raised in its body ends the body, and the rank goes on after the ``with``
(docs/uniformity.md "Gating decisions", kind `raise`). So a call that raises ``E`` on some
ranks skips, on those ranks, the collectives after it inside the body (SGLang's
``cleanup_dist_env_and_memory`` runs ``destroy_process_group`` under
``contextlib.suppress(AssertionError)``), and a raise inside the body leaves the body only:
the collectives after the ``with`` run on every rank. Twins: a suppress of another class, a
context manager that suppresses nothing, ``suppress`` imported by name."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import contextlib
    import time
    from contextlib import suppress


    class S:
        def __init__(self, tp_group, lock):
            self.tp_group = tp_group
            self.lock = lock

        def check(self):
            if time.monotonic() > 5:
                raise RuntimeError("late")

        def step(self):
            STEP
"""


def _decisions(make_pkg, step: str):
    text = SOURCE.replace("STEP", "\n            ".join(step.splitlines()))
    return audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS)).decisions


BODY = ":\n    self.check()\n    dist.barrier(group=self.tp_group)"


@pytest.mark.parametrize("manager", [
    "contextlib.suppress(RuntimeError)", "suppress(RuntimeError)",
    "contextlib.suppress(ValueError, RuntimeError)", "contextlib.suppress(Exception)",
    "self.lock, contextlib.suppress(RuntimeError)"],
    ids=["module_attribute", "imported_by_name", "one_of_two_classes", "any_exception",
         "second_item_of_the_with"])
def test_a_suppressed_raise_skips_the_collectives_after_it_in_the_body(make_pkg, manager):
    found = _decisions(make_pkg, f"with {manager}" + BODY)
    raising = [d for d in found if d.kind == "raise"]
    assert raising and all(d.verdict is Verdict.RANK_LOCAL for d in raising), (
        f"`with {manager}:` catches check()'s RuntimeError and the rank goes on: the ranks "
        "whose clock makes check() raise skip the barrier in the body, so the clock must be "
        "reported as a RANK-LOCAL decision of kind `raise`; got "
        f"{[(d.function, d.kind, d.verdict.value, d.condition) for d in found]}")


@pytest.mark.parametrize("manager, why", [
    ("contextlib.suppress(ValueError)", "suppress(ValueError) does not catch a RuntimeError"),
    ("self.lock", "a lock suppresses nothing"),
], ids=["another_class", "not_a_suppress"])
def test_a_raise_no_suppress_catches_is_still_a_crash(make_pkg, manager, why):
    found = _decisions(make_pkg, f"with {manager}" + BODY)
    raising = [d for d in found if d.kind == "raise"]
    assert not raising, (
        f"{why}: check()'s exception leaves step() uncaught (a crash, not a hang), so no "
        f"decision of kind `raise` may be reported; got {[d.condition for d in raising]}")


def test_a_raise_inside_a_suppress_leaves_the_body_only(make_pkg):
    found = _decisions(make_pkg, "with contextlib.suppress(RuntimeError):\n"
                       "    if time.monotonic() > 5:\n        raise RuntimeError('late')\n"
                       "dist.barrier(group=self.tp_group)")
    gating = [d for d in found if any(s.call == "dist.barrier" for s in d.collectives)]
    assert not gating, (
        "the raise inside `with contextlib.suppress(RuntimeError):` ends the with body "
        "only: every rank goes on to the barrier after it, so nothing gates the barrier; got "
        f"{[(d.kind, d.verdict.value, d.condition) for d in gating]}")
