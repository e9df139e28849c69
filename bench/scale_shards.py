"""How even are `--shard I/N` shards? By count (hash of the id) vs by recorded durations, on
the reference catalog and on the synthetic 5,000 x 500 catalog; writes
bench/results/scale_shards.md.

The durations are the per-mutant seconds a real sweep measured (its `--json` report): the
reference catalog is swept here (`examples/tp_scheduler/mutants.toml`, workers = 2); the
synthetic one is read from `bench/scale.py`'s last 5,000 x 500 run. A shard's load is the sum
of its mutants' seconds: what a CI job of that shard spends in mutant runs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deskcheck.report.shard import balanced_shards, shard_of  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "scale_shards.md"
SYNTHETIC = ROOT / "bench" / "_work" / "scale" / "u5000x500" / "sweep.json"
CATALOG = ROOT / "examples" / "tp_scheduler" / "mutants.toml"


def reference_durations() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="deskcheck-bench-shards-") as work:
        out = Path(work) / "sweep.json"
        subprocess.run([sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog",
                        str(CATALOG), "--no-store", "--workers", "2", "--json", str(out)],
                       cwd=ROOT, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
                       capture_output=True, text=True, timeout=3600)
        return {m["id"]: m["duration_s"] for m in json.loads(out.read_text())["mutants"]}


def worst_over_mean(placed: dict[str, int], durations: dict[str, float], n: int) -> float:
    loads = [0.0] * n
    for mutant_id, shard in placed.items():
        loads[shard - 1] += durations[mutant_id]
    return max(loads) / statistics.mean(loads)


def rows(name: str, durations: dict[str, float]) -> list[str]:
    out = []
    for n in (2, 4, 8):
        by_count = worst_over_mean({i: shard_of(i, n) for i in durations}, durations, n)
        by_time = worst_over_mean(balanced_shards(durations, n, durations), durations, n)
        out.append(f"| {name} ({len(durations)} mutants, {sum(durations.values()):.1f} s) | {n} "
                   f"| {by_count:.2f}x | {by_time:.2f}x "
                   f"| {'met' if by_time <= 1.3 else 'not met'} |")
    return out


def main() -> int:
    reference = reference_durations()
    lines = ["### Shards: slowest shard over the mean", "",
             "`python bench/scale_shards.py` — per-mutant seconds measured by a real sweep; a "
             f"shard's load is the sum of its mutants' seconds (load average "
             f"{os.getloadavg()[0]:.1f}).", "",
             "| catalog | shards | by count (`--shard-by count`) | by duration (default) "
             "| goal <= 1.3x |", "|---|---|---|---|---|",
             *rows("reference (examples/tp_scheduler)", reference)]
    if SYNTHETIC.is_file():
        synthetic = {m["id"]: m["duration_s"]
                     for m in json.loads(SYNTHETIC.read_text())["mutants"]}
        lines += rows("synthetic 5,000 x 500", synthetic)
    else:
        lines.append("| synthetic 5,000 x 500 | - | run `bench/scale.py` first | | |")
    lines.append("")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
