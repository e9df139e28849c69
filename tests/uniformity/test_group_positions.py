"""A torch.distributed collective's group is the argument at the position its signature gives
it (docs/uniformity.md "Collective sites"): ``all_gather_into_tensor(out, inp, group)``,
``reduce(t, dst, op, group)``, ``all_to_all_single(out, inp, out_splits, in_splits,
group)``, ``barrier(group)``; a call that passes none runs over the default group. An
argument merely named like a group is not one: DeepSpeed's
``dist.all_gather_into_tensor(group_flat, partitioned_params[partition_id],
dp_process_group[group_id])`` was read as running over ``group_flat`` (a flat tensor of a
parameter group), so an overflow flag agreed over the DP group was "not agreed over world"
(a false RANK-LOCAL)."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch
    import torch.distributed._functional_collectives as funcol

    class S:
        def __init__(self, dp_group, tp_group):
            self.dp_group = dp_group
            self.tp_group = tp_group

        def step(self, group_flat, part, tp_group_norm):
            flag = torch.zeros(1)
            dist.all_reduce(flag, group=AGREED_OVER)
            if flag.item():
                CALL
"""

# (id, the call, the group expression it runs over, its dimension)
CALLS = [
    ("all_gather_into_tensor", "dist.all_gather_into_tensor(group_flat, part, self.dp_group)",
     "self.dp_group", "dp"),
    ("all_gather", "dist.all_gather(group_flat, part, self.dp_group)", "self.dp_group", "dp"),
    ("reduce", "dist.reduce(part, 0, dist.ReduceOp.SUM, self.dp_group)", "self.dp_group", "dp"),
    ("all_to_all_single", "dist.all_to_all_single(group_flat, part, None, None, self.dp_group)",
     "self.dp_group", "dp"),
    ("barrier", "dist.barrier(self.dp_group)", "self.dp_group", "dp"),
    ("functional", "funcol.all_reduce(part, 'sum', self.dp_group)", "self.dp_group", "dp"),
    ("functional_all_to_all_single",
     "funcol.all_to_all_single(part, None, None, self.dp_group)", "self.dp_group", "dp"),
    ("no_group_passed", "dist.all_reduce(tp_group_norm)", "WORLD", "world"),
    ("keyword", "dist.all_gather(group_flat, part, group=self.dp_group)", "self.dp_group", "dp"),
]


def _audit(make_pkg, call: str, agreed_over: str = "self.dp_group"):
    source = SOURCE.replace("CALL", call).replace("AGREED_OVER", agreed_over)
    return audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))


@pytest.mark.parametrize("call, group, dim", [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_the_group_is_the_argument_at_its_signature_position(make_pkg, call, group, dim):
    report = _audit(make_pkg, call)
    name = call.split("(", 1)[0]
    sites = [s for s in report.sites if s.call == name]
    assert sites, f"`{call}` is no collective site: {[s.call for s in report.sites]}"
    site = max(sites, key=lambda s: s.line)  # the call under the `if` (not the flag's reduce)
    assert (site.group, site.dim) == (group, dim), (
        f"`{call}` runs over {group} ({dim}: the argument at the group's position in the "
        f"signature, or the default group when none is passed); read as {site.group} "
        f"({site.dim})")


def test_a_flag_agreed_over_the_group_a_positional_group_names_is_uniform(make_pkg):
    report = _audit(make_pkg, CALLS[0][1])
    d = next(d for d in report.decisions if d.condition == "flag.item()")
    assert d.verdict is Verdict.UNIFORM, (
        "`if flag.item(): dist.all_gather_into_tensor(group_flat, part, self.dp_group)` with "
        "`flag` all-reduced over self.dp_group: the gather runs over the DP group, whose ranks "
        f"agree on the flag: must be UNIFORM; got {d.verdict.value}: {d.why}")


def test_a_tensor_named_like_a_group_is_no_group(make_pkg):
    report = _audit(make_pkg, "dist.all_reduce(tp_group_norm)", agreed_over="self.tp_group")
    d = next(d for d in report.decisions if d.condition == "flag.item()")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`dist.all_reduce(tp_group_norm)` passes no group (a tensor named like one): it runs "
        "over the whole world, and a flag agreed over the TP group alone can differ between "
        f"TP groups: must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


BARE = """
    from outside import broadcast

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self):
            ready = time.monotonic() > 5
            broadcast(ready, "GROUP group")
            if ready:
                dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("group, verdict", [("tp", Verdict.UNIFORM), ("dp", Verdict.RANK_LOCAL)],
                         ids=["tp", "dp"])
def test_a_bare_call_named_like_a_collective_reduces_over_the_group_an_argument_names(
        make_pkg, group, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": BARE.replace("GROUP", group)}, ROOTS))
    d = next(d for d in report.decisions if d.condition == "ready")
    assert d.verdict is verdict, (
        f"`broadcast(ready, \"{group} group\")`, a call only named like a collective (not "
        f"torch's: its positions are not torch's), is read as agreeing `ready` over the group "
        f"its argument names ({group}); gating a barrier over the TP group it must be "
        f"{verdict.value}; got {d.verdict.value}: {d.why}")


KEYWORD = """
    import torch

    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self, out):
            flag = torch.tensor([time.monotonic()])
            REDUCE
            if flag.item() > 3:
                dist.barrier(group=self.tp_group)
"""


@pytest.mark.parametrize("reduce", [
    "dist.all_reduce(tensor=flag, op=dist.ReduceOp.MAX, group=self.tp_group)",
    "dist.broadcast(tensor=flag, src=0, group=self.tp_group)",
    "dist.all_gather(tensor_list=flag, tensor=out, group=self.tp_group)",
], ids=["all_reduce", "broadcast", "all_gather"])
def test_the_tensor_written_in_place_may_be_passed_by_name(make_pkg, reduce):
    report = audit("pkg.s:S", root=make_pkg({"s.py": KEYWORD.replace("REDUCE", reduce)},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == "flag.item() > 3")
    assert d.verdict is Verdict.UNIFORM, (
        f"`{reduce}` writes `flag` in place (the collective's first parameter, passed by its "
        f"name): the TP group agrees on it, so the barrier's decision must be UNIFORM; got "
        f"{d.verdict.value}: {d.why}")


def test_a_tensor_passed_by_name_as_the_input_is_not_written(make_pkg):
    reduce = "dist.all_gather(tensor_list=out, tensor=flag, group=self.tp_group)"
    report = audit("pkg.s:S", root=make_pkg({"s.py": KEYWORD.replace("REDUCE", reduce)},
                                            ROOTS))
    d = next(d for d in report.decisions if d.condition == "flag.item() > 3")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`{reduce}` gathers `flag` into `out`; `flag` itself is this rank's clock still: "
        f"must be RANK-LOCAL; got {d.verdict.value}: {d.why}")
