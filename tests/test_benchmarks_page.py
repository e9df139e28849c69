"""docs/BENCHMARKS.md is generated (bench/build_benchmarks_md.py, from bench/results/*.md):
a section written into the page by hand is lost at the next `make bench`. Found: sessions 14
to 18 of the uniformity section and a selfproof re-run lived only in the page, so a
regeneration would have deleted 877 lines."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_benchmarks_page_is_what_its_results_files_make():
    spec = importlib.util.spec_from_file_location(
        "build_benchmarks_md", REPO / "bench" / "build_benchmarks_md.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (REPO / "docs" / "BENCHMARKS.md").read_text(encoding="utf-8")
    made = module.render()
    if page != made:
        first = next(i for i, (a, b) in enumerate(
            zip(page.splitlines(), made.splitlines(), strict=False)) if a != b) \
            if any(a != b for a, b in zip(page.splitlines(), made.splitlines(), strict=False)) \
            else min(len(page.splitlines()), len(made.splitlines()))
        raise AssertionError(
            f"docs/BENCHMARKS.md differs from what bench/results/*.md make (first at line "
            f"{first + 1}): a hand edit of the page is lost at the next regeneration; write it "
            f"into bench/results/<part>.md and run `python bench/build_benchmarks_md.py`")
