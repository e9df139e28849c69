"""A local reduced in place is agreed at a read only when a reduction runs on every path
from each of its definitions to that read (docs/uniformity.md "Agreed values"). The audit
took any in-place reduction written between the first definition and the read: one under
``if k:`` (the other path keeps the rank's own value), or one before a later definition
that replaces the reduced value (``x = local(); all_reduce(x); if k: x = other()``), made
the read agreed. SGLang's DP gather reduces in one arm and gathers into a view in the other
(``if use_all_reduce: all_reduce(t) else: exchange_rows(t.flatten(), ...)``): agreed on both
arms, and so agreed. Twins: a reduction after every definition, one in each arm of an
``if``/``else``, an arm that exits instead of reducing, and a wrapper that fills a view of
the local (``t.view(-1)``) stay agreed."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import time
    import torch
    import torch.distributed as dist

    def fill_rows(flat, row, group):
        dist.all_gather_into_tensor(flat, row, group=group)

    class S:
        def __init__(self, tp_group, pp_group):
            self.tp_group = tp_group
            self.pp_group = pp_group

        def step(self, k):
            n = torch.tensor([int(time.monotonic())])
            BODY
            if n.item() > 0:
                dist.barrier(group=self.tp_group)
"""

R = "dist.all_reduce(n, group=self.tp_group)"


def _verdict(make_pkg, body: str):
    lines = body.strip("\n").splitlines()
    source = SOURCE.replace("BODY", "\n            ".join(lines))
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    return d


@pytest.mark.parametrize("body, why", [
    (f"if k:\n    {R}", "reduced only when `k` holds: on the other path each rank keeps its "
                        "own clock"),
    (f"{R}\nif k:\n    n = torch.tensor([int(time.monotonic())])",
     "reduced, then replaced by the rank's own clock when `k` holds"),
    (f"for _ in range(k):\n    {R}", "reduced inside a loop that may run no time"),
    (f"if k:\n    {R}\nelse:\n    pass", "reduced in one arm only; the other arm does nothing"),
    (f"if k:\n    {R}\nelse:\n    m = n.flatten()",
     "reduced in one arm; the other only takes a view of it"),
    (f"if k:\n    {R}\nelse:\n    dist.all_reduce(n, group=self.pp_group)",
     "reduced over the TP group in one arm and over the PP group in the other"),
    (f"if k:\n    {R}\nelse:\n    fill_rows(n.clone(), n, self.tp_group)",
     "reduced in one arm; the other gathers into a copy of it (`n.clone()`), not into it"),
    (f"if k:\n    {R}\nelse:\n    {R}\nif k > 1:\n    n = torch.tensor([int(time.monotonic())])",
     "reduced in both arms of an if/else, then replaced by the rank's own clock when "
     "`k > 1`"),
    (f"if k:\n    with torch.no_grad():\n        if k > 1:\n            {R}\nelse:\n    {R}",
     "reduced in one arm only when `k > 1` holds, inside a `with` block"),
], ids=["one_arm", "redefined_after", "loop", "if_else_one_arm", "view_not_reduced",
        "arms_over_two_groups", "gathered_into_a_copy", "both_arms_then_redefined",
        "with_arm_one_path"])
def test_a_reduction_some_path_skips_leaves_the_read_rank_local(make_pkg, body, why):
    d = _verdict(make_pkg, body)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`n` is {why}: a read on that path holds a rank-local value, so the decision "
        f"must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("body, why", [
    (R, "reduced right after its only definition"),
    (f"if k:\n    n = n + 1\n{R}", "reduced after both of its definitions"),
    (f"if k:\n    {R}\nelse:\n    {R}", "reduced in both arms of an if/else"),
    (f"if k:\n    {R}\nelse:\n    raise RuntimeError('no group')",
     "reduced in one arm; the other arm raises and never reaches the read"),
    (f"if k:\n    {R}\nelse:\n    return None",
     "reduced in one arm; the other arm returns and never reaches the read"),
    (f"if k:\n    {R}\nelse:\n    fill_rows(n.view(-1), n.clone(), self.tp_group)",
     "reduced in one arm and gathered into a view of itself in the other"),
    (f"if k:\n    with torch.no_grad():\n        {R}\nelse:\n    {R}",
     "reduced in both arms, in one inside a `with` block"),
    (f"if k:\n    work = {R}\nelse:\n    {R}",
     "reduced in both arms, in one keeping the call's result (`work = all_reduce(...)`)"),
], ids=["after_the_def", "after_both_defs", "both_arms", "other_arm_raises",
        "other_arm_returns", "gathered_into_a_view", "arm_in_a_with", "arm_assigns_the_call"])
