"""Inputs are classed relative to the group of the collective they gate (docs/uniformity.md):
pp_rank is CONFIG over TP, a value agreed over PP is RANK-LOCAL over TP, a value reaching a
decision only where tp_size == 1 is TRIVIAL, and a pool's free size is rank-local by default."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.uniformity import InputClass, Verdict, audit

HEAD = """
import torch
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
"""


def _decision(tmp_path: Path, body: str, condition: str):
    package = tmp_path / "mini"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sched.py").write_text(HEAD + textwrap.indent(textwrap.dedent(body), " " * 8))
    report = audit("mini.sched:Scheduler", root=tmp_path)
    found = [d for d in report.decisions if d.condition == condition]
    assert len(found) == 1, (f"expected one decision {condition!r}, the audit found "
                             f"{[d.condition for d in report.decisions]}")
    return found[0]


def test_a_value_agreed_over_pp_is_rank_local_over_tp(tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        t = torch.tensor([len(self.waiting)])
        dist.all_reduce(t, group=self.pp_group)
        if t.item() > 0:
            dist.barrier(group=self.tp_group)
    """, "t.item() > 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"a value agreed over the PP group gating a TP barrier was judged {d.verdict.value} "
        f"({d.why}), expected RANK-LOCAL: agreed over pp is not agreed over tp")
    assert "not over tp" in d.why, f"the reason does not say the group differs: {d.why!r}"


def test_a_value_agreed_over_tp_is_agreed_over_tp(tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        t = torch.tensor([len(self.waiting)])
        dist.all_reduce(t, group=self.tp_group)
        if t.item() > 0:
            dist.barrier(group=self.tp_group)
    """, "t.item() > 0")
    assert d.verdict is Verdict.UNIFORM, (
        f"a value agreed over tp gating a tp barrier was judged {d.verdict.value} ({d.why})")


def test_pp_rank_is_config_within_a_tp_group(tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        if self.pp_rank == 0:
            dist.barrier(group=self.tp_group)
    """, "self.pp_rank == 0")
    classes = {i.name: i.klass for i in d.inputs}
    assert classes.get("self.pp_rank") is InputClass.CONFIG, (
        f"pp_rank gating a TP collective was classed {classes}, expected CONFIG: it is the "
        "same on every rank of a TP group")
    assert d.verdict is Verdict.UNIFORM, f"judged {d.verdict.value} ({d.why}), expected UNIFORM"


def test_tp_rank_is_rank_local_within_a_tp_group(tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        if self.tp_rank == 0:
            dist.barrier(group=self.tp_group)
    """, "self.tp_rank == 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"tp_rank gating a TP barrier was judged {d.verdict.value} ({d.why}), expected "
        "RANK-LOCAL: it differs on every rank of the group")


def test_a_value_reaching_the_decision_only_where_tp_size_is_one_is_trivial(
        tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        limit = 0
        if self.tp_size == 1:
            limit = self.pool.available_size()
        if limit > 0:
            dist.barrier(group=self.tp_group)
    """, "limit > 0")
    assert d.verdict is Verdict.TRIVIAL, (
        f"a pool size read only under `tp_size == 1` was judged {d.verdict.value} ({d.why}), "
        "expected TRIVIAL: it only matters where the tp group has one rank")


def test_a_value_reaching_the_decision_only_where_world_size_is_one_is_trivial_for_any_group(
        tmp_path: Path) -> None:
    """Where the world has one rank every group has one rank: also a group whose dimension
    config names and the built-in dimensions do not (``groups = {"self.sp_group" = "sp"}``)."""
    from deskcheck.uniformity.config import UniformityConfig

    package = tmp_path / "mini"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sched.py").write_text(HEAD + textwrap.indent(textwrap.dedent("""
        limit = 0
        if self.world_size == 1:
            limit = self.pool.available_size()
        if limit > 0:
            dist.barrier(group=self.sp_group)
    """), " " * 8))
    report = audit("mini.sched:Scheduler", root=tmp_path,
                   config=UniformityConfig(groups={"self.sp_group": "sp"}))
    d = next(d for d in report.decisions if d.condition == "limit > 0")
    assert d.verdict is Verdict.TRIVIAL, (
        f"a pool size read only under `world_size == 1` gating a barrier of the configured "
        f"`sp` group was judged {d.verdict.value} ({d.why}), expected TRIVIAL: where the world "
        "has one rank every group has one rank (docs/uniformity.md)")


def test_a_pool_free_size_is_rank_local_by_default(tmp_path: Path) -> None:
    d = _decision(tmp_path, """
        if self.pool.available_size() < 4:
            dist.barrier(group=self.tp_group)
    """, "self.pool.available_size() < 4")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"self.pool.available_size() gating a barrier was judged {d.verdict.value} "
        f"({d.why}), expected RANK-LOCAL: a pool's free size is a per-rank resource size")
    assert "per-rank resource size" in d.why, f"the reason does not name the rule: {d.why!r}"



TWO_CALL_SITES = HEAD.replace("self.step()", "self.step()\n            self.other()") + """\
        busy = self.agree(torch.tensor([len(self.waiting)]), self.pp_group)
        if busy.item() > 0:
            dist.barrier(group=self.tp_group)

    def agree(self, t, group):
        dist.all_reduce(t, group=group)
        return t

    def other(self):
        self.agree(torch.tensor([1]), self.tp_group)
"""


def test_a_value_a_helper_agrees_over_pp_here_and_over_tp_elsewhere_is_rank_local_over_tp(
        tmp_path: Path) -> None:
    """One helper reduces over whichever group its caller passes: over PP where the value gates
    a TP barrier, over TP at another call site. Agreed over PP at the decision, so RANK-LOCAL
    over TP; a TP reduction elsewhere must not make it agreed."""
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(TWO_CALL_SITES)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    (d,) = [d for d in report.decisions if d.condition == "busy.item() > 0"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"a value reduced over the PP group at this call site (the helper reduces over TP "
        f"only at another) gating a TP barrier was judged {d.verdict.value} ({d.why}), "
        "expected RANK-LOCAL: a value agreed over pp is not agreed over tp, and agreed over "
        "pp|tp counts as agreed over tp only when every one of those groups covers tp")


def test_a_decision_is_judged_over_every_group_it_gates_not_the_first(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_rank == 0:
                    dist.barrier(group=self.pp_group)
                    dist.barrier(group=self.tp_group)
    """}, "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n")
    (d,) = audit("pkg.s:S", root=root).find("S.step")
    dims = sorted({c.dim for c in d.collectives})
    assert d.verdict is Verdict.RANK_LOCAL, (
        "docs/uniformity.md: inputs are classed relative to the group of each collective; "
        f"tp_rank is the same across a pp group but differs within the tp group (gated: {dims}), "
        f"so the decision is RANK-LOCAL over tp: the audit said {d.verdict} ({d.why})")
