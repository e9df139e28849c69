"""A tensor made like another (``torch.zeros_like(x)``, ``ones_like``, ``empty_like``,
``full_like(x, v)``; ``x.new_zeros(n)``, ``new_ones``, ``new_empty``, ``new_full(n, v)``)
takes from ``x`` only its shape and placement, never its content (docs/uniformity.md,
"Inputs"). The audit read ``x`` whole: vLLM's ``in_the_same_node_as`` sums every rank's
broadcast flags into ``aggregated = torch.zeros_like(is_in_the_same_node)``, and the
rank's own flag (``is_in_the_same_node[rank] = 1``) made the agreed node count RANK-LOCAL.
Twins: the shape still reads ``x``'s length, a fill value and a size are still read."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self):
            mine = torch.tensor([time.monotonic()])
            sized = torch.zeros(int(time.monotonic()))
            BODY
            if READ:
                dist.barrier(group=self.tp_group)
"""


def _verdict(make_pkg, body: str, read: str):
    source = SOURCE.replace("BODY", body).replace("READ", read)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    return next(d for d in report.decisions if d.condition == read)


@pytest.mark.parametrize("body, read, why", [
    ("buf = torch.zeros_like(mine)", "buf.sum() > 0",
     "`torch.zeros_like(mine)` holds zeros whatever the rank's clock in `mine` says"),
    ("buf = torch.ones_like(mine, dtype=torch.float64)", "buf.sum() > 0",
     "`torch.ones_like(mine, dtype=...)` holds ones whatever `mine` holds"),
    ("buf = torch.full_like(mine, 7)", "buf.sum() > 0",
     "`torch.full_like(mine, 7)` holds sevens whatever `mine` holds"),
    ("buf = mine.new_zeros(3)", "buf.sum() > 0",
     "`mine.new_zeros(3)` holds three zeros whatever `mine` holds"),
    ("buf = torch.zeros_like(mine)\n            for _ in range(3):\n"
     "                part = mine.clone()\n"
     "                dist.all_reduce(part, group=self.tp_group)\n"
     "                buf += part",
     "buf.sum() > 0",
     "zeros like the rank's own tensor, then only agreed values added (vLLM's "
     "`aggregated_data`)"),
    ("buf = mine.new_zeros(3, device=torch.device('cuda', dist.get_rank() % 8))",
     "buf.sum() > 0", "`mine.new_zeros(3, device=...)` on the rank's own device holds three "
     "zeros (placement is no data)"),
    ("buf = torch.zeros_like(mine, device=torch.device('cuda', dist.get_rank() % 8))",
     "buf.sum() > 0", "`torch.zeros_like(mine, device=...)` on the rank's own device holds "
     "zeros (placement is no data)"),
], ids=["zeros_like", "ones_like_dtype", "full_like_constant", "new_zeros", "summed_agreed",
        "new_zeros_rank_device", "zeros_like_rank_device"])
def test_a_tensor_made_like_another_does_not_read_its_content(make_pkg, body, read, why):
    d = _verdict(make_pkg, body, read)
    assert d.verdict is Verdict.UNIFORM, (
        f"{why}: a tensor made like another takes its shape, not its content, so the "
        f"decision must be UNIFORM; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("body, read, why", [
    ("buf = torch.zeros_like(sized)", "len(buf) > 2",
     "has the length of `sized`, which the rank's clock decides"),
    ("buf = torch.zeros_like(sized)", "buf.sum() > 0",
     "has the shape of `sized`, which the rank's clock decides (the shape is part of the "
     "value)"),
    ("buf = torch.full_like(mine, time.monotonic())", "buf.sum() > 0",
     "is filled with the rank's own clock"),
    ("buf = torch.full_like(mine, fill_value=time.monotonic())", "buf.sum() > 0",
     "is filled (by keyword) with the rank's own clock"),
    ("buf = mine.new_zeros(int(time.monotonic()))", "len(buf) > 2",
     "has a length the rank's clock decides"),
    ("buf = mine.new_full((3,), time.monotonic())", "buf.sum() > 0",
     "is filled with the rank's own clock"),
    ("buf = mine.clone()", "buf.sum() > 0", "is a copy of the rank's own clock"),
], ids=["like_a_local_length", "like_a_local_shape", "full_like_local_fill",
        "full_like_keyword_fill", "new_zeros_local_size", "new_full_local_fill", "clone"])
def test_a_tensor_made_like_another_still_reads_its_shape_and_fill(make_pkg, body, read, why):
    d = _verdict(make_pkg, body, read)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`buf` {why}: the decision must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


FLAGS = """
    import torch

    class S:
        def __init__(self, tp_group, tp_size):
            self.tp_group = tp_group
            self.tp_size = tp_size

        def step(self):
            rank = dist.get_rank(group=self.tp_group)
            flags = BUILD
            if time.monotonic() > 5:
                flags[rank] = 1
            if READ:
                dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("build, read, verdict, why", [
    ("torch.tensor([0] * self.tp_size)", "len(flags) > 1", Verdict.UNIFORM,
     "a tensor of tp_size flags: setting one of its elements at the rank's index keeps its "
     "length"),
    ("[0] * self.tp_size", "len(flags) > 1", Verdict.UNIFORM,
     "a list of tp_size flags: setting one element keeps its length"),
    ("torch.tensor([0] * self.tp_size)", "torch.zeros_like(flags).sum() > 0",
     Verdict.UNIFORM, "zeros shaped like the flags, whose length setting an element keeps"),
    ("{}", "len(flags) > 1", Verdict.RANK_LOCAL,
     "a dict: a key set only when the rank's clock says so adds an entry"),
    ("torch.tensor([0] * self.tp_size)", "flags.sum() > 0", Verdict.RANK_LOCAL,
     "the flags' content: one is set only when the rank's clock says so"),
], ids=["tensor_length", "list_length", "zeros_like_flags", "dict_grows", "content"])
def test_an_element_set_in_a_list_or_tensor_keeps_its_length(make_pkg, build, read, verdict,
                                                              why):
    source = FLAGS.replace("BUILD", build).replace("READ", read)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == read)
    assert d.verdict is verdict, (
        f"`{read}` on {why}: the decision must be {verdict.value}; got {d.verdict.value}: "
        f"{d.why}")