def test_a_reduction_on_every_path_keeps_the_read_agreed(make_pkg, body, why):
    d = _verdict(make_pkg, body)
    assert d.verdict is Verdict.UNIFORM, (
        f"`n` is {why}: every path to the read passes an in-place collective over the "
        f"TP group, so the decision must be UNIFORM; got {d.verdict.value}: {d.why}")


SIZED = """
    import time
    import torch
    import torch.distributed as dist

    class S:
        def __init__(self, tp_group, tp_size, pp_size):
            self.tp_group = tp_group
            self.tp_size = tp_size
            self.pp_size = pp_size

        def step(self):
            n = torch.tensor([int(time.monotonic())])
            if SIZE > 1:
                dist.all_reduce(n, group=self.tp_group)
            if n.item() > 0:
                dist.barrier(group=self.tp_group)
"""


def test_a_reduction_skipped_only_where_its_group_has_one_rank_is_trivial(make_pkg):
    """``if self.tp_size > 1: all_reduce(n, tp)``: the path that skips the reduction is
    taken only where the TP group has one rank, where no rank can disagree."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": SIZED.replace("SIZE", "self.tp_size")},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    assert d.verdict is Verdict.TRIVIAL, (
        "`n` is reduced over the TP group unless tp_size == 1, where the TP barrier it gates "
        "has one rank: the clock reaches the decision only there, so it must be TRIVIAL "
        f"(neither UNIFORM, which hides the unreduced path, nor RANK-LOCAL); got "
        f"{d.verdict.value}: {d.why}")


def test_a_reduction_skipped_where_another_group_has_one_rank_stays_rank_local(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": SIZED.replace("SIZE", "self.pp_size")},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`n` is reduced over the TP group only when pp_size > 1: where pp_size == 1 the TP "
        "group may still have many ranks, each with its own clock, so the decision must be "
        f"RANK-LOCAL; got {d.verdict.value}: {d.why}")


FORWARDED = """
    import time
    import torch.distributed as dist

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self, k):
            self.sync(CALL)

        def sync(self, everywhere=True):
            self._sync(everywhere)

        def _sync(self, everywhere):
            if not everywhere:
                if time.monotonic() > 5:
                    dist.barrier(group=self.tp_group)
            dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("call, live", [("", False), ("everywhere=True", False),
                                        ("everywhere=False", True), ("k", True)],
                         ids=["default", "true", "false", "unknown"])
def test_a_constant_passed_on_through_a_parameter_decides_the_callee(make_pkg, call, live):
    """``sync(everywhere=True)`` only passes ``everywhere`` on to ``_sync``, which tests it:
    the constant (a default too) specialises ``_sync``, so its clock decision under
    ``if not everywhere`` is dead code for that call."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": FORWARDED.replace("CALL", call)},
                                            ROOTS + 'config = ["k"]\n'))
    found = [d for d in report.decisions if d.condition == "time.monotonic() > 5"]
    if live:
        assert found and found[0].verdict is Verdict.RANK_LOCAL, (
            f"`sync({call})` may run `_sync` with everywhere false: its clock decision must "
            f"be reported RANK-LOCAL; got {[(d.verdict.value, d.why) for d in found]}")
    else:
        assert not found, (
            f"`sync({call})` passes everywhere=True on to `_sync`, where `if not everywhere:` "
            "is then dead: the clock decision under it must not be reported; got "
            f"{[(d.verdict.value, d.why) for d in found]}")


PER_DEFINITION = """
    import time
    import torch
    import torch.distributed as dist

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self, k):
            if k:
                n = torch.tensor([int(time.monotonic())])
                REDUCE
            else:
                n = torch.zeros(1)
            if n.item() > 0:
                dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("reduce, verdict", [
    ("dist.all_reduce(n, group=self.tp_group)", Verdict.UNIFORM),
    ("pass", Verdict.RANK_LOCAL)], ids=["reduced", "not_reduced"])
def test_each_definition_is_judged_by_the_reductions_after_it(make_pkg, reduce, verdict):
    """``if k: n = clock(); all_reduce(n)`` / ``else: n = torch.zeros(1)``: the clock is
    reduced on every path from its definition, the other definition is a constant: agreed,
    though no one reduction follows both definitions."""
    source = PER_DEFINITION.replace("REDUCE", reduce)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS + 'config = ["k"]\n'))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    assert d.verdict is verdict, (
        f"with `{reduce}` after the clock's definition in its arm, the decision must be "
        f"{verdict.value} (each definition judged by the reductions that follow it); got "
        f"{d.verdict.value}: {d.why}")


