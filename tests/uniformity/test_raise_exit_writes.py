"""A field written past an early exit is "written when" the exit's condition does not hold
(docs/uniformity.md "Input sets": every write in the MRO and the conditions each write sits
under). A raise or an assert that nothing catches is no such condition: the ranks where it
fails end their process (a crash, loud, the same rule as for a callee's raise, kind
`raise`), so on every rank that goes on the field holds the written value. vLLM 0.11.0's
``GPUModelRunner.load_model`` writes ``self.model`` past ``assert
old_global_expert_indices.shape[1] % num_local_physical_experts == 0``: the model object was
read as chosen by that assert, and ``eplb_step``'s ``assert is_mixture_of_experts(model)``
came out RANK-LOCAL. Twins: a return exit (the rank goes on without the write), a raise
caught by the caller of the writer, a raise caught inside the writer, a raise of a class the
caller's try does not catch."""

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
            self.ready = False

        def load(self):
            LOAD

        def step(self):
            STEP
"""

CALL_THEN_GATE = "self.load()\nif self.ready:\n    dist.barrier(group=self.tp_group)"
WRITE = "\nself.ready = self.strict"


def _ready(make_pkg, load: str, step: str = CALL_THEN_GATE):
    text = SOURCE
    for mark, body in (("LOAD", load), ("STEP", step)):
        text = text.replace(mark, "\n            ".join(body.splitlines()))
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    found = [d for d in report.decisions if d.condition == "self.ready"]
    assert len(found) == 1, f"expected one decision on `self.ready`, got {report.decisions}"
    return found[0]


@pytest.mark.parametrize("load, why", [
    ("assert time.monotonic() < 5" + WRITE,
     "`assert time.monotonic() < 5` before the write: a rank where it fails crashes"),
    ("if time.monotonic() > 5:\n    raise RuntimeError('late')" + WRITE,
     "`if time.monotonic() > 5: raise RuntimeError` before the write, caught nowhere"),
    ("if time.monotonic() > 5:\n    if self.strict:\n        raise RuntimeError('late')" + WRITE,
     "a raise nested under `if time.monotonic() > 5:` (its outer condition), caught nowhere"),
], ids=["assert", "raise", "nested_raise"])
def test_an_uncaught_raise_before_a_write_is_no_condition_of_the_field(make_pkg, load, why):
    d = _ready(make_pkg, load)
    assert d.verdict is Verdict.UNIFORM, (
        f"{why}; every rank that goes on holds `self.ready = self.strict` (configuration), "
        f"but the audit read the raise's clock as deciding the field: {d.verdict.value} "
        f"{d.why}")


@pytest.mark.parametrize("load, step, why", [
    ("if time.monotonic() > 5:\n    return" + WRITE, CALL_THEN_GATE,
     "a return before the write: a late rank goes on without writing the field"),
    ("assert time.monotonic() < 5" + WRITE,
     "try:\n    self.load()\nexcept Exception:\n    pass\nif self.ready:\n"
     "    dist.barrier(group=self.tp_group)",
     "the caller catches the failed assert and goes on with the field unwritten"),
    ("try:\n    assert time.monotonic() < 5" + WRITE.replace("\n", "\n    ")
     + "\nexcept AssertionError:\n    pass", CALL_THEN_GATE,
     "the writer's own try catches the failed assert before the write"),
    ("if time.monotonic() > 5:\n    raise RuntimeError('late')" + WRITE,
     "try:\n    self.load()\nexcept (ValueError, RuntimeError):\n    pass\nif self.ready:\n"
     "    dist.barrier(group=self.tp_group)",
     "the caller's `except (ValueError, RuntimeError)` catches the RuntimeError"),
], ids=["return", "caught_by_the_caller", "caught_in_the_writer", "caught_by_class"])
def test_an_exit_the_rank_goes_on_from_still_decides_the_field(make_pkg, load, step, why):
    d = _ready(make_pkg, load, step)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{why}: whether `self.ready` was written follows the rank's clock, but the audit "
        f"says {d.verdict.value} ({d.why})")
    assert "time.monotonic" in d.why or any(
        "time.monotonic" in i.name for i in d.inputs if i.klass.value == "RANK-LOCAL"), (
        f"{why}: the rank-local input should be the clock, got {d.why}")


def test_a_raise_of_a_class_the_callers_try_does_not_catch_is_still_a_crash(make_pkg):
    d = _ready(make_pkg, "if time.monotonic() > 5:\n    raise RuntimeError('late')" + WRITE,
               "try:\n    self.load()\nexcept StopIteration:\n    pass\nif self.ready:\n"
               "    dist.barrier(group=self.tp_group)")
    assert d.verdict is Verdict.UNIFORM, (
        "the caller's `except StopIteration` does not catch load()'s RuntimeError: a late "
        f"rank crashes, so the clock decides nothing of the field; got {d.verdict.value} "
        f"{d.why}")
