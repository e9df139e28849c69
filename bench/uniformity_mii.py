"""Measure `deskcheck uniformity` on DeepSpeed-MII's ragged batching (source only; code
nobody here wrote).

Usage: python bench/uniformity_mii.py [MII_SRC]
MII_SRC (the folder holding the ``mii`` package) defaults to /work/_mii: get it with the
library's ``fetch github:microsoft/DeepSpeed-MII`` and ``git archive HEAD mii | tar -x -C
/work/_mii`` (measured at d100a854). No MII code is committed here; DeepSpeed's own source
is not copied in, so calls into ``deepspeed`` (the inference engine, the accelerator) are not
entered.

Two targets, the two serving loops over ``RaggedBatchBase.generate``, with the declarations
of bench/mii_uniformity.toml: ``MIIPipeline.__call__`` (the offline pipeline: rank 0 runs
``generate`` until its prompts are answered, then publishes a final ``force`` batch that
lets the other ranks leave their loop) and ``MIIAsyncPipeline.__call__`` (the server's
thread: every rank loops on ``generate`` until ``shutdown``). Rank 0 schedules and publishes
each batch over ZMQ (``_bcast_requests``); every rank then runs the engine's forward
(``inference_engine.put``: per-layer TP collectives). Prints the counts and every RANK-LOCAL
and UNKNOWN report with the end of its witness, the declaration findings, the calls not
entered (by receiver) and the exit code.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from uniformity_common import print_decisions, source_folder, timed_audit

HERE = Path(__file__).resolve().parent
MODULE = "mii.batching.ragged_batching"
TARGETS = [f"{MODULE}:MIIPipeline", f"{MODULE}:MIIAsyncPipeline"]


def main() -> int:
    src = source_folder("/work/_mii", "mii/batching/ragged_batching.py",
                        "fetch microsoft/DeepSpeed-MII and extract its mii/ folder there")
    if src is None:
        return 2
    from deskcheck.uniformity import load_uniformity_config

    config = load_uniformity_config(HERE / "mii_uniformity.toml")
    for target in TARGETS:
        report = timed_audit(target, target, root=src, roots_methods=["__call__"],
                             config=config)
        print_decisions(report, src, verdicts=("RANK-LOCAL", "UNKNOWN"), indent="  ")
        for f in report.declarations:
            print(f"  declaration {f.status}: {f.kind} {f.subject}: {f.detail}")
        why = Counter(n.why for n in report.not_entered)
        print(f"  {len(report.not_entered)} calls not entered: "
              + ", ".join(f"{k} x{v}" for k, v in why.most_common()))
        print(f"  exit code {report.exit_code()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
