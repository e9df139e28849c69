"""A method called on a parameter (docs/uniformity.md "Calls not entered"): entered when the
parameter's annotation names a class under the roots (``state: BatchState``, also
``Optional[BatchState]`` and a string annotation); otherwise listed as not entered, with
the parameter named, never dropped in silence. Found on nanotron:
``recv_from_pipeline_state_buffer(..., pipeline_state: PipelineBatchState)`` calls
``pipeline_state.run_communication()`` (every training-mode send and receive): nothing
was entered and nothing was listed."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    from typing import Optional


    class BatchState:
        def run_communication(self):
            dist.send(self.buf, dst=1, group=self.pp_group)


    def drain(PARAM):
        pipeline_state.run_communication()


    class Block:
        def __init__(self):
            self.pipeline_state = BatchState()
            self.deadline = 5.0

        def step(self):
            if time.monotonic() > self.deadline:
                drain(self.pipeline_state)
"""


@pytest.mark.parametrize("param", ["pipeline_state: BatchState",
                                   "pipeline_state: Optional[BatchState]",
                                   "pipeline_state: 'BatchState'",
                                   "pipeline_state: BatchState | None"],
                         ids=["plain", "optional", "string", "union_none"])
def test_a_method_of_an_annotated_parameter_is_entered(make_pkg, param):
    report = audit("pkg.s:Block", root=make_pkg({"s.py": SOURCE.replace("PARAM", param)},
                                                ROOTS))
    assert any(s.call == "dist.send" for s in report.sites), (
        f"`def drain({param}): pipeline_state.run_communication()`: the annotation names "
        f"the class, whose method sends: it must be entered (a site); sites: "
        f"{[s.call for s in report.sites]}")
    d = [d for d in report.decisions if "monotonic" in d.condition][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"a clock deciding whether the annotated parameter's send runs must be RANK-LOCAL; "
        f"got {d.verdict.value}: {d.why}")


def test_a_method_of_an_unannotated_parameter_is_listed_as_not_entered(make_pkg):
    report = audit("pkg.s:Block", root=make_pkg({"s.py": SOURCE.replace(
        "PARAM", "pipeline_state")}, ROOTS))
    listed = [n for n in report.not_entered if n.call == "pipeline_state.run_communication"]
    assert listed, (
        f"`pipeline_state.run_communication()` on a parameter of unknown class was entered "
        f"nowhere: it must be listed as not entered; listed: "
        f"{[n.call for n in report.not_entered]}")
    assert "pipeline_state" in listed[0].why and "parameter" in listed[0].why, (
        f"the reason must name the parameter: {listed[0].why!r}")


def test_a_method_of_a_builtin_annotated_parameter_is_not_listed(make_pkg):
    """``items: list`` and ``d: Dict[str, int]``: methods of a builtin value hide no
    collective; they are not listed as not entered, even where a class of ours defines a
    method of that name (``Pool.get``)."""
    source = SOURCE.replace("PARAM", "pipeline_state, items: list, d: dict").replace(
        "    pipeline_state.run_communication()",
        "    items.append(1)\n        d.get('a')").replace(
        "class BatchState:",
        "class Pool:\n        def get(self):\n            return 1\n\n"
        "        def append(self, x):\n            return x\n\n\n    class BatchState:")
    report = audit("pkg.s:Block", root=make_pkg({"s.py": source}, ROOTS))
    assert not [n for n in report.not_entered if n.call in ("items.append", "d.get")], (
        f"methods of builtin-annotated parameters must not be listed: "
        f"{[(n.call, n.why) for n in report.not_entered]}")


def test_a_method_no_class_of_ours_defines_is_not_listed(make_pkg):
    """``t.numel()`` on an unannotated parameter: no class in the code read defines
    ``numel``, so the call cannot run code of ours (a tensor's, a path's): not listed;
    ``state.run_communication()`` beside it still is."""
    source = SOURCE.replace("PARAM", "pipeline_state, t").replace(
        "    pipeline_state.run_communication()",
        "    pipeline_state.run_communication()\n        t.numel()")
    report = audit("pkg.s:Block", root=make_pkg({"s.py": source}, ROOTS))
    calls = [n.call for n in report.not_entered]
    assert "t.numel" not in calls, (
        f"`t.numel()` names no method of a class in the code read: it must not be listed "
        f"as not entered; listed: {calls}")
    assert "pipeline_state.run_communication" in calls, (
        f"`pipeline_state.run_communication()` (a method of BatchState) must stay listed: "
        f"{calls}")


@pytest.mark.parametrize("nest", ["for _ in range(2):\n            ",
                                  "if pipeline_state is not None:\n            ",
                                  "with open('x') as f:\n            "],
                         ids=["in_a_loop", "under_an_if", "in_a_with"])
def test_a_nested_action_on_an_annotated_parameter_is_entered(make_pkg, nest):
    source = SOURCE.replace("PARAM", "pipeline_state: BatchState").replace(
        "    pipeline_state.run_communication()",
        f"    {nest}    pipeline_state.run_communication()")
    report = audit("pkg.s:Block", root=make_pkg({"s.py": source}, ROOTS))
    assert any(s.call == "dist.send" for s in report.sites), (
        f"`{nest.strip()} pipeline_state.run_communication()`: an action nested in a block "
        f"is an action too: it must be entered (a site); sites: "
        f"{[s.call for s in report.sites]}")


def test_a_read_method_of_an_annotated_parameter_is_listed_with_its_known_class(make_pkg):
    """``if pipeline_state.ready():`` (the call's value read) is not entered through the
    annotation (only actions are); it is listed, and the reason says the class is known:
    "no class under the roots" was wrong for SGLang's ``running_batch: ScheduleBatch``."""
    source = SOURCE.replace("PARAM", "pipeline_state: BatchState").replace(
        "    pipeline_state.run_communication()",
        "    if pipeline_state.ready():\n            pipeline_state.run_communication()").replace(
        "class BatchState:", "class BatchState:\n        def ready(self):\n"
        "            return self.buf is not None\n")
    report = audit("pkg.s:Block", root=make_pkg({"s.py": source}, ROOTS))
    listed = [n for n in report.not_entered if n.call == "pipeline_state.ready"]
    assert listed, (
        f"`pipeline_state.ready()`, its value read, is not entered through the annotation: "
        f"it must be listed as not entered; listed {[n.call for n in report.not_entered]}")
    assert "known from the annotation" in listed[0].why \
        and "no class under the roots" not in listed[0].why, (
        f"BatchState is a class under the roots: the reason must say its class is known "
        f"from the annotation (a read is not entered through one), got {listed[0].why!r}")
    assert any(s.call == "dist.send" for s in report.sites), (
        "the action beside it (`pipeline_state.run_communication()`) must still be entered")
