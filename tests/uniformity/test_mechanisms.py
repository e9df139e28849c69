"""The six precision mechanisms and the false-negative shapes, one fixture each."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import InputClass, Verdict, audit

MIN_CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._all_reduce_min"]
"""


def _only(report, function):
    found = report.find(function)
    assert found, f"no gating decision found in {function}; decisions: " + ", ".join(
        f"{d.function}:{d.line}" for d in report.decisions)
    return found


def test_a_rank_local_value_escaping_only_where_tp_size_is_one_is_trivial(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_size == 1:
                    n = self.pool.available_size()
                else:
                    n = self._all_reduce_min([self.pool.available_size()])[0]
                if n > 0:
                    dist.all_reduce(n, group=self.tp_group)
            def _all_reduce_min(self, vals):
                return vals
    """}, MIN_CFG)
    (d,) = [d for d in _only(audit("pkg.s:S", root=root), "S.step") if d.condition == "n > 0"]
    assert d.verdict is Verdict.TRIVIAL, (
        f"the pool size reaches `n > 0` only where tp_size == 1, expected TRIVIAL, got "
        f"{d.verdict}: {d.why}")
    assert any(i.klass is InputClass.AGREED for i in d.inputs), "the agreed arm was lost"


def test_a_rank_id_is_judged_relative_to_the_collectives_group(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.pp_rank == 0:
                    dist.all_reduce(1, group=self.tp_group)
                if self.tp_rank == 0:
                    dist.all_reduce(2, group=self.tp_group)
    """}, MIN_CFG)
    by_cond = {d.condition: d for d in audit("pkg.s:S", root=root).decisions}
    assert by_cond["self.pp_rank == 0"].verdict is Verdict.UNIFORM, (
        "pp_rank is the same on every rank of a TP group, yet the decision was not UNIFORM")
    assert by_cond["self.tp_rank == 0"].verdict is Verdict.RANK_LOCAL, (
        "tp_rank differs within a TP group, yet the decision was not RANK-LOCAL")


def test_arms_issuing_the_same_collectives_are_symmetric(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self, obj=None):
                if self.tp_rank == 0:
                    dist.broadcast_object_list([obj], src=0, group=self.tp_group)
                else:
                    dist.broadcast_object_list([None], src=0, group=self.tp_group)
                if self.tp_rank == 0:
                    dist.barrier(group=self.tp_group)
    """}, MIN_CFG)
    verdicts = {(d.line, d.verdict) for d in audit("pkg.s:S", root=root).decisions}
    assert any(v is Verdict.SYMMETRIC for _l, v in verdicts), (
        f"root and non-root sides of one broadcast were not SYMMETRIC: {verdicts}")
    assert any(v is Verdict.RANK_LOCAL for _l, v in verdicts), (
        f"a barrier only rank 0 enters must stay RANK-LOCAL: {verdicts}")


def test_leader_roles_declared_or_point_to_point_are_role(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.pp_rank == 0:
                    dist.send(1, dst=1, group=self.pp_group)
                if self.attn_tp_rank == 0:
                    dist.barrier(group=self.tp_group)
    """}, MIN_CFG + """
[[tool.deskcheck.uniformity.role]]
condition = "self.attn_tp_rank == 0"
why = "the leader polls the tokenizer, then broadcasts"
""")
    by_cond = {d.condition: d for d in audit("pkg.s:S", root=root).decisions}
    assert by_cond["self.pp_rank == 0"].verdict is Verdict.ROLE, "p2p leader role not ROLE"
    assert by_cond["self.attn_tp_rank == 0"].verdict is Verdict.ROLE, (
        f"declared role not honoured: {by_cond['self.attn_tp_rank == 0'].why}")


