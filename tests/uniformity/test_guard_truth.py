"""A guard is read for its truth, wherever the walk meets it: a write's condition, the
condition that picks which definition or which return reaches. ``if not self.pending`` reads
the list's length, never the timestamps its entries carry (SGLang's decode.py:3048,
``resolve_deferred_releases``: entries hold a ``time.monotonic()`` start time)."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"

# `pending` grows by one entry per step on every rank; each entry carries this rank's clock.
BASE = """
    class S:
        def __init__(self):
            self.pending = []
            self.ready = False

        def step(self):
            self.pending.append((len(self.pending), time.monotonic()))
            self.mark()
            if self.ready:
                dist.barrier(group=self.tp_cpu_group)

        def mark(self):
            GUARD
            self.ready = True
"""


def _decision(root):
    return next(d for d in audit("pkg.s:S", root=root).decisions if d.condition == "self.ready")


def test_a_writes_guard_on_a_container_reads_its_length_not_its_entries(make_pkg):
    root = make_pkg({"s.py": BASE.replace("GUARD", "if not self.pending:\n                return")},
                    CFG)
    d = _decision(root)
    local = [(i.name, i.witness) for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"self.ready is written under `not self.pending`, the list's length (one entry per "
        f"step on every rank), yet the decision was RANK-LOCAL through the entries' "
        f"timestamps: {local}")


def test_a_writes_guard_on_an_entry_still_reads_the_entry(make_pkg):
    """The can-fail twin: the guard reads the newest entry's timestamp."""
    root = make_pkg({"s.py": BASE.replace(
        "GUARD", "if self.pending[-1][1] > 5.0:\n                return")}, CFG)
    d = _decision(root)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"self.ready is written under a test of this rank's clock, yet the decision was "
        f"{d.verdict}: {d.why}")
    assert any("time.monotonic" in i.name for i in d.inputs), (
        f"the rank-local input must be the clock, got {[i.name for i in d.inputs]}")


def test_which_definition_reaches_is_decided_by_the_guards_truth(make_pkg):
    """A local defined in both arms of `if self.pending:`: which definition reaches depends
    on the list's length, not on its entries."""
    root = make_pkg({"s.py": BASE.replace("GUARD", "pass").replace(
        "self.mark()\n", "self.mark()\n            n = 1\n            if self.pending:\n"
        "                n = 2\n            if n > 1:\n"
        "                dist.barrier(group=self.tp_cpu_group)\n")}, CFG)
    d = next(d for d in audit("pkg.s:S", root=root).decisions if d.condition == "n > 1")
    local = [(i.name, i.witness) for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"which value of n reaches depends on `self.pending`'s length only, yet the decision "
        f"was RANK-LOCAL through the entries: {local}")


# SGLang's decode.py:1838 (DecodePreallocQueue.pop_preallocated): the queue keeps the entries
# whose *index* is not in an agreed set; each entry carries this rank's clock.
ENUMERATE = """
    class S:
        def __init__(self):
            self.queue = []

        def step(self):
            self.queue.append((len(self.queue), time.monotonic()))
            drop = dist.broadcast_object_list([set()], group=self.tp_cpu_group)[0]
            self.queue = [e for i, e in enumerate(self.queue) if FILTER]
            if not self.queue:
                dist.barrier(group=self.tp_cpu_group)
"""


def _queue_decision(root):
    return next(d for d in audit("pkg.s:S", root=root).decisions
                if d.condition == "not self.queue")


def test_an_enumerate_index_follows_the_length_not_the_entries(make_pkg):
    root = make_pkg({"s.py": ENUMERATE.replace("FILTER", "i not in drop")}, CFG)
    d = _queue_decision(root)
    local = [(i.name, i.witness) for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"the queue keeps the entries whose index is not in an agreed set: the index counts "
        f"entries, yet the decision was RANK-LOCAL through the entries' timestamps: {local}")


def test_an_enumerated_entry_still_carries_its_content(make_pkg):
    """The can-fail twin: the filter reads the entry's timestamp."""
    root = make_pkg({"s.py": ENUMERATE.replace("FILTER", "e[1] > 5.0")}, CFG)
    d = _queue_decision(root)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the queue keeps the entries whose timestamp passes a test, yet the decision was "
        f"{d.verdict}: {d.why}")
