"""A collective's group resolved through parameters and fields; stage roles whose arms differ
only by point-to-point transfers (shapes found on SGLang's PP mixin)."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


def _verdicts(report):
    return {d.condition: d for d in report.decisions}


def test_a_group_passed_as_a_parameter_is_resolved_at_the_call_site(make_pkg):
    root = make_pkg({"s.py": """
        def _reduce(vals, group):
            dist.all_reduce(vals, group=group)
            return vals

        class S:
            def step(self):
                if self.pp_rank == 0:
                    _reduce([1], self.attn_tp_cpu_group)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["self.pp_rank == 0"]
    assert d.collectives[0].dim == "attn_tp", (
        f"the group parameter was not resolved at its call site: {d.collectives[0]}")
    assert d.verdict is Verdict.UNIFORM, f"pp_rank is uniform over attn_tp: {d.verdict} {d.why}"


def test_a_group_held_in_a_field_is_resolved_through_its_write(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def __init__(self, scheduler):
                self.sync_group = scheduler.tp_cpu_group
            def step(self):
                if self.pp_rank == 0:
                    dist.all_gather_object([], 1, group=self.sync_group)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["self.pp_rank == 0"]
    assert d.collectives[0].dim == "tp", f"the field's group was not resolved: {d.collectives[0]}"
    assert d.verdict is Verdict.UNIFORM, f"{d.verdict} {d.why}"


def test_stage_arms_that_differ_only_by_point_to_point_are_a_role(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_group.is_first_rank:
                    ids = self.local_ids()
                else:
                    prev = self.tp_group.recv_object(src=0)
                    ids = self.local_ids()
                if self.pp_group.is_first_rank:
                    ids = self.local_ids()
                else:
                    prev = self.pp_group.recv_object(src=0)
                    ids = self.local_ids()
            def local_ids(self):
                dist.all_reduce(1, group=self.tp_cpu_group)
                return []
    """}, CFG)
    by_cond = _verdicts(audit("pkg.s:S", root=root))
    d = by_cond["self.tp_group.is_first_rank"]
    assert d.verdict is Verdict.ROLE, (
        f"both arms issue the same TP reduce; only the recv differs: {d.verdict} {d.why}")
    pp = by_cond["self.pp_group.is_first_rank"]
    assert pp.verdict is Verdict.UNIFORM, (
        f"a PP stage test is the same on every rank of the TP reduce it gates: {pp.verdict}")


def test_a_rank_role_reached_through_a_local_gating_p2p_is_a_role(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                last = self.pp_group.is_last_rank
                if not last:
                    self.pp_group.send_object(1, dst=1)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["not last"]
    assert d.verdict is Verdict.ROLE, f"{d.verdict} {d.why}"


def test_a_rank_role_gating_a_group_collective_stays_rank_local(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.pp_group.is_first_rank:
                    dist.all_reduce(1, group=self.pp_cpu_group)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["self.pp_group.is_first_rank"]
    assert d.verdict is Verdict.RANK_LOCAL, f"{d.verdict} {d.why}"


def test_a_lora_rank_is_a_model_dimension_not_a_process_rank(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.model_config.kv_lora_rank > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["self.model_config.kv_lora_rank > 0"]
    assert d.verdict is Verdict.UNIFORM, f"kv_lora_rank read as a rank id: {d.why}"


def test_a_rank_id_gating_a_send_and_a_group_collective_is_rank_local_not_a_role(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_rank == 0:
                    dist.send(1, dst=1, group=self.pp_group)
                    dist.all_reduce(1, group=self.tp_cpu_group)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))["self.tp_rank == 0"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        "docs/uniformity.md:135: ROLE is a rank-id role gating point-to-point ONLY; "
        "`tp_rank == 0` gates a send and a TP all_reduce, so it must be RANK-LOCAL; it is "
        f"{d.verdict.value}: {d.why}")


def test_a_rank_id_and_a_clock_gating_a_send_is_rank_local_not_a_role(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.pp_rank == 0 and time.monotonic() > self.deadline:
                    self.pp_group.send_object(1, dst=1)
    """}, CFG)
    d = _verdicts(audit("pkg.s:S", root=root))[
        "self.pp_rank == 0 and time.monotonic() > self.deadline"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        "docs/uniformity.md: ROLE is a rank-id role gating point-to-point only; a send gated "
        "by a rank id AND this rank's clock is not a role (every rank-local input must be a "
        f"rank id): the audit said {d.verdict} ({d.why})")
