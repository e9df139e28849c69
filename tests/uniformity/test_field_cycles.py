"""Fields written under conditions that read each other (SGLang's scheduler state machine,
"mechanism 7"): each member of the cycle is judged by its own paths, not the cycle's union."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
"""

# `queue` is popped under a readiness check that reads `queue`'s head; the readiness check
# polls a rank-local event, but that poll reaches its answer only where the TP group has one
# rank (else a MIN all-reduce decides). The single-rank path runs through the cycle.
CYCLE = """
class S:
    def step(self):
        while True:
            if len(self.queue) < 2:
                self.queue.append(self.make())
            if self.last:
                head = self.queue[0]
                if not self.is_ready(head):
                    continue
                self.queue.popleft()
            self.last = len(self.queue) > 0
            if self.queue:
                dist.all_reduce(1, group=self.tp_group)

    def make(self):
        return object()

    def is_ready(self, item):
        state = 0
        if item.pending is not None:
            state = 2 if item.pending.query() else 1
        if self.tp_size > 1:
            flag = torch.tensor([state])
            dist.all_reduce(flag, op=dist.ReduceOp.MIN, group=self.tp_group)
            state = flag.item()
        return state == 2
"""


def test_a_single_rank_path_through_a_cycle_of_field_writes_stays_single_rank(make_pkg):
    root = make_pkg({"s.py": "import torch\n" + CYCLE}, CFG)
    report = audit("pkg.s:S", root=root)
    (d,) = [d for d in report.decisions if d.condition == "self.queue"]
    local = [i.name for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"the event poll reaches `self.queue` only where tp_size == 1 (every other path goes "
        f"through the MIN all-reduce), yet the decision was RANK-LOCAL through the cycle of "
        f"field writes: {local}; {d.why}")


def test_a_rank_local_source_inside_the_cycle_still_reaches_every_member(make_pkg):
    """The fixpoint loses nothing: a poll read on every path taints the whole cycle."""
    root = make_pkg({"s.py": "import torch\n" + CYCLE.replace(
        "        return state == 2", "        return item.pending.query()")}, CFG)
    report = audit("pkg.s:S", root=root)
    (d,) = [d for d in report.decisions if d.condition == "self.queue"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the readiness check returns a rank-local poll on every path, and `self.queue` is "
        f"popped under it, yet `if self.queue` was {d.verdict}: {d.why}")


def _large_cycle(fields: int, body: str = CYCLE) -> str:
    """The cycle above, widened by a ring of ``fields`` fields, each written under a condition
    on the next, the ring closed through ``self.last`` and ``self.queue``: one strongly
    connected component of several thousand walk keys (SGLang's scheduler state has 7,162)."""
    ring = "".join(f"            if self.f{(i + 1) % fields} and self.last:\n"
                   f"                self.f{i} = len(self.queue) + {i}\n" for i in range(fields))
    return body.replace("            self.last = len(self.queue) > 0\n",
                        "            self.last = len(self.queue) > 0 and self.f0\n" + ring)


def test_a_cycle_of_thousands_of_values_keeps_its_single_rank_paths(make_pkg):
    """The fixpoint scales: a cycle far larger than the old 1000-key limit (which gave every
    member the cycle's union, single-rank marks dropped) is still solved member by member."""
    root = make_pkg({"s.py": "import torch\n" + _large_cycle(600)}, CFG)
    report = audit("pkg.s:S", root=root)
    (d,) = [d for d in report.decisions if d.condition == "self.queue"]
    local = [i.name for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"the event poll reaches `self.queue` only where tp_size == 1, yet in a cycle of 600 "
        f"ring fields the decision was RANK-LOCAL (the cycle's union): {local}; {d.why}")


def test_a_rank_local_source_in_a_cycle_of_thousands_of_values_reaches_every_member(make_pkg):
    """The can-fail twin: the same ring with the poll on every path: every decision on the
    cycle's state is RANK-LOCAL, with a witness that ends at the poll."""
    body = CYCLE.replace("        return state == 2", "        return item.pending.query()")
    root = make_pkg({"s.py": "import torch\n" + _large_cycle(600, body)}, CFG)
    report = audit("pkg.s:S", root=root)
    (d,) = [d for d in report.decisions if d.condition == "self.queue"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the readiness check returns a rank-local poll on every path, yet `if self.queue` in "
        f"the 600-field cycle was {d.verdict}: {d.why}")
    poll = next(i for i in d.inputs if i.klass.value == "RANK-LOCAL")
    assert poll.witness and "query" in poll.witness[-1] or len(poll.witness) == 24, (
        f"the witness through the cycle must end at the poll it names: {poll.witness}")
