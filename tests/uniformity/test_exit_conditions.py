"""The conditions an exit sits under decide the collectives after it too (docs/uniformity.md
"Decisions": early return/raise/continue before a site): in vLLM's data-parallel engine loop
(``vllm/v1/engine/core.py``, ``DPEngineCoreProc.run_busy_loop``) ``if not executed: if not
local_unfinished and not self.engines_running: continue`` skips the DP all-reduce only when
both hold, so ``executed`` (this rank's own step) is an input of that decision. Also: a call
whose callee is an interface's abstract method is UNKNOWN, not a function returning nothing;
a callable field set to either of two methods (``self.step_fn = self.step if q is None else
self.step_with_queue``) calls both."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

NESTED = """
    class S:
        def step(self):
            while True:
                executed = {outer}
                if not executed:
                    if self.server_args.idle_skip:
                        continue
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("outer, verdict", [("time.monotonic() > 5", Verdict.RANK_LOCAL),
                                            ("self.server_args.run", Verdict.UNIFORM)])
def test_the_condition_an_exit_sits_under_is_a_decision(make_pkg, outer, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": NESTED.replace("{outer}", outer)}, ROOTS))
    found = [d for d in report.decisions if d.condition == "not executed"]
    assert found and found[0].verdict is verdict and found[0].kind == "exit", (
        f"`continue` runs only when `not executed` and the configured flag both hold, so "
        f"`not executed` (executed = {outer}) decides whether the barrier runs: it must be an "
        f"exit decision, {verdict.value}; got "
        f"{[(d.condition, d.kind, d.verdict.value) for d in report.decisions]}")
    if verdict is Verdict.RANK_LOCAL:
        assert report.exit_code() == 1, (
            "a rank-local outer condition of an exit must fail the audit (exit 1); the inner "
            "configured flag alone must not make it hold")


VLLM_LOOP = """
    class Engine:
        def __init__(self):
            self.step_fn = self._step if self.server_args.queue is None else self._step_queued
            self.engines_running = False

        def _step(self):
            return self.server_args.ready

        def _step_queued(self):
            return time.monotonic() > 5

        def step(self):
            while True:
                executed = self.step_fn()
                if not executed:
                    if not self.engines_running:
                        continue
                t = torch.tensor([1])
                dist.all_reduce(t, group=self.dp_group)
                self.engines_running = bool(t.item())
"""


def test_a_callable_field_set_to_either_method_calls_both(make_pkg):
    report = audit("pkg.s:Engine", root=make_pkg({"s.py": VLLM_LOOP}, ROOTS))
    found = [d for d in report.decisions if d.condition == "not executed"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL and "monotonic" in found[0].why, (
        "self.step_fn is self._step or self._step_queued (a ternary); _step_queued reads a "
        "clock, so `not executed` must be RANK-LOCAL naming time.monotonic, not read as a "
        f"call returning nothing; got {[(d.condition, d.verdict.value, d.why) for d in found]}")


ABSTRACT = """
    from abc import ABC, abstractmethod

    class SchedulerInterface(ABC):
        @abstractmethod
        def has_requests(self) -> bool:
            raise NotImplementedError

        def total(self):
            \"\"\"Documented.\"\"\"
            raise NotImplementedError()

    class Engine:
        def __init__(self):
            self.scheduler: SchedulerInterface = make_scheduler()

        def step(self):
            if self.scheduler.{method}():
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("method", ["has_requests", "total"])
def test_an_abstract_method_is_unknown_not_empty(make_pkg, method):
    report = audit("pkg.s:Engine", root=make_pkg(
        {"s.py": ABSTRACT.replace("{method}", method)}, ROOTS))
    found = [d for d in report.decisions if method in d.condition]
    assert found and found[0].verdict is Verdict.UNKNOWN and "abstract" in found[0].why, (
        f"self.scheduler is annotated with an interface whose {method} only raises "
        "NotImplementedError (or is @abstractmethod): which implementation runs is not in "
        "the code read, so the decision must be UNKNOWN saying the method is abstract, not "
        f"UNIFORM as if it returned nothing; got {found}")


def test_a_method_that_does_nothing_is_not_abstract(make_pkg):
    src = ABSTRACT.replace("{method}", "noop").replace(
        "        def total(self):", "        def noop(self):\n            pass\n\n"
        "        def total(self):")
    report = audit("pkg.s:Engine", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if "noop" in d.condition]
    assert found and found[0].verdict is Verdict.UNIFORM, (
        "noop's body is `pass`: a real method returning None on every rank, not an "
        f"interface; the decision must be UNIFORM; got {found}")