def test_a_parameter_rebound_before_it_is_passed_on_is_not_specialised(make_pkg):
    source = FORWARDED.replace("CALL", "").replace(
        "            self._sync(everywhere)",
        "            everywhere = time.monotonic() > 3\n            self._sync(everywhere)")
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == "time.monotonic() > 5"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "`sync` binds `everywhere` again (from the clock) before passing it on: its default "
        "True is not what `_sync` gets, so the clock decision under `if not everywhere:` "
        f"must be reported RANK-LOCAL; got {[(d.verdict.value, d.why) for d in found]}")


WRAPPED = """
    import time
    import torch
    import torch.distributed as dist

    class S:
        def __init__(self, tp_group, tp_size):
            self.tp_group = tp_group
            self.tp_size = tp_size

        def _reduce(self, t, k):
            BODY

        def step(self, k):
            n = torch.tensor([int(time.monotonic())])
            self._reduce(n, k)
            if n.item() > 0:
                dist.barrier(group=self.tp_group)
"""
TP = "dist.all_reduce(t, group=self.tp_group)"


@pytest.mark.parametrize("body, verdict, why", [
    (TP, Verdict.UNIFORM, "reduces its parameter on its only way through"),
    (f"if k:\n    {TP}\n    return\n{TP}", Verdict.UNIFORM,
     "reduces it before its early return and again at its end"),
    (f"if k:\n    {TP}", Verdict.RANK_LOCAL, "reduces it only when `k` holds"),
    (f"if k:\n    return\n{TP}", Verdict.RANK_LOCAL, "may return before reducing it"),
    (f"for _ in range(k):\n    {TP}", Verdict.RANK_LOCAL, "reduces it in a loop that may not run"),
    (f"if self.tp_size > 1:\n    {TP}", Verdict.TRIVIAL,
     "skips the reduction only where the TP group has one rank"),
    (f"if self.tp_group is None or self.tp_size == 1:\n    pass\nelse:\n    {TP}",
     Verdict.TRIVIAL, "skips the reduction only where its TP group is absent or has one rank"),
    (f"if self.tp_group is None or time.monotonic() > 3:\n    pass\nelse:\n    {TP}",
     Verdict.RANK_LOCAL, "skips the reduction when its clock says so"),
    (f"if self.tp_group is None or self.tp_size == 1:\n    return\n{TP}",
     Verdict.TRIVIAL, "returns before the reduction only where its TP group is absent or "
     "has one rank"),
    (f"with torch.no_grad():\n    {TP}", Verdict.UNIFORM,
     "reduces it inside a `with` block on its only way through"),
    (f"return {TP}", Verdict.UNIFORM, "returns the result of reducing it"),
    (f"with torch.no_grad():\n    if k:\n        return\n    {TP}", Verdict.RANK_LOCAL,
     "may return from inside a `with` block before reducing it"),
], ids=["always", "early_return_after", "one_arm", "early_return_before", "loop",
        "single_rank_skip", "absent_group_skip", "clock_skip", "absent_group_return",
        "inside_a_with", "returns_the_reduction", "with_returns_first"])
def test_a_wrapper_reduces_its_parameter_only_on_every_way_through_it(make_pkg, body, verdict,
                                                                      why):
    lines = body.strip("\n").splitlines()
    source = WRAPPED.replace("BODY", "\n            ".join(lines))
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS + 'config = ["k"]\n'))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    assert d.verdict is verdict, (
        f"the wrapper `_reduce` {why}: the caller's read of `n` after it must make the "
        f"decision {verdict.value}; got {d.verdict.value}: {d.why}")


def test_a_local_reduction_skipped_only_where_its_group_is_absent_is_trivial(make_pkg):
    """The caller's own ``if self.tp_group is not None and self.tp_size > 1: all_reduce(n,
    group=self.tp_group)``: where it is skipped the TP group is absent or has one rank."""
    source = SIZED.replace("if SIZE > 1:",
                           "if self.tp_group is not None and self.tp_size > 1:")
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "n.item() > 0")
    assert d.verdict is Verdict.TRIVIAL, (
        "`n` is reduced over the TP group unless the group is absent or has one rank: the "
        f"clock reaches the TP barrier only there, so it must be TRIVIAL; got "
        f"{d.verdict.value}: {d.why}")
