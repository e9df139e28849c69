"""Measure `deskcheck uniformity` on lightllm (source only; code nobody here wrote).

Usage: python bench/uniformity_lightllm.py [LIGHTLLM_SRC]
LIGHTLLM_SRC (the folder holding the ``lightllm`` package) defaults to /work/_ll: get it with
the library's ``fetch github:ModelTC/lightllm`` and ``git archive HEAD lightllm | tar -x -C
/work/_ll`` (measured at fc72ffab). No lightllm code is committed here.

Three targets, with the declarations of bench/lightllm_uniformity.toml: the router
(``RouterManager``: ``loop_for_fwd`` steps the batch, ``loop_for_netio_req`` takes requests
and, in a multi-node TP deployment, MIN-reduces the queue length across the nodes' routers),
the TP chunked-prefill backend (``ChunkedPrefillBackend``: what each TP rank runs per RPC),
and the DP backend (``DPChunkedPrefillBackend``: DP ranks gather their prefill counts and
reduce their decode counts before padded forwards). Prints every decision with its verdict
and its first input's witness; docs/BENCHMARKS.md has the hand verdicts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from uniformity_common import print_decisions, source_folder, timed_audit

HERE = Path(__file__).resolve().parent
BACKENDS = "lightllm.server.router.model_infer.mode_backend"
TARGETS = ["lightllm.server.router.manager:RouterManager",
           f"{BACKENDS}.chunked_prefill.impl:ChunkedPrefillBackend",
           f"{BACKENDS}.dp_backend.impl:DPChunkedPrefillBackend"]


def main() -> int:
    src = source_folder("/work/_ll", "lightllm/server/router/manager.py",
                        "fetch ModelTC/lightllm and extract its lightllm/ folder there")
    if src is None:
        return 2
    from deskcheck.uniformity import load_uniformity_config

    config = load_uniformity_config(HERE / "lightllm_uniformity.toml")
    for target in TARGETS:
        report = timed_audit(target, target, root=src, config=config)
        print_decisions(report, src, indent="  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
