"""A communication buffer held in a field (``self.buf``) that a collective writes in place is
agreed where it is read after it: ``self.buf.fill_(n); dist.all_reduce(self.buf, op=MAX);
m = self.buf.item()`` (docs/uniformity.md "Inputs"). Found on lightllm's DP backend
(``_dp_all_reduce_decode_req_num``): only locals were followed through an in-place
collective, so `if max_decode_num != 0` was UNKNOWN ("call on an unresolved receiver").
The collective must run before the read on every path, and nothing may write the buffer
between them; each twin breaks one of those and must stay unresolved or rank-local. Another
method stores a clock in the buffer too (``_reset``): only the collective before the read
makes that read agreed, whatever else the field holds elsewhere."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SRC = """
    import time

    import torch
    import torch.distributed as dist


    class S:
        def __init__(self):
            self.buf = torch.tensor([0])
            self.other = torch.tensor([0])
            self.flag = CONFIG_FLAG

        def _reset(self):
            self.buf = torch.tensor([int(time.time())])

        def _count(self):
            self.buf.fill_(int(time.time()))
            BODY
            return n

        def step(self):
            self._reset()
            n = self._count()
            if n != 0:
                dist.barrier(group=self.tp_cpu_group)
"""

# (body between the fill and the return, agreed?)
SHAPES = {
    "the buffer reduced in place, then read": (
        "dist.all_reduce(self.buf, op=dist.ReduceOp.MAX)\n            n = self.buf.item()",
        True),
    "the buffer gathered into, then read": (
        "dist.all_gather_into_tensor(self.buf, self.other)\n            n = self.buf.tolist()",
        True),
    "the buffer read as an item": (
        "dist.all_reduce(self.buf)\n            n = self.buf[0]", True),
    "read before the collective": (
        "n = self.buf.item()\n            dist.all_reduce(self.buf)", False),
    "the collective under a branch the read is not in": (
        "if self.flag:\n                dist.all_reduce(self.buf)\n            n = self.buf.item()",
        False),
    "refilled between the collective and the read": (
        "dist.all_reduce(self.buf)\n            self.buf.fill_(int(time.time()))\n"
        "            n = self.buf.item()", False),
    "reassigned between the collective and the read": (
        "dist.all_reduce(self.buf)\n            self.buf = torch.tensor([int(time.time())])\n"
        "            n = self.buf.item()", False),
    "handed to another call between": (
        "dist.all_reduce(self.buf)\n            torch.add(self.buf, 1, out=self.buf)\n"
        "            n = self.buf.item()", False),
    "another buffer reduced": (
        "dist.all_reduce(self.other)\n            n = self.buf.item()", False),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_a_field_buffer_written_in_place_by_a_collective_is_agreed(make_pkg, shape):
    body, agreed = SHAPES[shape]
    src = "\n    CONFIG_FLAG = True\n" + SRC.replace("BODY", body)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if" and "n != 0" in d.condition][0]
    if agreed:
        assert d.verdict is Verdict.UNIFORM, (
            f"{shape}: the collective writes self.buf in place before the read on every "
            f"path, so `if n != 0` is UNIFORM (agreed over the group); got "
            f"{d.verdict.value}: {d.why}")
    else:
        assert d.verdict is not Verdict.UNIFORM, (
            f"{shape}: the read does not see only what the collective wrote into self.buf "
            f"(read first, a branch, a write between, or another buffer): `if n != 0` "
            f"must not be UNIFORM; got {d.verdict.value}: {d.why}")


IN_PLACE = """
    import time

    import torch


    class S:
        def __init__(self):
            self.buf = torch.zeros(4)
            self.other = torch.zeros(4)

        def step(self):
            self.FIELD.METHOD(SOURCE)
            if self.buf[0] > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("field, method, source, verdict", [
    ("buf", "fill_", "time.time()", Verdict.RANK_LOCAL),
    ("buf", "copy_", "torch.rand(4)", Verdict.RANK_LOCAL),
    ("buf", "masked_fill_", "mask, time.time()", Verdict.RANK_LOCAL),
    ("other", "fill_", "time.time()", Verdict.UNIFORM),
    ("buf", "fill_", "CONFIG_FLAG", Verdict.UNIFORM)])
def test_a_tensor_s_in_place_method_writes_its_field(make_pkg, field, method, source,
                                                       verdict):
    src = "\n    CONFIG_FLAG = 1\n" + IN_PLACE.replace("FIELD", field).replace(
        "METHOD", method).replace("SOURCE", source)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"self.{field}.{method}({source}) writes self.{field} in place (torch's trailing "
        f"underscore): `if self.buf[0] > 5` must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


GATHER = """
    import time

    import torch
    import torch.distributed as dist


    class Gather:
        def __init__(self, val, size, group=None):
            BODY

        async def async_wait(self):
            self.worker.wait()
            return self.all_vals


    class S:
        async def step(self):
            n = time.time()
            g = Gather(n, 4, group=GROUP)
            vals = await g.async_wait()
            if vals.max() > 5:
                dist.barrier(group=self.tp_cpu_group)
"""