def test_a_containers_length_is_apart_from_its_content(make_pkg):
    root = make_pkg({"s.py": """
        class Entry:
            def __init__(self, req, ts):
                self.req = req
                self.ts = ts

        class S:
            def step(self):
                reqs = self._all_reduce_min(self.incoming)
                for r in reqs:
                    self.queue.append(Entry(r, time.monotonic()))
                    self.arrivals.append(time.monotonic())
                if len(self.queue) > 0:
                    dist.all_reduce(1, group=self.tp_group)
                if len(self.arrivals) > 0:
                    dist.all_reduce(3, group=self.tp_group)
                if self.queue[0].ts > 5:
                    dist.all_reduce(2, group=self.tp_group)
            def _all_reduce_min(self, vals):
                return vals
    """}, MIN_CFG)
    by_cond = {d.condition: d for d in audit("pkg.s:S", root=root).decisions}
    for condition in ("len(self.queue) > 0", "len(self.arrivals) > 0"):
        length = by_cond[condition]
        assert length.verdict is not Verdict.RANK_LOCAL, (
            f"the length of {condition[4:-5]} comes from agreed appends; the timestamp in each "
            f"entry is content, yet the decision was RANK-LOCAL: {length.why}")
    assert by_cond["self.queue[0].ts > 5"].verdict is Verdict.RANK_LOCAL, (
        "a decision on the entries' timestamps (content) must be RANK-LOCAL")


def test_constant_arguments_are_followed_into_the_callee(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.is_idle(for_health_check=True):
                    dist.barrier(group=self.tp_group)
            def other(self):
                if self.is_idle():
                    dist.barrier(group=self.tp_group)
            def is_idle(self, for_health_check=False):
                if for_health_check:
                    return self.server_args.health
                return time.monotonic() - self.last > 5
    """}, MIN_CFG)
    (d,) = _only(audit("pkg.s:S", root=root), "S.step")
    assert d.verdict is Verdict.UNIFORM, (
        f"is_idle(for_health_check=True) never reads the clock, yet: {d.verdict} {d.why}")
    (o,) = _only(audit("pkg.s:S", root=root, roots_methods=["other"]), "S.other")
    assert o.verdict is Verdict.RANK_LOCAL, "the default path reads the clock: RANK-LOCAL expected"


@pytest.mark.parametrize("passed", [True, False], ids=["true", "false"])
def test_a_condition_constant_arguments_decide_is_not_a_decision(make_pkg, passed):
    root = make_pkg({"s.py": f"""
        class S:
            def step(self):
                self.sync(for_health_check={passed})
            def sync(self, for_health_check={not passed}):
                if for_health_check:
                    dist.barrier(group=self.tp_group)
    """}, MIN_CFG)
    found = [f"{d.condition} ({d.verdict.value})"
             for d in audit("pkg.s:S", root=root).find("S.sync")]
    assert found == [], (
        "docs/uniformity.md:198-199: a condition the call's constant arguments decide is not a "
        f"decision in that context, true or false; sync(for_health_check={passed}) makes "
        f"`if for_health_check:` always {str(passed).lower()}, yet S.sync reports the "
        f"decisions {found}")


def test_a_component_built_by_a_factory_is_followed(make_pkg):
    root = make_pkg({"s.py": """
        class Cache:
            def sync(self):
                dist.all_reduce(1, group=self.group)

        def make_cache():
            return Cache()

        class S:
            def __init__(self):
                self.tree_cache = make_cache()
            def step(self):
                if self.tp_rank == 0:
                    self.tree_cache.sync()
    """}, MIN_CFG)
    report = audit("pkg.s:S", root=root)
    assert any(s.function == "Cache.sync" for s in report.sites), (
        "the collective inside a factory-built component was not found")
    (d,) = _only(report, "S.step")
    assert d.verdict is Verdict.RANK_LOCAL, f"expected RANK-LOCAL, got {d.verdict}"


def test_a_callable_held_in_a_dataclass_field_is_followed(make_pkg):
    root = make_pkg({"s.py": """
        from dataclasses import dataclass
        from typing import Callable

        @dataclass
        class Hooks:
            on_pass: Callable

        class S:
            def __init__(self):
                self.hooks = Hooks(on_pass=self._sync)
            def _sync(self):
                dist.all_reduce(1, group=self.tp_group)
            def step(self):
                if time.monotonic() > 3:
                    self.hooks.on_pass()
    """}, MIN_CFG)
    report = audit("pkg.s:S", root=root)
    assert any(s.function == "S._sync" for s in report.sites), (
        "the collective behind a callable in a dataclass field was not found")
    assert [d.verdict for d in report.find("S.step")] == [Verdict.RANK_LOCAL], (
        "a decision gating a collective behind a callable in a dataclass field must be "
        f"RANK-LOCAL; verdicts: {[d.verdict for d in report.find('S.step')]}"
    )


def test_constructor_arguments_are_not_dropped(make_pkg):
    root = make_pkg({"s.py": """
        class Limiter:
            def __init__(self, budget):
                self.budget = budget

        class S:
            def __init__(self):
                self.limiter = Limiter(budget=self.pool.available_size())
            def step(self):
                if self.limiter.budget > 0:
                    dist.all_reduce(1, group=self.tp_group)
    """}, MIN_CFG)
    (d,) = _only(audit("pkg.s:S", root=root), "S.step")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the pool size given to Limiter(budget=...) was dropped: {d.verdict} {d.why}")
    (leaf,) = [i for i in d.inputs if i.klass is InputClass.RANK_LOCAL]
    assert any("Limiter" in w for w in leaf.witness), f"witness lacks the constructor: {leaf.witness}"


def test_an_unresolved_receiver_is_unknown_never_dropped(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def __init__(self, thing):
                self.mystery = thing
            def step(self):
                if self.mystery.value():
                    dist.all_reduce(1, group=self.tp_group)
    """}, MIN_CFG)
    (d,) = _only(audit("pkg.s:S", root=root), "S.step")
    assert d.verdict is Verdict.UNKNOWN, f"expected UNKNOWN, got {d.verdict}: {d.why}"
    assert "self.mystery" in d.why, f"the reason does not name the hop: {d.why}"


