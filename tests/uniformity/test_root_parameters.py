"""A root method's parameters come from callers outside the code read (docs/uniformity.md
"Inputs"): verl's ``DataParallelPPOActor.update_policy(data)`` splits each DP rank's own
shard into micro-batches whose count gates the backward's collectives. The audit took such
a parameter as agreed with no input listed (UNIFORM); it is UNKNOWN now, naming the
parameter, unless a declaration names it."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

SOURCE = """
    class Worker:
        def __init__(self, dp_group):
            self.dp_group = dp_group

        def step(self, data):
            for micro_batch in data.split(4):
                dist.all_reduce(micro_batch, group=self.dp_group)
"""


def _loop(make_pkg, pyproject: str):
    report = audit("pkg.w:Worker", root=make_pkg({"w.py": SOURCE}, pyproject))
    return next(d for d in report.decisions if d.kind == "for")


def test_a_root_parameter_is_unknown_and_named(make_pkg):
    d = _loop(make_pkg, '[tool.deskcheck.uniformity]\nroots = ["step"]\n')
    assert d.verdict is Verdict.UNKNOWN, (
        "`for micro_batch in data.split(4)` in the root `step(self, data)`: what callers "
        "outside the code read pass as `data` is unknown, so the loop must be UNKNOWN, not "
        f"taken as agreed; got {d.verdict.value}: {d.why}")
    assert "parameter 'data' of the root Worker.step" in d.why, (
        f"the UNKNOWN must name the root's parameter it could not follow; got {d.why}")


def test_a_declared_root_parameter_is_what_the_declaration_says(make_pkg):
    d = _loop(make_pkg, '[tool.deskcheck.uniformity]\nroots = ["step"]\nconfig = ["data"]\n')
    assert d.verdict is Verdict.UNIFORM, (
        "`config = [\"data\"]` declares the root's parameter replicated configuration: the "
        f"loop must be UNIFORM; got {d.verdict.value}: {d.why}")
