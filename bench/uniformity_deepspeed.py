"""Measure `deskcheck uniformity` on DeepSpeed's pipeline engine (source only; code nobody
here wrote).

Usage: python bench/uniformity_deepspeed.py [DEEPSPEED_SRC]
DEEPSPEED_SRC (the folder holding the ``deepspeed`` package) defaults to /work/_ds: get it
with the library's ``fetch github:microsoft/DeepSpeed`` and ``git archive HEAD deepspeed |
tar -x -C /work/_ds`` (measured at 38327e07f). No DeepSpeed code is committed here.

Target ``deepspeed.runtime.pipe.engine:PipelineEngine``, roots ``train_batch`` and
``eval_batch``, no declarations: the engine runs its schedule through a dispatch table
(``_INSTRUCTION_MAP``), sends and receives activations between stages and all-reduces
gradients, losses and overflow flags over its data- and model-parallel groups. Prints the
counts and every RANK-LOCAL report with the end of its witness; docs/BENCHMARKS.md has the
hand verdicts.
"""

from __future__ import annotations

import sys

from uniformity_common import print_decisions, source_folder, timed_audit

TARGET = "deepspeed.runtime.pipe.engine:PipelineEngine"


def main() -> int:
    src = source_folder("/work/_ds", "deepspeed/runtime/pipe/engine.py",
                        "fetch microsoft/DeepSpeed and extract its deepspeed/ folder there")
    if src is None:
        return 2
    from deskcheck.uniformity.config import UniformityConfig

    report = timed_audit(TARGET, TARGET, root=src, roots_methods=["train_batch", "eval_batch"],
                         config=UniformityConfig(base=src))
    print_decisions(report, src, verdicts=("RANK-LOCAL",), indent="  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
