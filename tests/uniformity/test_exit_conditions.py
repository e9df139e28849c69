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


def _named(report, text: str) -> list:
    """The decisions whose condition mentions ``text``."""
    return [d for d in report.decisions if text in d.condition]

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

        def stub(self) -> bool: ...

        @abstractmethod
        def matched(self) -> bool:
            \"\"\"How many tokens match (vLLM's connector interface writes them so).\"\"\"
            pass

    class Engine:
        def __init__(self):
            self.scheduler: SchedulerInterface = make_scheduler()

        def step(self):
            if self.scheduler.{method}():
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("method", ["has_requests", "total", "stub", "matched"])
def test_an_abstract_method_is_unknown_not_empty(make_pkg, method):
    report = audit("pkg.s:Engine", root=make_pkg(
        {"s.py": ABSTRACT.replace("{method}", method)}, ROOTS))
    found = _named(report, method)
    assert found and found[0].verdict is Verdict.UNKNOWN and "abstract" in found[0].why, (
        f"self.scheduler is annotated with an interface whose {method} only raises "
        "NotImplementedError, is `...` or is @abstractmethod (whatever its body's length): which "
        "implementation runs is not in "
        "the code read, so the decision must be UNKNOWN saying the method is abstract, not "
        f"UNIFORM as if it returned nothing; got {found}")


def test_a_method_that_does_nothing_is_not_abstract(make_pkg):
    src = ABSTRACT.replace("{method}", "noop").replace(
        "        def total(self):", "        def noop(self):\n            pass\n\n"
        "        def total(self):")
    report = audit("pkg.s:Engine", root=make_pkg({"s.py": src}, ROOTS))
    found = _named(report, "noop")
    assert found and found[0].verdict is Verdict.UNIFORM, (
        "noop's body is `pass`: a real method returning None on every rank, not an "
        f"interface; the decision must be UNIFORM; got {found}")


IFACE = """
    from abc import ABC, abstractmethod

    class SchedulerInterface(ABC):
        @abstractmethod
        def has_requests(self) -> bool:
            raise NotImplementedError
"""

IMPL = """
    from pkg.iface import SchedulerInterface

    class {base_name}({base}):
        def has_requests(self) -> bool:
            return {body}
"""

ENGINE = """
    from pkg.iface import SchedulerInterface
    from pkg.impl import {imported}

    class Engine:
        def __init__(self):
            self.scheduler: SchedulerInterface = make_scheduler()

        def step(self):
            if self.scheduler.has_requests():
                dist.barrier(group=self.tp_cpu_group)
"""


def _engine(make_pkg, body: str, chain: bool = False):
    impl = IMPL.replace("{base_name}", "Real").replace("{base}", "SchedulerInterface")
    imported = "Real"
    if chain:  # Real stays abstract; Leaf, deriving from Real, implements the method
        impl = impl.replace("        def has_requests(self) -> bool:\n"
                            "            return {body}\n", "        pass\n") + """
    class Leaf(Real):
        def has_requests(self) -> bool:
            return {body}
"""
        imported = "Leaf"
    files = {"iface.py": IFACE, "impl.py": impl.replace("{body}", body),
             "engine.py": ENGINE.replace("{imported}", imported)}
    return make_pkg(files, ROOTS)


@pytest.mark.parametrize("chain", [False, True], ids=["subclass", "subclass of a subclass"])
def test_an_abstract_method_reads_its_implementations(make_pkg, chain):
    report = audit("pkg.engine:Engine", root=_engine(make_pkg, "time.monotonic() > 0", chain))
    found = _named(report, "has_requests")
    assert found and found[0].verdict is Verdict.RANK_LOCAL and "monotonic" in found[0].why, (
        "self.scheduler is a SchedulerInterface; the module imports an implementation whose "
        "has_requests reads a clock: the abstract method is read through that override "
        f"(class hierarchy over the code read), RANK-LOCAL naming time.monotonic; got {found}")
    fixed = audit("pkg.engine:Engine",
                  root=_engine(make_pkg, "self.server_args.ready", chain))
    found = _named(fixed, "has_requests")
    assert found and found[0].verdict is Verdict.UNIFORM, (
        f"the implementation returns configuration: the decision must be UNIFORM; got {found}")


