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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BACKENDS = "lightllm.server.router.model_infer.mode_backend"
TARGETS = ["lightllm.server.router.manager:RouterManager",
           f"{BACKENDS}.chunked_prefill.impl:ChunkedPrefillBackend",
           f"{BACKENDS}.dp_backend.impl:DPChunkedPrefillBackend"]


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0] if args else "/work/_ll").resolve()
    if not (src / "lightllm" / "server" / "router" / "manager.py").is_file():
        print(f"no lightllm source under {src}: fetch ModelTC/lightllm and extract its "
              "lightllm/ folder there", file=sys.stderr)
        return 2
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import audit, load_uniformity_config

    config = load_uniformity_config(HERE / "lightllm_uniformity.toml")
    for target in TARGETS:
        clear_cache()
        started, cpu = time.perf_counter(), time.process_time()
        report = audit(target, root=src, config=config)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"{target}: {wall:.2f}s wall, {cpu:.2f}s cpu  functions={report.functions} "
              f"sites={len(report.sites)} decisions={len(report.decisions)} {report.counts()}")
        for d in report.decisions:
            rel = d.file.replace(str(src) + "/", "")
            print(f"  {d.verdict.value} {rel}:{d.line} {d.function} [{d.kind}] {d.condition}")
            print(f"      why: {d.why}")
            first = next((i for i in d.inputs if i.klass.value == d.verdict.value), None)
            if first is not None:
                hops = [h.replace(str(src) + "/", "") for h in first.witness]
                for hop in hops[:4] + (["..."] + hops[-3:] if len(hops) > 7 else hops[4:]):
                    print(f"        {hop}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
