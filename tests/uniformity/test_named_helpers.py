"""Helpers of the project named like a source (docs/uniformity.md, "Helpers named like a
source"): a call a default rank-local rule names (``*get_available_gpu_memory*``,
``*get_num_allocatable*``) that resolves to a function whose body shows its source -- a
collective, a call a default rule names, a declared source -- is read instead; a pattern
configured in ``rank_local`` always stands; a body showing none keeps the rule."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
"""

# a helper whose only call showing a source is the collective: the pool size is this
# rank's own, made agreed by the all-reduce
_COLLECTIVE_ONLY = """
import torch.distributed as dist

class Pool:
    def __init__(self):
        self.free = [1, 2, 3]

def get_num_allocatable(pool, group):
    t = [len(pool.free)]
    dist.all_reduce(t, group=group)
    return t[0]

class S:
    def __init__(self):
        self.pool = Pool()
    def step(self):
        if get_num_allocatable(self.pool, self.tp_group) > 0:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""

_REDUCED_PROBE = """
import torch
import torch.distributed as dist

def get_available_gpu_memory(group=None):
    free, _total = torch.cuda.mem_get_info()
    t = [free]
    dist.all_reduce(t, group=group)
    return t[0]

class S:
    def step(self):
        if get_available_gpu_memory(self.tp_group) > 1:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""


def _decision(root, condition):
    report = audit("pkg.s:S", root=root)
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"no decision `{condition}`; found: " + ", ".join(
        f"`{d.condition}`" for d in report.decisions)
    return found[0]


def _locals(d):
    return sorted(i.name for i in d.inputs if i.klass.value == "RANK-LOCAL")


def test_a_helper_whose_body_shows_only_a_collective_is_read(make_pkg):
    root = make_pkg({"s.py": _COLLECTIVE_ONLY}, CFG)
    d = _decision(root, "get_num_allocatable(self.pool, self.tp_group) > 0")
    assert d.verdict is Verdict.UNIFORM, (
        f"get_num_allocatable's body all-reduces the pool size: a collective in the body "
        f"shows the source, so the body is read instead of the name rule; got "
        f"{d.verdict.value} with rank-local inputs {_locals(d)}")


def test_a_configured_rank_local_pattern_stands_over_the_helpers_body(make_pkg):
    cfg = CFG + 'rank_local = ["*get_available_gpu_memory*"]\n'
    root = make_pkg({"s.py": _REDUCED_PROBE}, cfg)
    d = _decision(root, "get_available_gpu_memory(self.tp_group) > 1")
    assert d.verdict is Verdict.RANK_LOCAL and any(
        "get_available_gpu_memory" in n for n in _locals(d)), (
        f"`rank_local` configures *get_available_gpu_memory*: a pattern the user "
        f"configured always stands, even where the helper's body reduces; expected "
        f"RANK-LOCAL through the helper's call, got {d.verdict.value} with {_locals(d)}")


def test_a_helper_whose_body_reads_only_a_declared_replica_is_read(make_pkg):
    cfg = CFG + """
[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_pools.py::test_pools_are_replicas"
"""
    source = _COLLECTIVE_ONLY.replace(
        "    def step(self):",
        "    def get_num_allocatable_reqs(self):\n        return self.pool.count()\n"
        "    def step(self):").replace(
        "get_num_allocatable(self.pool, self.tp_group) > 0",
        "self.get_num_allocatable_reqs() > 0").replace(
        "        self.free = [1, 2, 3]",
        "        self.free = [1, 2, 3]\n    def count(self):\n        return len(self.free)")
    root = make_pkg({"s.py": source}, cfg)
    d = _decision(root, "self.get_num_allocatable_reqs() > 0")
    assert d.verdict is Verdict.SANCTIONED, (
        f"get_num_allocatable_reqs only reads self.pool.count(), through self.pool declared a "
        f"replica (no call a rule names): the declared source in the body shows where the "
        f"value comes from, so the body is read; got {d.verdict.value} with {_locals(d)}")
