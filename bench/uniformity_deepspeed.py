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
import time
from pathlib import Path

TARGET = "deepspeed.runtime.pipe.engine:PipelineEngine"


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0] if args else "/work/_ds").resolve()
    if not (src / "deepspeed" / "runtime" / "pipe" / "engine.py").is_file():
        print(f"no DeepSpeed source under {src}: fetch microsoft/DeepSpeed and extract its "
              "deepspeed/ folder there", file=sys.stderr)
        return 2
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import audit
    from deskcheck.uniformity.config import UniformityConfig

    clear_cache()
    started, cpu = time.perf_counter(), time.process_time()
    report = audit(TARGET, root=src, roots_methods=["train_batch", "eval_batch"],
                   config=UniformityConfig(base=src))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{TARGET}: {wall:.2f}s wall, {cpu:.2f}s cpu  functions={report.functions} "
          f"sites={len(report.sites)} decisions={len(report.decisions)} {report.counts()}")
    for d in report.decisions:
        if d.verdict.value != "RANK-LOCAL":
            continue
        rel = d.file.replace(str(src) + "/", "")
        print(f"  RANK-LOCAL {rel}:{d.line} {d.function} [{d.kind}] {d.condition}")
        print(f"      why: {d.why}")
        first = next((i for i in d.inputs if i.klass.value == "RANK-LOCAL"), None)
        if first is not None:
            for hop in [h.replace(str(src) + "/", "") for h in first.witness][-6:]:
                print(f"        {hop}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
