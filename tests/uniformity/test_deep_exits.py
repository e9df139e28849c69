"""Every condition an early exit sits under decides whether the collective after it runs,
however deep (docs/uniformity.md "Decisions": "the conditions that exit sits under"). An
``elif`` chain nests one level per test, so verl's checkpoint manager
(``if self.rank == 0:`` around ``if ...: elif ...: elif ...: else: raise
NotImplementedError``, then ``dist.barrier()``) lost the rank test once the chain had three
tests: only two outer conditions of an exit were kept. Rank 0 raising leaves the others in
the barrier. Twins: the same chain under a configuration test holds."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    class Worker:
        def __init__(self, arch, strict):
            self.rank = dist.get_rank()
            self.arch = arch
            self.strict = strict

        def step(self):
            if OUTER:
                CHAIN
                else:
                    raise NotImplementedError(self.arch)
            dist.barrier()
"""


def _chain(tests: int) -> str:
    lines = []
    for i in range(tests):
        lines.append(f"{'if' if i == 0 else 'elif'} 'arch{i}' in self.arch:")
        lines.append(f"    kind = {i}")
    return "\n                ".join(lines)


@pytest.mark.parametrize("tests", [1, 2, 3, 6], ids=["one", "two", "three", "six"])
def test_the_rank_test_around_a_long_elif_chain_decides_the_exit(make_pkg, tests):
    source = SOURCE.replace("OUTER", "self.rank == 0").replace("CHAIN", _chain(tests))
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == "self.rank == 0"]
    assert found, (
        f"`if self.rank == 0:` holds an elif chain of {tests} test(s) whose else raises before "
        f"`dist.barrier()`: the rank test decides whether rank 0 reaches the barrier, but it "
        f"is no decision: {[(d.condition, d.verdict.value) for d in report.decisions]}")
    assert found[0].verdict is Verdict.RANK_LOCAL, (
        f"rank 0 alone may raise before the barrier: must be RANK-LOCAL; got "
        f"{found[0].verdict.value}: {found[0].why}")


def test_the_same_chain_under_configuration_holds(make_pkg):
    source = SOURCE.replace("OUTER", "self.strict").replace("CHAIN", _chain(3))
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    bad = [(d.condition, d.verdict.value) for d in report.decisions
           if d.verdict is Verdict.RANK_LOCAL]
    assert not bad, f"every test of the chain and around it is configuration: {bad}"
    assert any(d.condition == "self.strict" for d in report.decisions), (
        "`if self.strict:` decides whether the raise can leave before the barrier: it must be "
        f"a decision: {[d.condition for d in report.decisions]}")


ASSERTED = """
    import torch

    class Worker:
        def __init__(self, group):
            self.group = group
            self.limit = 3
            self.pending = []

        def step(self):
            t = torch.zeros(1)
            if time.monotonic() > 5:
                self.pending.append(1)
            assert TEST, "too many pending"
            dist.all_reduce(t, group=self.group)
"""


@pytest.mark.parametrize("test, verdict", [
    ("len(self.pending) < self.limit", Verdict.RANK_LOCAL),
    ("time.monotonic() > 0", Verdict.RANK_LOCAL),
    ("self.limit > 2", Verdict.UNIFORM),
], ids=["local_length", "clock", "config_twin"])
def test_an_assert_before_a_collective_is_an_exit(make_pkg, test, verdict):
    source = ASSERTED.replace("TEST", test)
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == test]
    assert found and found[0].kind == "exit", (
        f"`assert {test}` raises on the ranks where it fails, before the all_reduce: it is "
        f"`if not ({test}): raise` and must be an exit decision: "
        f"{[(d.condition, d.kind) for d in report.decisions]}")
    assert found[0].verdict is verdict, (
        f"`assert {test}` must be {verdict.value}; got {found[0].verdict.value}: "
        f"{found[0].why}")


LOOP = """
    class Worker:
        def __init__(self, arch):
            self.rank = dist.get_rank()
            self.arch = arch

        def step(self, reqs):
            for r in reqs:
                dist.barrier()
                if self.rank == 0:
                    CHAIN
                    else:
                        break
"""


