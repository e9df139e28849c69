"""Measure `deskcheck uniformity` on nanotron's pipeline engines and trainer (source only;
code nobody here wrote).

Usage: python bench/uniformity_nanotron.py [NANOTRON_SRC]
NANOTRON_SRC (the folder holding the ``nanotron`` package) defaults to /work/_nt/src: get it
with the library's ``fetch github:huggingface/nanotron`` and ``git archive HEAD src | tar -x
-C /work/_nt`` (measured at 2411b022). No nanotron code is committed here.

Six targets, with the declarations of bench/nanotron_uniformity.toml: the one-forward-
one-backward engine (``OneForwardOneBackwardPipelineEngine.train_batch_iter``: a warm-up of
``pp_size - pp_rank - 1`` forwards, then 1F1B, then the cool-down backwards, sending
activations and gradients between stages), the all-forward-all-backward engine (its
``train_batch_iter`` and the inherited ``validate_batch_iter``), and the trainer
(``DistributedTrainer.train``: the step loop, gradient all-reduce over DP, clipping over the
model-parallel group, the loss all-reduce over DP-CP, logging and checkpoint barriers), and
what the engines reach only through the model's forward and autograd, audited from its own
entry points: ``PipelineBlock.forward`` (a stage that does not own the block sends its
inputs, the owner receives them: TensorPointer / P2P batch_isend_irecv) and the two pipeline
states' ``run_communication`` (the queued sends and receives of activations and gradients).
nanotron's collectives go through ``from nanotron import distributed as dist`` (a star
re-export of torch.distributed), seen as collective sites by default; what the declarations
add is the model forward / backward and the queued sends the engines reach them through.
Prints the counts and every RANK-LOCAL and UNKNOWN report with the end of its witness.
"""

from __future__ import annotations

import sys
from pathlib import Path

from uniformity_common import print_decisions, source_folder, timed_audit

HERE = Path(__file__).resolve().parent
ENGINE = "nanotron.parallel.pipeline_parallel.engine"
TARGETS = [f"{ENGINE}:OneForwardOneBackwardPipelineEngine",
           f"{ENGINE}:AllForwardAllBackwardPipelineEngine",
           "nanotron.trainer:DistributedTrainer",
           "nanotron.parallel.pipeline_parallel.block:PipelineBlock.forward",
           "nanotron.parallel.pipeline_parallel.state:PipelineTrainBatchState.run_communication",
           "nanotron.parallel.pipeline_parallel.state:PipelineEvalBatchState.run_communication"]


def main() -> int:
    src = source_folder("/work/_nt/src", "nanotron/parallel/pipeline_parallel/engine.py",
                        "fetch huggingface/nanotron and extract its src/ folder into /work/_nt")
    if src is None:
        return 2
    from deskcheck.uniformity import load_uniformity_config

    config = load_uniformity_config(HERE / "nanotron_uniformity.toml")
    for target in TARGETS:
        report = timed_audit(target, target, root=src, config=config)
        print_decisions(report, src, verdicts=("RANK-LOCAL", "UNKNOWN"), indent="  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
