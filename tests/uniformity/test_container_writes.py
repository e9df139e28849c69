"""A local container's content and membership come from what is written into it
(docs/uniformity.md: containers, length and membership apart from content): an item write
(`d[k] = v`) or a mutating call (`xs.append(v)`) carries v's classification to the reads."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

CASES = {
    "item write": """
        class S:
            def step(self):
                sizes = {}
                sizes["free"] = self.pool.available_size()
                if sizes["free"] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """,
    "append": """
        class S:
            def step(self):
                sizes = []
                sizes.append(self.pool.available_size())
                if sizes[0] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """,
    "membership by a guarded item write": """
        class S:
            def step(self):
                picked = {}
                for rid in self.queue:
                    if self.pool.available_size() < 4:
                        continue
                    picked[rid] = 1
                if picked:
                    dist.barrier(group=self.tp_cpu_group)
    """,
}


@pytest.mark.parametrize("shape", sorted(CASES))
def test_a_rank_local_value_written_into_a_local_container_is_rank_local(make_pkg, shape):
    report = audit("pkg.s:S", root=make_pkg({"s.py": CASES[shape]}, ROOTS))
    gating = [d for d in report.decisions if "barrier" not in d.condition]
    assert gating, f"{shape}: the audit found no gating decision at all: {report.decisions}"
    verdicts = {d.condition: (d.verdict.value, d.why) for d in gating}
    assert all(d.verdict is Verdict.RANK_LOCAL for d in gating), (
        f"{shape}: a per-rank pool size written into a local container gates a barrier, so the "
        f"decision must be RANK-LOCAL (the container's content/membership comes from it); "
        f"the audit said {verdicts}")


def test_an_agreed_value_written_into_a_local_container_stays_agreed(make_pkg):
    src = """
        class S:
            def step(self):
                t = torch.tensor([self.pool.available_size()])
                dist.all_reduce(t, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)
                sizes = {}
                sizes["free"] = t.item()
                if sizes["free"] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    verdicts = {d.condition: d.verdict for d in report.decisions}
    assert verdicts.get('sizes["free"] > 0') is Verdict.UNIFORM or \
        verdicts.get("sizes['free'] > 0") is Verdict.UNIFORM, (
        "a value agreed by an all_reduce and written into a local dict is still agreed: the "
        f"decision on it must be UNIFORM, not a false alarm; the audit said {verdicts}")