def test_classes_and_functions_imported_inside_a_function_are_followed(make_pkg):
    root = make_pkg({"comp.py": """
        class Cache:
            def sync(self):
                dist.all_reduce(1, group=self.group)

        def flush(group):
            dist.barrier(group=group)
    """, "s.py": """
        class S:
            def __init__(self):
                from .comp import Cache
                self.cache = Cache()
            def step(self):
                from pkg.comp import flush
                if self.tp_rank == 0:
                    self.cache.sync()
                if self.pp_rank == 0:
                    flush(self.tp_cpu_group)
    """}, MIN_CFG)
    report = audit("pkg.s:S", root=root)
    assert {s.function for s in report.sites} == {"Cache.sync", "pkg.comp.flush"}, (
        f"locally imported class/function not followed: {[s.function for s in report.sites]}")
    by_cond = {d.condition: d.verdict for d in report.decisions}
    assert by_cond == {"self.tp_rank == 0": Verdict.RANK_LOCAL,
                       "self.pp_rank == 0": Verdict.UNIFORM}, by_cond


def test_a_write_in_a_method_the_roots_never_reach_does_not_feed_a_decision(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def __init__(self):
                self.mode = "steady"
            def step(self):
                if self.mode == "steady":
                    dist.barrier(group=self.tp_group)
            def debug_only(self):
                self.mode = time.monotonic()
    """}, MIN_CFG)
    (d,) = _only(audit("pkg.s:S", root=root), "S.step")
    assert d.verdict is Verdict.UNIFORM, (
        f"debug_only() is never reached from the roots, yet its write fed the decision: {d.why}")
    (o,) = _only(audit("pkg.s:S", root=root, roots_methods=["step", "debug_only"]), "S.step")
    assert o.verdict is Verdict.RANK_LOCAL, "reached from a root, the clock write must count"
