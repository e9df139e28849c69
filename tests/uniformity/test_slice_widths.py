"""A rank's own shard of a common width has the same length on every rank
(docs/uniformity.md, "What the audit follows": containers): ``x[rank * w:(rank + 1) * w]``
or ``x[start:start + w]`` reads ``x``'s length and ``w``, not the offset. verl's sequence-parallel actor loops over its shard of a sequence
split evenly across the SP group, all-reducing each row: the audit read the rank in the
slice's bounds as the loop's trip count (a false RANK-LOCAL). Twins: a width that is itself
rank-local (a clock, ``x[r:r * 2]``) and an open end stay as the bounds say."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\nconfig = ["self.n", "self.sp_size"]\n'

SOURCE = """
    import time
    import torch
    import torch.distributed as dist

    class Worker:
        def __init__(self, sp_group, n, sp_size):
            self.sp_group = sp_group
            self.n = n
            self.sp_size = sp_size

        def step(self):
            x = torch.zeros(self.n * self.sp_size)
            rank = dist.get_rank(group=self.sp_group)
            parts = x.size(0) // self.sp_size
            mine = SLICE
            for row in mine:
                dist.all_reduce(row, group=self.sp_group)
"""


def _decision(make_pkg, part: str):
    report = audit("pkg.w:Worker",
                   root=make_pkg({"w.py": SOURCE.replace("SLICE", part)}, ROOTS))
    return next(d for d in report.decisions if d.kind == "for")


@pytest.mark.parametrize("part", [
    "x[rank * parts:(rank + 1) * parts]", "x[parts * rank:parts * (rank + 1)]",
    "x[rank * parts:(1 + rank) * parts]", "x[rank:rank + parts]", "x[rank:parts + rank]",
], ids=["rank_times_width", "width_times_rank", "one_plus_rank", "offset_plus_width",
        "width_plus_offset"])
def test_a_shard_of_a_common_width_has_an_agreed_length(make_pkg, part):
    d = _decision(make_pkg, part)
    assert d.verdict is Verdict.UNIFORM, (
        f"`{part}` is each rank's own shard of width `parts` (configuration): the loop "
        f"over it runs as many times on every rank, so the decision must be UNIFORM; got "
        f"{d.verdict.value}: {d.why}")


@pytest.mark.parametrize("part, why", [
    ("x[rank * parts:(rank + 1) * int(time.monotonic())]", "its upper factor is a clock"),
    ("x[rank:rank + int(time.monotonic())]", "its width is a clock"),
    ("x[rank:rank * 2]", "its width is the rank itself"),
    ("x[rank:]", "it runs from the rank to the end"),
    ("x[rank:parts + 1]", "it runs from the rank to a common index"),
    ("x[rank * parts:(parts + 1) * parts]", "it runs from the rank's offset to a common one"),
], ids=["clock_factor", "clock_width", "rank_width", "open_end", "common_end",
        "common_upper_factor"])
def test_other_slices_read_their_bounds(make_pkg, part, why):
    d = _decision(make_pkg, part)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`{part}`: {why}, so how many rows it holds may differ between ranks: the "
        f"decision must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


OBJECTS = """
    import torch
    import torch.distributed as dist

    class Worker:
        def __init__(self, sp_group, n, sp_size):
            self.sp_group = sp_group
            self.n = n
            self.sp_size = sp_size

        def step(self):
            x = torch.zeros(self.n * self.sp_size, 4)
            rank = dist.get_rank(group=self.sp_group)
            parts = x.size(0) // self.sp_size
            slc = [slice(None)] * 2
            slc[0] = PART
            mine = INDEXED
            for row in mine:
                dist.all_reduce(row, group=self.sp_group)
"""


@pytest.mark.parametrize("part, indexed, verdict", [
    ("slice(rank * parts, (rank + 1) * parts)", "x[tuple(slc)].contiguous()", Verdict.UNIFORM),
    ("slice(rank * parts, (rank + 1) * parts)", "x[tuple(slc)]", Verdict.UNIFORM),
    ("None", "x[rank * parts:(rank + 1) * parts, :]", Verdict.UNIFORM),
    ("slice(rank, None)", "x[tuple(slc)]", Verdict.RANK_LOCAL),
    ("slice(rank, rank * 2)", "x[tuple(slc)]", Verdict.RANK_LOCAL),
    ("None", "x[rank:, :]", Verdict.RANK_LOCAL),
], ids=["slice_object_shard", "slice_object_plain", "tuple_index_shard", "slice_object_open",
        "slice_object_rank_width", "tuple_index_open"])
def test_a_shard_built_as_a_slice_object_or_tuple_index_reads_its_width(make_pkg, part,
                                                                       indexed, verdict):
    """verl's ``slc[dim] = slice(sp_rank * parts, (sp_rank + 1) * parts); x[tuple(slc)]``
    (``verl/utils/ulysses.py``) and ``x[r * w:(r + 1) * w, :]`` select a common width too."""
    source = OBJECTS.replace("PART", part).replace("INDEXED", indexed)
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.kind == "for")
    assert d.verdict is verdict, (
        f"`slc[0] = {part}`, `mine = {indexed}`: the loop over `mine` must be "
        f"{verdict.value} (a shard of the common width `parts` is UNIFORM; a slice from the "
        f"rank's offset to the end, or of the rank's own width, RANK-LOCAL); got "
        f"{d.verdict.value}: {d.why}")


@pytest.mark.parametrize("indexed", ["x[rank * parts:(rank + 1) * parts, :]", "x[tuple(slc)]"],
                         ids=["tuple_index", "slice_object"])
def test_a_shards_content_still_reads_its_offset(make_pkg, indexed):
    """Only the length of a shard of a common width is the same on every rank: what it
    holds is the rank's own rows, so a decision on its content reads the offset."""
    source = OBJECTS.replace("PART", "slice(rank * parts, (rank + 1) * parts)").replace(
        "INDEXED", indexed).replace(
        "            for row in mine:\n                dist.all_reduce(row, group=self.sp_group)",
        "            if mine.sum() > 0:\n                dist.barrier(group=self.sp_group)")
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "mine.sum() > 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`mine = {indexed}` holds this rank's own rows: a decision on their sum reads the "
        f"rank's offset and must be RANK-LOCAL (only the shard's length is common); got "
        f"{d.verdict.value}: {d.why}")
