"""Assemble docs/BENCHMARKS.md from the per-part results in bench/results/*.md, and the METAL
section from bench/results/metal.json (written by `make metal` on a GPU machine)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # deskcheck from this tree (the METAL section's renderer)
ORDER = ["drift", "suites", "mutants", "gate", "gates_real", "gates_shapes", "report",
         "report_incremental", "auto", "auto_bug_class", "auto_generation", "selfproof",
         "scale", "scale_shards"]

HEADER = """# Benchmarks

Measured on the project's standard machine (2 cores, 24 GiB, Python 3.11, CPU-only torch 2.13.0).
Every number below is written by a script in `bench/` (one file per part, results in
`bench/results/`); regenerate all of them with `make bench`, or one part with
`.venv/bin/python bench/<script>.py && .venv/bin/python bench/build_benchmarks_md.py`.
Timing goals live here, never in timed tests.
"""


def _as_section(text: str) -> str:
    """A part's results as a level-2 section: a part written with a level-1 title is demoted."""
    text = text.strip() + "\n"
    if not text.startswith("# "):
        return text
    return "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines()) + "\n"


METAL_EMPTY = """## METAL: the GPU tier on a real GPU

Empty until a GPU run happened: no `bench/results/metal.json` yet. On a lent GPU machine,
`make metal` (docs/suites.md, METAL) writes `metal.json` under `$OUT`; copy it to
`bench/results/metal.json` and rerun this script. `make metal METAL_ARGS=--dry-run` shows,
on any machine, what it would run there and why each part skips here.
"""


def metal_section(results: Path) -> str:
    """The METAL section from ``metal.json`` (``make metal`` on a GPU), else the empty note."""
    path = results / "metal.json"
    if not path.exists():
        return METAL_EMPTY
    from deskcheck.suites.metal.render import markdown

    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("dry_run") or not data.get("machine", {}).get("gpu_count"):
        return METAL_EMPTY
    return markdown(data)


def render() -> str:
    """docs/BENCHMARKS.md as the results files make it (edit those, never the page)."""
    results = ROOT / "bench" / "results"
    parts = {p.stem: p for p in results.glob("*.md")}
    ordered = [parts.pop(name) for name in ORDER if name in parts] + [parts[k] for k in sorted(parts)]
    body = [HEADER] + [_as_section(p.read_text(encoding="utf-8")) for p in ordered]
    body.append(metal_section(results))
    return "\n".join(body)


def main() -> None:
    (ROOT / "docs" / "BENCHMARKS.md").write_text(render(), encoding="utf-8")


if __name__ == "__main__":
    main()