def test_an_implementation_nothing_imports_is_not_found(make_pkg):
    root = _engine(make_pkg, "time.monotonic() > 0")
    engine = root / "pkg" / "engine.py"
    engine.write_text(engine.read_text().replace("from pkg.impl import Real\n", ""))
    report = audit("pkg.engine:Engine", root=root)
    found = _named(report, "has_requests")
    assert found and found[0].verdict is Verdict.UNKNOWN and "abstract" in found[0].why, (
        "no module read imports the implementation: the abstract method stays UNKNOWN "
        f"saying so; got {found}")


def test_a_subclass_added_to_a_searched_module_invalidates_the_cache(make_pkg, tmp_path):
    from deskcheck.uniformity.cache import AuditCache

    root = _engine(make_pkg, "self.server_args.ready")
    extra = root / "pkg" / "extra.py"
    extra.write_text("import time\n\nclass Unrelated:\n    pass\n")
    engine = root / "pkg" / "engine.py"
    engine.write_text(engine.read_text().replace("from pkg.impl import Real\n",
                                                 "from pkg.impl import Real\nimport pkg.extra\n"))
    cache = AuditCache(tmp_path / "c.sqlite")
    first = _named(audit("pkg.engine:Engine", root=root, cache=cache), "has_requests")
    assert first and first[0].verdict is Verdict.UNIFORM, first
    extra.write_text("import time\nfrom pkg.iface import SchedulerInterface\n\n"
                     "class Other(SchedulerInterface):\n    def has_requests(self):\n"
                     "        return time.monotonic() > 0\n")
    again = _named(audit("pkg.engine:Engine", root=root, cache=cache), "has_requests")
    assert again and again[0].verdict is Verdict.RANK_LOCAL, (
        "pkg/extra.py was searched for subclasses (imported, never parsed); after it gains "
        "one reading a clock the cached audit must not be reused: the decision must be "
        f"RANK-LOCAL; got {again}")


ANNOTATED = """
    class Sched:
        def __init__(self):
            self.running: list[Request] = []

        def drop(self):
            self.running = remove_all(self.running, [])

        def step(self):
            if self.running.pop():
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_field_annotated_with_a_builtin_type_has_methods_of_its_own(make_pkg):
    report = audit("pkg.s:Sched", root=make_pkg({"s.py": ANNOTATED}, ROOTS))
    found = _named(report, "pop")
    assert found and "receiver self.running unresolved" not in found[0].why, (
        "self.running is annotated list[Request]: .pop() is the list's own method even where "
        f"a helper rebinds it, not a call on an unresolved receiver; got {found}")


LOCAL_GROUP = """
    class S:
        def step(self):
            group = get_dp_group().device_group
            if self.server_args.cpu_sync:
                group = get_dp_group().cpu_group
            if self.{rank} == 0:
                t = torch.tensor([1])
                dist.all_reduce(t, group=group)
"""

DP_GROUPS = ROOTS + 'groups = { "*get_dp_group()*" = "dp" }\n'


@pytest.mark.parametrize("rank, verdict", [("pp_rank", Verdict.UNIFORM),
                                           ("dp_rank", Verdict.RANK_LOCAL)])
def test_a_local_holding_the_group_is_resolved_to_what_binds_it(make_pkg, rank, verdict):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": LOCAL_GROUP.replace("{rank}", rank)}, DP_GROUPS))
    found = _named(report, rank)
    assert found and found[0].verdict is verdict, (
        "group is get_dp_group()'s device or cpu group on every path, both configured as the "
        f"dp group: the all_reduce runs over dp, where the {rank} decision is "
        f"{verdict.value} (vLLM's DP padding sync, forward_context.py); a local group read as "
        f"WORLD judges it wrongly; got {[(d.condition, d.verdict.value, d.why) for d in found]}")
    assert any(s.dim == "dp" for s in report.sites), (
        f"the site's group must resolve to dp; got {[(s.group, s.dim) for s in report.sites]}")
