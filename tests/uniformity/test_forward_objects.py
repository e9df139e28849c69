"""A forward pass's argument that is an object of ours is read for the sizes it was built
from (docs/uniformity.md "Where it stops" lifted; ``deskcheck/uniformity/shapes.py``):
lightllm's backends build ``ModelInput(batch_size=b_seq_len.shape[0], input_ids=...)`` in a
helper, unpack it (``model_input, run_reqs = prepare_decode_inputs(decode_reqs)``) and hand
it to ``self.model.forward(model_input)``; the shape decision had no input at all (an object
exists on every rank). The walk follows locals, tuple positions, ternaries and returns to the
construction, then reads its arguments for their length. Twins: sizes from configuration, a
class with ``__len__`` (read by its length already), placement keywords."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = ('[tool.deskcheck.uniformity]\nroots = ["step"]\n'
         'forward = [{ call = "self.model.forward", group = "self.tp_cpu_group" }]\n')

HEAD = """
    import os
    import time
    from dataclasses import dataclass

    import torch


    @dataclass
    class ModelInput:
        batch_size: int
        input_ids: object
        device: object = None


    def prepare(reqs):
        ids = [r for r in reqs]
        return ModelInput(batch_size=len(ids), input_ids=torch.tensor(ids)), ids
"""

SHAPES = {
    "unpacked from a helper's return (lightllm)": ("""
            mi, _run = prepare(reqs)
            self.model.forward(mi)""", Verdict.RANK_LOCAL),
    "built here": ("""
            mi = ModelInput(batch_size=len(reqs), input_ids=None)
            self.model.forward(mi)""", Verdict.RANK_LOCAL),
    "either side of a ternary": ("""
            mi = ModelInput(batch_size=len(reqs), input_ids=None) if reqs else ModelInput(1, None)
            self.model.forward(mi)""", Verdict.RANK_LOCAL),
    "the else arm of a ternary on configuration": ("""
            mi = ModelInput(4, None) if self.server_args.fixed else ModelInput(len(reqs), None)
            self.model.forward(mi)""", Verdict.RANK_LOCAL),
    "passed as the call's own argument": ("""
            self.model.forward(ModelInput(batch_size=len(reqs), input_ids=None))""",
                                          Verdict.RANK_LOCAL),
    "sizes from configuration (twin)": ("""
            mi = ModelInput(batch_size=self.server_args.max_bs, input_ids=None)
            self.model.forward(mi)""", Verdict.UNIFORM),
    "a placement keyword only (twin)": ("""
            mi = ModelInput(batch_size=4, input_ids=None, device=f"cuda:{os.getpid() % 8}")
            self.model.forward(mi)""", Verdict.UNIFORM),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_a_forward_s_object_argument_is_read_for_the_sizes_it_was_built_from(make_pkg,
                                                                             shape):
    body, verdict = SHAPES[shape]
    src = HEAD + f"""

    class S:
        def step(self):
            reqs = [r for r in self.queue if r.deadline > time.time()]{body}
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if d.kind == "shape"]
    assert found, [(d.kind, d.condition) for d in report.decisions]
    d = found[0]
    assert d.verdict is verdict, (
        f"{shape}: the forward runs at the shape ModelInput was built with "
        + ("(a batch of the requests a clock admitted: RANK-LOCAL)"
           if verdict is Verdict.RANK_LOCAL else
           "(configuration sizes; a device is no size: UNIFORM)")
        + f"; got {d.verdict.value}: {d.why}")
