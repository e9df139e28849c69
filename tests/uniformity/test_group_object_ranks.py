"""A rank id read off a group object (``self.rank_in_group`` inside a method of the group's
own class, ``group.rank_in_group`` of a group passed in) is the rank in *that* group, whose
dimension is the receiver's or the argument's at each call site (docs/uniformity.md
"Relative to the collective's group"). Found on vLLM's GPU worker: inside
``GroupCoordinator.recv_tensor_dict``, called as ``get_pp_group().recv_tensor_dict(...)``,
``self.rank_in_group`` (the PP stage) was taken for a rank id of the world, so it "differed
within an EP group" it is constant over. Twins: the same reads on a TP group gating a TP
collective stay RANK-LOCAL."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    class Coordinator:
        def __init__(self, ranks):
            self.ranks = ranks
            self.rank_in_group = ranks.index(dist.get_rank())

        def is_sender(self):
            return self.rank_in_group == 0

        def sync_if_first(self, group):
            if self.rank_in_group == 0:
                dist.barrier(group=group)

        def recv_tensor_dict(self, src=None):
            if src is None:
                src = self.rank_in_group - 1
            return {"src": src}


    def first_of(group):
        return group.rank_in_group == 0


    class S:
        def __init__(self, pp_ranks, tp_ranks):
            self.pp_group = Coordinator(pp_ranks)
            self.tp_group = Coordinator(tp_ranks)
            self.tp_cpu_group = dist.new_group(tp_ranks)

        def step(self):
            if CONDITION:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("condition, verdict, why", [
    ("self.pp_group.is_sender()", Verdict.UNIFORM,
     "`self.rank_in_group` inside Coordinator.is_sender, called on self.pp_group, is the PP "
     "stage: the same on every rank of a TP group"),
    ("first_of(self.pp_group)", Verdict.UNIFORM,
     "`group.rank_in_group` of the PP group passed to first_of is the PP stage: the same on "
     "every rank of a TP group"),
    ("self.tp_group.is_sender()", Verdict.RANK_LOCAL,
     "`self.rank_in_group` inside Coordinator.is_sender, called on self.tp_group, is the "
     "rank in the TP group: it differs between the TP ranks the barrier waits for"),
    ("first_of(self.tp_group)", Verdict.RANK_LOCAL,
     "`group.rank_in_group` of the TP group passed to first_of differs between the TP ranks"),
    ("self.pp_group.recv_tensor_dict()['src'] > 0", Verdict.UNIFORM,
     "recv_tensor_dict (a point-to-point site, entered only for its value) reads "
     "`self.rank_in_group` of the PP group it is called on: the PP stage, the same on every "
     "rank of a TP group"),
    ("self.tp_group.recv_tensor_dict()['src'] > 0", Verdict.RANK_LOCAL,
     "recv_tensor_dict called on the TP group reads the rank in the TP group"),
], ids=["method_on_pp", "argument_pp", "method_on_tp", "argument_tp", "p2p_method_on_pp",
        "p2p_method_on_tp"])
def test_a_rank_read_off_a_group_object_is_the_rank_in_that_group(make_pkg, condition,
                                                                  verdict, why):
    report = audit("pkg.s:S", root=make_pkg({"s.py": SOURCE.replace("CONDITION", condition)},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == condition)
    assert d.verdict is verdict, (
        f"{why}: `if {condition}:` gating a TP barrier must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why} {[(i.name, i.reason) for i in d.inputs]}")


@pytest.mark.parametrize("receiver, verdict", [
    ("self.pp_group", Verdict.UNIFORM), ("self.tp_group", Verdict.RANK_LOCAL),
], ids=["called_on_pp", "called_on_tp"])
def test_a_decision_inside_the_group_s_method_reads_the_rank_in_the_receiver_s_group(
        make_pkg, receiver, verdict):
    call = f"{receiver}.sync_if_first(self.tp_cpu_group)"
    text = SOURCE.replace("if CONDITION:\n                dist.barrier(group=self.tp_cpu_group)",
                          call)
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "self.rank_in_group == 0")
    assert d.verdict is verdict, (
        f"Coordinator.sync_if_first, called as {call}, tests `self.rank_in_group` before a "
        f"TP barrier: the rank in the group of {receiver} (every call's receiver), so the "
        f"decision must be {verdict.value}; got {d.verdict.value}: {d.why} "
        f"{[(i.name, i.reason) for i in d.inputs]}")


def test_a_bound_rank_names_its_group(make_pkg):
    condition = "self.tp_group.recv_tensor_dict()['src'] > 0"
    report = audit("pkg.s:S", root=make_pkg({"s.py": SOURCE.replace("CONDITION", condition)},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == condition)
    reasons = [i.reason for i in d.inputs if i.name == "self.rank_in_group"]
    assert reasons and reasons[0].startswith("rank id of the tp group"), (
        "recv_tensor_dict called on self.tp_group reads the rank in the TP group: the input's "
        "reason must name the group bound at the call (rank id of the tp group), not a "
        f"parameter marker or 'the group passed as self'; got {reasons}")
