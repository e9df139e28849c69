"""Measure `deskcheck uniformity` on SGLang 0.5.23's Scheduler (source only, nothing imported).

Usage: python bench/uniformity_sglang.py [SGLANG_SRC]   (default /work/_sglang_src/src;
get it with `pip download --no-deps sglang==0.5.23` and unpack under bench/_work/).
Prints the counts, every RANK-LOCAL report (file:line, condition, first witness) and the
UNKNOWN count by reason; writes bench/_work/uniformity_sglang.json.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/_sglang_src/src")
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import Verdict, audit, load_uniformity_config

    config = load_uniformity_config(HERE / "sglang_uniformity.toml")
    clear_cache()
    started, cpu = time.perf_counter(), time.process_time()
    report = audit("sglang.srt.managers.scheduler:Scheduler", root=src, config=config)
    cold, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"cold: {cold:.2f}s wall, {cpu:.2f}s cpu  functions={report.functions} sites={len(report.sites)} "
          f"decisions={len(report.decisions)} {report.counts()}")
    for d in report.by_verdict(Verdict.RANK_LOCAL):
        first = next(i for i in d.inputs if i.klass.value == "RANK-LOCAL")
        rel = str(Path(d.file).relative_to(src)) if d.file.startswith(str(src)) else d.file
        print(f"RANK-LOCAL {rel}:{d.line} {d.function} [{d.kind}] {d.condition[:70]}")
        print(f"    input {first.name}: {first.reason}")
        for hop in first.witness[:6]:
            print(f"      {hop.replace(str(src) + '/', '')}")
    reasons = Counter()
    for d in report.by_verdict(Verdict.UNKNOWN):
        first = next((i for i in d.inputs if i.klass.value == "UNKNOWN"), None)
        reason = first.reason if first else d.why
        reasons[reason.split(":")[0][:70]] += 1
    print("UNKNOWN by reason:")
    for reason, n in reasons.most_common():
        print(f"  {n:4d}  {reason}")
    out = HERE / "_work"
    out.mkdir(exist_ok=True)
    (out / "uniformity_sglang.json").write_text(json.dumps(report.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
