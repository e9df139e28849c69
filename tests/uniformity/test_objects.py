"""An object is not the union of its constructor arguments: its existence, its fields
(constructor keywords, writes in its class), and ``cls(...)`` in a classmethod factory."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"

SRC = {"s.py": """
    class Cache:
        def __init__(self, rank):
            self.rank = rank

    class Batch:
        @classmethod
        def init_new(cls, reqs, cache):
            return cls(reqs=reqs, cache=cache)

        def __init__(self, reqs, cache):
            self.reqs = reqs
            self.cache = cache
            self.mode = "extend"

    class S:
        def __init__(self):
            self.tree_cache = Cache(rank=self.tp_rank)

        def agreed_reqs(self):
            return dist.broadcast_object_list([self.inbox], group=self.tp_cpu_group)

        def step(self):
            batch = Batch.init_new(self.agreed_reqs(), self.tree_cache)
            if batch is not None:
                dist.barrier(group=self.tp_cpu_group)
            if batch.mode == "extend":
                dist.barrier(group=self.tp_cpu_group)
            if len(batch.reqs) > 0:
                dist.barrier(group=self.tp_cpu_group)
            if batch.cache.rank == 0:
                dist.barrier(group=self.tp_cpu_group)
"""}


def test_an_objects_existence_and_fields_are_traced_apart(make_pkg):
    root = make_pkg(SRC, CFG)
    by_cond = {d.condition: d for d in audit("pkg.s:S", root=root).decisions}
    for condition in ("batch is not None", "batch.mode == 'extend'", "len(batch.reqs) > 0"):
        d = by_cond[condition]
        assert d.verdict is Verdict.UNIFORM, (
            f"`{condition}` does not read the cache's rank given to its constructor, yet: "
            f"{d.verdict} {d.why}")
    assert by_cond["batch.cache.rank == 0"].verdict is Verdict.RANK_LOCAL, (
        "the rank given to the cache's constructor must reach `batch.cache.rank == 0`")


def test_a_components_field_read_through_a_local_alias_is_that_field(make_pkg):
    root = make_pkg({"s.py": """
        class Tree:
            def __init__(self, rank):
                self.rank = rank
                self.pending = []
            def start(self, item):
                self.pending.append(item)

        def make_tree(rank):
            return Tree(rank)

        class S:
            def __init__(self):
                self.tree_cache = make_tree(self.tp_rank)
                self.worker = Worker(seed=self.tp_rank)

            def step(self):
                tc = self.tree_cache
                if len(tc.pending) == 0:
                    dist.barrier(group=self.tp_cpu_group)
                if self.worker is not None:
                    dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    by_cond = {d.condition: d for d in audit("pkg.s:S", root=root).decisions}
    d = by_cond["len(tc.pending) == 0"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"the length of tree_cache.pending does not depend on the rank the tree was built "
        f"with: {d.why}")
    w = by_cond["self.worker is not None"]
    assert w.verdict is not Verdict.RANK_LOCAL, (
        f"an object built by an unresolved constructor exists on every rank: {w.why}")
