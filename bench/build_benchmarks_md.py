"""Assemble docs/BENCHMARKS.md from the per-part results in bench/results/*.md."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["drift", "suites", "mutants", "gate", "report", "report_incremental", "auto", "selfproof"]

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


def main() -> None:
    results = ROOT / "bench" / "results"
    parts = {p.stem: p for p in results.glob("*.md")}
    ordered = [parts.pop(name) for name in ORDER if name in parts] + [parts[k] for k in sorted(parts)]
    body = [HEADER] + [_as_section(p.read_text(encoding="utf-8")) for p in ordered]
    (ROOT / "docs" / "BENCHMARKS.md").write_text("\n".join(body), encoding="utf-8")


if __name__ == "__main__":
    main()