def test_the_rank_test_around_a_long_elif_chain_decides_a_break(make_pkg):
    source = LOOP.replace("CHAIN", _chain(4).replace("\n                ",
                                                     "\n                    "))
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == "self.rank == 0"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "`if self.rank == 0:` around a four-test elif chain whose else breaks out of the loop: "
        "rank 0 alone may leave before the barrier of the next pass: the rank test must be a "
        f"RANK-LOCAL decision: {[(d.condition, d.verdict.value) for d in report.decisions]}")


CHOSEN = """
    class Worker:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.dp_size = 2
            self.elastic = False

        def step(self, inbox):
            batch = inbox.get_nowait()
            n = self.dp_size
            if len(batch) == 0:
                tokens = 0
            else:
                tokens = len(batch)
                if tokens > 8:
                    raise ValueError(tokens)
            if self.elastic:
                n = self.dp_size + 1
            if n == 1:
                dist.barrier(group=self.tp_group)
            return tokens
"""


def test_an_exit_the_read_is_past_chooses_no_value(make_pkg):
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": CHOSEN}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "n == 1")
    assert d.verdict is Verdict.UNIFORM, (
        "`n` is `self.dp_size`, or `self.dp_size + 1` when `self.elastic`: configuration "
        "either way; the raise in the batch's else arm exits before both the second "
        "definition and the read, so it chooses no value of `n`: `if n == 1` must be "
        f"UNIFORM; got {d.verdict.value}: {d.why}")


SINGLE = """
    class Worker:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.tp_size = 2
            self.verbose = True

        def step(self, inbox):
            polls = inbox.get_nowait()
            if OUTER:
                assert polls is not None
                return polls
            dist.barrier(group=self.tp_group)
            return polls
"""


@pytest.mark.parametrize("outer, verdict", [("self.tp_size <= 1", Verdict.TRIVIAL),
                                            ("self.verbose", Verdict.RANK_LOCAL)],
                         ids=["one_rank", "config_twin"])
def test_an_exit_taken_only_where_the_group_has_one_rank_is_trivial(make_pkg, outer, verdict):
    source = SINGLE.replace("OUTER", outer)
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "polls is not None")
    assert d.verdict is verdict, (
        f"`if {outer}: assert polls is not None; return polls` before a TP barrier: the assert "
        f"can fail only inside that `if`; must be {verdict.value}; got {d.verdict.value}: "
        f"{d.why}")


AFTER_ASSERT = """
    class Worker:
        def __init__(self, tp_group):
            self.tp_group = tp_group
            self.tp_size = 1

        def step(self):
            assert self.tp_size == 1, "this path runs one TP rank"
            if time.monotonic() > 5:
                dist.barrier(group=self.tp_group)
"""


def test_code_after_an_assert_runs_where_its_test_holds(make_pkg):
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": AFTER_ASSERT}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "time.monotonic() > 5")
    assert d.verdict is Verdict.TRIVIAL, (
        "past `assert self.tp_size == 1` the TP group has one rank (the code runs only where "
        "the assert's test holds), so the clock gating the TP barrier is TRIVIAL; got "
        f"{d.verdict.value}: {d.why}")


TWO_EXITS = """
    class Worker:
        def __init__(self, pp_group, flag):
            self.pp_group = pp_group
            self.pp_size = 2
            self.flag = flag

        def step(self):
            if self.pp_size <= 1:
                if self.flag:
                    return
            if time.monotonic() > 5:
                return
            dist.barrier(group=self.pp_group)
"""


def test_a_single_rank_condition_of_another_exit_proves_nothing(make_pkg):
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": TWO_EXITS}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "time.monotonic() > 5")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`if time.monotonic() > 5: return` before the PP barrier sits under no single-rank "
        "condition (the `pp_size <= 1` above belongs to another exit): must be RANK-LOCAL; "
        f"got {d.verdict.value}: {d.why}")
