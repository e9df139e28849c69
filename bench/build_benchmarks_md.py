"""Assemble docs/BENCHMARKS.md from the per-part results in bench/results/*.md."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["drift", "suites", "mutants", "gate", "report", "auto", "selfproof"]

HEADER = """# Benchmarks

Measured on the project's standard machine (2 cores, 24 GiB, Python 3.11, CPU-only torch 2.13.0).
Every number below is written by a script in `bench/` (one file per part, results in
`bench/results/`); regenerate all of them with `make bench`, or one part with
`.venv/bin/python bench/<script>.py && .venv/bin/python bench/build_benchmarks_md.py`.
Timing goals live here, never in timed tests.
"""


def main() -> None:
    results = ROOT / "bench" / "results"
    parts = {p.stem: p for p in results.glob("*.md")}
    ordered = [parts.pop(name) for name in ORDER if name in parts] + [parts[k] for k in sorted(parts)]
    body = [HEADER] + [p.read_text(encoding="utf-8").strip() + "\n" for p in ordered]
    (ROOT / "docs" / "BENCHMARKS.md").write_text("\n".join(body), encoding="utf-8")


if __name__ == "__main__":
    main()
