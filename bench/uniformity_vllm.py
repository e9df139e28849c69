"""Measure `deskcheck uniformity` on vLLM 0.11.0's data-parallel engine loop (source only).

Usage: python bench/uniformity_vllm.py [VLLM_SRC] [--runner | --worker]
VLLM_SRC defaults to bench/_work/vllm_src: get it with `pip download --no-deps vllm==0.11.0`
and unzip the wheel's ``vllm/**.py`` there (no vLLM code is committed here).

The target is ``vllm.v1.engine.core:DPEngineCoreProc``, root ``run_busy_loop``: each data
parallel engine steps its own scheduler, then joins the DP all-reduce that decides whether
any engine still has work (``ParallelConfig.has_unfinished_dp``, every 32 steps). No
declarations: vLLM names its groups itself (``dp_group``). ``--runner``: the GPU model runner
instead (``vllm.v1.worker.gpu_model_runner:GPUModelRunner``, root ``execute_model``), with
the declarations of bench/vllm_uniformity.toml (vLLM's group getters, its config object).
``--worker``: the GPU worker (``vllm.v1.worker.gpu_worker:Worker``, roots ``execute_model``,
``compile_or_warm_up_model``, ``determine_available_memory``: the forward, CUDA-graph capture
and memory profiling), with the same declarations.
Prints every decision with its verdict and its first input's witness; docs/BENCHMARKS.md has
the hand verdicts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from uniformity_common import print_decisions, source_folder, timed_audit

HERE = Path(__file__).resolve().parent
TARGET = "vllm.v1.engine.core:DPEngineCoreProc"
RUNNER = "vllm.v1.worker.gpu_model_runner:GPUModelRunner"
WORKER = "vllm.v1.worker.gpu_worker:Worker"
WORKER_ROOTS = ["execute_model", "compile_or_warm_up_model", "determine_available_memory"]


def main() -> int:
    src = source_folder(str(HERE / "_work" / "vllm_src"), "vllm/v1/engine/core.py",
                        "pip download --no-deps vllm==0.11.0 and unzip its vllm/ folder there")
    if src is None:
        return 2
    from deskcheck.uniformity import load_uniformity_config
    from deskcheck.uniformity.config import UniformityConfig

    if "--runner" in sys.argv or "--worker" in sys.argv:
        config = load_uniformity_config(HERE / "vllm_uniformity.toml")
        report = timed_audit("cold", WORKER, root=src, roots_methods=WORKER_ROOTS,
                             config=config) if "--worker" in sys.argv else \
            timed_audit("cold", RUNNER, root=src, config=config)
    else:
        report = timed_audit("cold", TARGET, root=src, roots_methods=["run_busy_loop"],
                             config=UniformityConfig(base=src))
    print_decisions(report, src)
    out = HERE / "_work"
    out.mkdir(exist_ok=True)
    (out / "uniformity_vllm.json").write_text(json.dumps(report.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
