"""Reads of a value's kind, not its content (docs/uniformity.md "Inputs"): a type test
(``isinstance(x, T)``, ``hasattr(x, "a")``, ``callable(x)``, ``type(x)``) depends on which
value reaches (which object was built, which return ran), not on what the object was built
from; a tensor's placement keywords (``device=``, ``dtype=``) decide no length. And a process
group stored under its membership test (``if rank in ranks: _GROUP = dist.new_group(ranks)``)
is each rank's own group of that kind: the test decides no data. Found on DeepSpeed's
pipeline engine (29 RANK-LOCAL reports, 17 of them through these three mechanisms: the
optimizer built with the expert-parallel group dict read whole by ``hasattr(self.optimizer,
...)``, buffers allocated on ``device=self.device`` read for their existence, the expert
group dict filled under ``if rank in list(ranks)``). Twins keep the content-dependent reads."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

TYPE_TEST = """
    import time


    class Opt:
        def __init__(self, stamp):
            self.stamp = stamp


    class S:
        def __init__(self):
            self.opt = Opt(time.time())

        def step(self):
            if TEST:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("test, verdict", [
    ("hasattr(self.opt, 'reduce')", Verdict.UNIFORM),
    ("isinstance(self.opt, Opt)", Verdict.UNIFORM),
    ("callable(self.opt)", Verdict.UNIFORM),
    ("self.opt.stamp > 5", Verdict.RANK_LOCAL)],
    ids=["hasattr", "isinstance", "callable", "content_twin"])
def test_a_type_test_reads_which_value_reaches_not_its_content(make_pkg, test, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": TYPE_TEST.replace("TEST", test)},
                                            ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"`if {test}`: self.opt is always an Opt built from a clock; a type test reads "
        f"which object is there (UNIFORM), the stamp read its content (RANK-LOCAL): must be "
        f"{verdict.value}; got {d.verdict.value}: {d.why}")


PLACEMENT = """
    import os
    import time

    import torch


    class S:
        def __init__(self):
            self.device = torch.device(f"cuda:{os.getpid() % 8}")

        def step(self):
            buf = torch.zeros(SHAPE, device=self.device, dtype=torch.float16)
            for row in buf:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("shape, verdict", [
    ("4", Verdict.UNIFORM), ("int(time.time())", Verdict.RANK_LOCAL)],
    ids=["config_shape", "clock_shape"])
def test_placement_keywords_decide_no_length(make_pkg, shape, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": PLACEMENT.replace("SHAPE", shape)},
                                            ROOTS))
    d = [d for d in report.decisions if d.kind == "for"][0]
    assert d.verdict is verdict, (
        f"torch.zeros({shape}, device=self.device, dtype=...): the loop's trip count is its "
        f"shape; the device (this rank's process id) decides no length, so it must be "
        f"{verdict.value}; got {d.verdict.value}: {d.why}")


GROUPS = """
    import torch.distributed as dist

    _EP_GROUP = {}


    def build_groups(world_size):
        rank = dist.get_rank()
        for start in range(0, world_size, 2):
            ranks = [start, start + 1]
            VALUE
            if rank in ranks:
                _EP_GROUP["ep"] = group


    class S:
        def step(self):
            build_groups(self.server_args.world_size)
            if _EP_GROUP.get("ep") is not None:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("value, verdict", [
    ("group = dist.new_group(ranks)", Verdict.UNIFORM),
    ("group = list(ranks)", Verdict.RANK_LOCAL)],
    ids=["a_process_group", "a_plain_value_twin"])
def test_a_group_stored_under_its_membership_test_is_no_rank_local_data(make_pkg, value,
                                                                         verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": GROUPS.replace("VALUE", value)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"`{value}` stored in _EP_GROUP under `if rank in ranks`: "
        + ("every rank stores the one process group it belongs to, so the membership test "
           "decides no data (UNIFORM)" if verdict is Verdict.UNIFORM else
           "a plain value stored only on some ranks is rank-local (RANK-LOCAL)")
        + f"; got {d.verdict.value}: {d.why}")


FIELD_GROUPS = """
    import torch.distributed as dist


    class S:
        def __init__(self):
            self.ep_group = None

        def build_groups(self):
            rank = dist.get_rank()
            for start in range(0, self.server_args.world_size, 2):
                ranks = [start, start + 1]
                VALUE
                if rank in ranks:
                    self.ep_group = group

        def step(self):
            self.build_groups()
            if self.ep_group is not None:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("value, verdict", [
    ("group = dist.new_group(ranks)", Verdict.UNIFORM),
    ("group = list(ranks)", Verdict.RANK_LOCAL)],
    ids=["a_process_group", "a_plain_value_twin"])
def test_a_group_field_written_under_its_membership_test(make_pkg, value, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": FIELD_GROUPS.replace("VALUE", value)},
                                            ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"`{value}` stored in self.ep_group under `if rank in ranks` must make `if "
        f"self.ep_group is not None` {verdict.value} (a process group each rank keeps for "
        f"itself decides nothing; a plain value does); got {d.verdict.value}: {d.why}")


TENSOR_READS = """
    import os
    import time

    import torch


    class S:
        def __init__(self):
            self.device = torch.device(f"cuda:{os.getpid() % 8}")

        def step(self):
            t = torch.tensor([time.time()] * 4)
            if READ:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("read, verdict", [
    ("t.numel() > 1", Verdict.UNIFORM),
    ("t.is_floating_point()", Verdict.UNIFORM),
    ("t.to(self.device).sum() > 1", Verdict.RANK_LOCAL),
    ("torch.ones(4).to(self.device).sum() > 1", Verdict.UNIFORM),
    ("torch.zeros(4, device=self.device).sum() > 1", Verdict.UNIFORM),
    ("t.sum() > 1", Verdict.RANK_LOCAL)],
    ids=["numel", "is_floating_point", "moved_content_twin", "moved_constant",
         "placement_in_value",
         "content_twin"])
def test_a_tensor_s_size_and_placement_are_no_content(make_pkg, read, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": TENSOR_READS.replace("READ", read)},
                                            ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"`if {read}`: t holds clock readings in a shape of 4 and self.device is this "
        f"rank's own device: a size or kind read (numel, is_floating_point) and a device "
        f"placement carry no clock (UNIFORM), the content does, wherever it is moved "
        f"(RANK-LOCAL); must be {verdict.value}; got {d.verdict.value}: {d.why}")