_WRITE = "self.all_vals = torch.tensor([val] * size)"
_GATHER = ("self.worker = dist.all_gather_into_tensor(self.all_vals, "
           "self.all_vals.new_tensor([val]), group=group, async_op=True)")
# (constructor body, group passed, agreed?) — lmdeploy's DistGatherScalar: the constructor
# gathers into its field, async_wait() returns it
GATHERS = {
    "the constructor gathers into the field it wrote": (
        f"{_WRITE}\n            {_GATHER}", "self.tp_cpu_group", True),
    "the write under a branch, the gather after it": (
        f"if size:\n                {_WRITE}\n            {_GATHER}", "self.tp_cpu_group", True),
    "gathered over another group than the barrier's": (
        f"{_WRITE}\n            {_GATHER}", "self.pp_group", False),
    "the gather before the write": (
        f"self.all_vals = torch.zeros(size)\n            {_GATHER}\n            {_WRITE}",
        "self.tp_cpu_group", False),
    "the gather under a branch the write is not in": (
        f"{_WRITE}\n            if size > 8:\n                {_GATHER}", "self.tp_cpu_group",
        False),
    "written through out= after the gather": (
        f"{_WRITE}\n            {_GATHER}\n"
        "            torch.mul(self.all_vals, val, out=self.all_vals)",
        "self.tp_cpu_group", False),
}


@pytest.mark.parametrize("shape", sorted(GATHERS), ids=_ids(GATHERS))
def test_a_field_a_collective_overwrites_in_place_after_its_write_is_agreed(make_pkg, shape):
    body, group, agreed = GATHERS[shape]
    src = GATHER.replace("BODY", body).replace("GROUP", group)
    roots = '[tool.deskcheck.uniformity]\nroots = ["step"]\n' \
        '[tool.deskcheck.uniformity.groups]\n"self.tp_cpu_group" = "tp"\n"self.pp_group" = "pp"\n'
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, roots))
    d = [d for d in report.decisions if d.kind == "if"][0]
    if agreed:
        assert d.verdict is Verdict.UNIFORM, (
            f"{shape}: the constructor's all_gather_into_tensor overwrites self.all_vals in "
            f"place after it is written (whenever it is written), so what async_wait() "
            f"returns is agreed over the TP group: `if vals.max() > 5` must be UNIFORM; got "
            f"{d.verdict.value}: {d.why}")
    else:
        assert d.verdict is Verdict.RANK_LOCAL, (
            f"{shape}: what async_wait() returns is not (only) what a collective over the "
            f"barrier's group made (another group, or a write the gather does not follow "
            f"every time): `if vals.max() > 5` must be RANK-LOCAL (the local clock n); got "
            f"{d.verdict.value}: {d.why}")


LOCAL_OBJECT = """
    import time

    import torch.distributed as dist


    class Syncer:
        def __init__(self, group):
            self.group = group

        def sync(self):
            if time.time() > 5:
                dist.barrier(group=self.group)


    class S:
        def step(self):
            s = Syncer(self.tp_cpu_group)
            s.sync()
"""


def test_a_method_called_on_a_local_object_is_entered(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": LOCAL_OBJECT}, ROOTS))
    found = [d for d in report.decisions if d.function == "Syncer.sync"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "s = Syncer(...); s.sync(): the walk must enter Syncer.sync (the local holds a "
        "Syncer), find its barrier and the clock deciding it (RANK-LOCAL); got decisions "
        f"{[(d.function, d.condition, d.verdict.value) for d in report.decisions]}")


KEYWORD_WRAPPER = """
    import time

    import torch
    import torch.distributed as dist


    class S:
        def _reduce_max(self, tensor, op=None):
            dist.all_reduce(tensor, op=op, group=self.tp_cpu_group)

        def step(self):
            t = torch.tensor([time.time()])
            CALL
            if t.item() > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("call, verdict", [
    ("self._reduce_max(tensor=t, op=dist.ReduceOp.MAX)", Verdict.UNIFORM),
    ("self._reduce_max(t, op=dist.ReduceOp.MAX)", Verdict.UNIFORM),
    ("self._reduce_max(tensor=torch.zeros(1))", Verdict.RANK_LOCAL)],
    ids=["by_keyword", "by_position", "another_tensor"])
def test_a_wrapper_reducing_its_parameter_in_place_by_keyword(make_pkg, call, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": KEYWORD_WRAPPER.replace("CALL", call)},
                                            ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"`{call}`: _reduce_max all-reduces its `tensor` parameter in place over the TP "
        f"group (DeepSpeed's `self._model_parallel_all_reduce(tensor=overflow_gpu, ...)`), "
        f"so `if t.item() > 5` must be {verdict.value} whether t is passed by keyword or "
        f"by position (RANK-LOCAL when another tensor is reduced); got {d.verdict.value}: "
        f"{d.why}")
