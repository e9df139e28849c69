"""``deskcheck standins --run``: run the driving tests once under coverage.py, one context per
test, and hand each test's executed production lines to the path-precise verdicts.

The pass is the owners coverage pass of ``sweep --auto`` (``mutants.auto.owners``): rank
processes and subprocess pythons are measured too, and nothing is left behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from deskcheck.mutants.auto.owners import CoveragePass, run_coverage_pass

MAX_FILES = 4000


def measured_files(model_files: Iterable[str]) -> list[Path]:
    """Every ``.py`` file of the top-level packages the models live in (decorator wrappers
    and helpers in sibling modules run on the driven path too)."""
    found: dict[Path, None] = {}
    for file in model_files:
        path = Path(file).resolve()
        top = path.parent
        while (top.parent / "__init__.py").is_file() and top.parent != top.parent.parent:
            top = top.parent
        if (top / "__init__.py").is_file():
            for candidate in sorted(top.rglob("*.py")):
                if len(found) >= MAX_FILES:
                    break
                found[candidate] = None
        found[path] = None
    return list(found)


def executed_by_test(coverage: CoveragePass, root: Path, rootdir: Path,
                     relpaths: Sequence[str]) -> dict[str, dict[str, set[int]]]:
    """``{node id (relative to rootdir): {absolute file: lines}}``."""
    pytest_root = (coverage.rootdir or root).resolve()
    out: dict[str, dict[str, set[int]]] = {}
    for relpath in relpaths:
        absolute = str((root / relpath).resolve())
        for line, tests in coverage.lines.get(relpath, {}).items():
            for test in tests:
                file_part, sep, rest = test.partition("::")
                try:
                    file_part = (pytest_root / file_part).resolve().relative_to(rootdir)\
                        .as_posix()
                except ValueError:
                    pass
                node = f"{file_part}{sep}{rest}"
                out.setdefault(node, {}).setdefault(absolute, set()).add(line)
    return out


def run_driving(tests: Sequence[str], model_files: Iterable[str], rootdir: Path, *,
                timeout_s: float = 1800.0) -> tuple[dict[str, dict[str, set[int]]],
                                                    dict[str, Any]]:
    """Run ``tests`` (node ids relative to ``rootdir``) once under coverage; returns the
    executed lines per test and a summary of the pass (wall time, outcomes)."""
    rootdir = rootdir.resolve()
    files = measured_files(model_files)
    relpaths = [os.path.relpath(f, rootdir) for f in files]
    coverage = run_coverage_pass(rootdir, relpaths, ["-p", "no:cacheprovider", *tests],
                                 timeout_s=timeout_s)
    executed = executed_by_test(coverage, rootdir, rootdir, relpaths)
    info = {"tests": len(tests), "wall_s": round(coverage.wall_s, 4),
            "returncode": coverage.returncode,
            "failed": sorted(t for t, o in coverage.outcomes.items() if o == "failed"),
            "measured_files": len(files)}
    return executed, info
