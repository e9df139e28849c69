"""A ``while`` test is evaluated before every pass, so it reads what the loop body left
behind (docs/uniformity.md "Inputs"): ``go = True; while go: ...; go = clock < deadline``
decides by the clock. And a local container shrunk in place (``pending.remove(x)``,
``pending.pop()``, ``del pending[0]``, ``clear()``) under a condition changes its length
and membership as an append does. Both were silent misses (UNIFORM) found on
DeepSpeed-MII's ragged batching (``while uids_running: ... uids_running.remove(uid)``
under a queue only rank 0 fills). Twins: a body that rebinds from configuration, and
shrinking under configuration, stay UNIFORM."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

WHILE = """
    class S:
        def __init__(self):
            self.deadline = 10.0
            self.limit = 4

        def step(self):
            BEFORE
            while TEST:
                dist.barrier(group=self.tp_cpu_group)
                BODY
"""

REBOUND = [
    ("flag", "go = True", "go", "go = time.monotonic() < self.deadline", Verdict.RANK_LOCAL),
    ("flag_config_twin", "go = True", "go", "go = self.limit > 3", Verdict.UNIFORM),
    ("counter", "i = 0", "i < self.limit", "i += int(time.time()) % 3", Verdict.RANK_LOCAL),
    ("counter_config_twin", "i = 0", "i < self.limit", "i += 1", Verdict.UNIFORM),
    ("under_condition", "go = True", "go",
     "if time.monotonic() > self.deadline:\n                    go = False",
     Verdict.RANK_LOCAL),
    ("under_condition_config_twin", "go = True", "go",
     "if self.limit > 3:\n                    go = False", Verdict.UNIFORM),
    ("walrus", "pass", "(left := time.monotonic()) < self.deadline", "pass",
     Verdict.RANK_LOCAL),
]


@pytest.mark.parametrize("before, test, body, verdict",
                         [r[1:] for r in REBOUND], ids=[r[0] for r in REBOUND])
def test_a_while_test_reads_what_the_body_rebinds(make_pkg, before, test, body, verdict):
    source = WHILE.replace("BEFORE", before).replace("TEST", test).replace("BODY", body)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    loops = [d for d in report.decisions if d.kind == "while"]
    assert loops, f"`while {test}` gates the barrier but is no decision: {report.decisions}"
    d = loops[0]
    assert d.verdict is verdict, (
        f"`{before}; while {test}: barrier; {body.split(chr(10))[-1].strip()}`: the test runs "
        f"before every pass and reads what the body rebinds: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


SHRINK = """
    class S:
        def __init__(self):
            self.deadline = 10.0
            self.limit = 4

        def step(self):
            pending = [1, 2]
            if COND:
                SHRINK
            if pending:
                dist.barrier(group=self.tp_cpu_group)
"""

SHRINKS = {"remove": "pending.remove(1)", "pop": "pending.pop()",
           "pop_as_value": "last = pending.pop()", "del": "del pending[0]",
           "clear": "pending.clear()"}


@pytest.mark.parametrize("shrink", list(SHRINKS.values()), ids=list(SHRINKS))
@pytest.mark.parametrize("cond, verdict", [
    ("time.monotonic() > self.deadline", Verdict.RANK_LOCAL),
    ("self.limit > 3", Verdict.UNIFORM)], ids=["clock", "config_twin"])
def test_a_local_container_shrunk_under_a_condition_depends_on_it(make_pkg, shrink, cond,
                                                                 verdict):
    source = SHRINK.replace("COND", cond).replace("SHRINK", shrink)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.condition == "pending"][0]
    assert d.verdict is verdict, (
        f"`pending = [1, 2]; if {cond}: {shrink}; if pending: barrier`: whether the list is "
        f"empty follows the condition it was shrunk under: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


def test_a_shrink_in_a_while_loop_under_a_poll(make_pkg):
    """MII's shape: ``while uids_running:`` shrinks as results arrive in a queue only the
    leader fills (here a clock stands in for the poll)."""
    source = """
        class S:
            def step(self, uids):
                running = list(uids)
                while running:
                    dist.barrier(group=self.tp_cpu_group)
                    while time.monotonic() % 2 > 1:
                        running.remove(running[0])
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.kind == "while" and "running" in d.condition][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`while running:` whose entries are removed as a clock-driven loop runs: how many "
        f"barriers run is rank-local: must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


ITERATOR = """
    class S:
        def __init__(self):
            self.batch = [1, 2, 3, 4]

        def step(self):
            it = iter(self.batch)
            for _ in range(SKIP):
                next(it)
            for micro_batch in it:
                dist.all_reduce(micro_batch, group=self.tp_group)
"""


@pytest.mark.parametrize("skip, verdict", [("self.tp_rank", Verdict.RANK_LOCAL),
                                           ("self.pp_size", Verdict.UNIFORM)],
                         ids=["skip_by_rank", "skip_by_config_twin"])
def test_next_consumes_a_local_iterator(make_pkg, skip, verdict):
    """nanotron's warm-up: ``next(batch)`` a rank-dependent number of times, then ``for
    micro_batch in batch``: the second loop runs what the first left."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": ITERATOR.replace("SKIP", skip)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "for" and "it" in d.condition
         and "range" not in d.condition][0]
    assert d.verdict is verdict, (
        f"`for _ in range({skip}): next(it)` then `for micro_batch in it:` gating an "
        f"all_reduce: the loop runs what next() left: must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")
