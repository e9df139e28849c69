"""A method that changes an element of a field's container in place
(``self.result_queues[uid].put_nowait(x)``, ``self.buckets[k].append(x)``) writes that
field's content (docs/uniformity.md "Inputs"): a read of the elements (``q.empty()`` for
each queue, ``self.buckets[k]``) depends on the conditions the call sits under and on what
it puts in. Its length (how many queues there are) does not change. Found on
DeepSpeed-MII's ragged batching: the result queues only rank 0 fills decide when the server
loop leaves its collective loop; the tool said UNIFORM. Twins: the same call under
configuration, and a read of the container's length, stay UNIFORM."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import queue


    class Pipe:
        def __init__(self):
            self.limit = 3
            self.result_queues = {0: queue.Queue()}
            self.buckets = {0: []}

        def step(self):
            dist.all_reduce(self.t, group=self.tp_group)
            if COND:
                MUTATE
            if READ:
                dist.barrier(group=self.tp_group)
"""

MUTATIONS = {
    "queue_put": ("self.result_queues[0].put_nowait('token')",
                  "all(q.empty() for q in self.result_queues.values())"),
    "list_append": ("self.buckets[0].append(1)", "self.buckets[0]"),
}


@pytest.mark.parametrize("mutate, read", list(MUTATIONS.values()), ids=list(MUTATIONS))
@pytest.mark.parametrize("cond, verdict", [
    ("dist.get_rank(group=self.tp_group) == 0", Verdict.RANK_LOCAL),
    ("self.limit > 2", Verdict.UNIFORM)], ids=["rank_zero_only", "config_twin"])
def test_an_element_changed_in_place_is_a_write_of_the_field(make_pkg, mutate, read, cond,
                                                              verdict):
    source = SOURCE.replace("COND", cond).replace("MUTATE", mutate).replace("READ", read)
    report = audit("pkg.s:Pipe", root=make_pkg({"s.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition.replace("((", "(").replace(
        "))", ")") == read]
    assert found, f"`if {read}:` gates the barrier but is no decision: {report.decisions}"
    d = found[0]
    assert d.verdict is verdict, (
        f"`if {cond}: {mutate}` then `if {read}: barrier`: the element changed in place "
        f"holds what the condition let in: must be {verdict.value}; got {d.verdict.value}: "
        f"{d.why}")


def test_an_element_changed_in_place_keeps_the_containers_length(make_pkg):
    source = SOURCE.replace("COND", "dist.get_rank(group=self.tp_group) == 0").replace(
        "MUTATE", "self.result_queues[0].put_nowait('token')").replace(
        "READ", "len(self.result_queues) == 1")
    report = audit("pkg.s:Pipe", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.condition == "len(self.result_queues) == 1"][0]
    assert d.verdict is Verdict.UNIFORM, (
        f"putting into one queue of the dict on rank 0 does not change how many queues "
        f"there are: `len(self.result_queues) == 1` must be UNIFORM; got {d.verdict.value}: "
        f"{d.why}")


def test_an_element_changed_in_place_in_a_helper_is_found(make_pkg):
    """The same put in a helper the loop calls (a body the field scan reads as text first):
    its only field write is `self.result_queues[uid].put_nowait(x)`."""
    source = """
    import queue


    class Pipe:
        def __init__(self):
            self.result_queues = {0: queue.Queue()}

        def deliver(self, x):
            if time.monotonic() > 5:
                self.result_queues[0].put_nowait(x)

        def step(self):
            self.deliver(1)
            if self.result_queues[0].empty():
                dist.barrier(group=self.tp_group)
    """
    report = audit("pkg.s:Pipe", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if "empty" in d.condition][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`deliver` puts into the queue under a clock and is the only writer of its "
        f"content: `if self.result_queues[0].empty()` must be RANK-LOCAL; got "
        f"{d.verdict.value}: {d.why}")
