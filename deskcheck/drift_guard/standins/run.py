"""``deskcheck standins --run``: run the driving tests once under coverage.py, one context per
test, and hand each test's executed production lines to the path-precise verdicts.

The pass is the owners coverage pass of ``sweep --auto`` (``mutants.auto.owners``): rank
processes and subprocess pythons are measured too, and nothing is left behind.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from deskcheck.drift_guard.standins.select_plugin import ALIASES, SELECT_ENV
from deskcheck.mutants.auto.locate import module_name_for
from deskcheck.mutants.auto.owners import CoveragePass, run_coverage_pass
from deskcheck.scratch import scratch_folder

PLUGIN = "deskcheck.drift_guard.standins.select_plugin"
WORK_PREFIX = "deskcheck-standins-"  # the selection file's folder (owner-marked, reaped)

MAX_FILES = 4000


def measured_files(model_files: Iterable[str]) -> list[Path]:
    """Every ``.py`` file of the top-level packages the models live in (decorator wrappers
    and helpers in sibling modules run on the driven path too). The top-level package is
    found as the import system finds it, through namespace portions (PEP 420: SGLang's
    ``sglang/srt/`` has no ``__init__.py``); the model files come first, then the files
    nearest them, so that a cap drops the farthest."""
    models = list(dict.fromkeys(Path(f).resolve() for f in model_files))
    found: dict[Path, None] = dict.fromkeys(models)
    candidates: set[Path] = set()
    for path in models:
        module, import_root = module_name_for(Path(path.anchor), str(path))
        top = import_root / module.split(".", 1)[0]
        if top.is_dir():
            candidates.update(top.rglob("*.py"))

    def distance(candidate: Path) -> tuple[int, str]:  # folders up and down to a model's
        return min(len(candidate.parent.parts) + len(m.parent.parts) - 2 * len(
            Path(os.path.commonpath([candidate.parent, m.parent])).parts)
            for m in models), str(candidate)

    for candidate in sorted(candidates - set(found), key=distance):
        if len(found) >= MAX_FILES:
            break
        found[candidate] = None
    return list(found)


def executed_by_test(coverage: CoveragePass, root: Path, rootdir: Path,
                     relpaths: Sequence[str], aliases: dict[str, str] | None = None
                     ) -> dict[str, dict[str, set[int]]]:
    """``{node id (relative to rootdir): {absolute file: lines}}``; an item run for another
    id (a parametrized test's item, ``aliases``) counts for that id."""
    out: dict[str, dict[str, set[int]]] = {}
    aliases = aliases or {}
    for relpath in relpaths:
        absolute = str((root / relpath).resolve())
        for line, tests in coverage.lines.get(relpath, {}).items():
            for test in tests:
                node = _relative(aliases.get(test, test), coverage, rootdir)
                out.setdefault(node, {}).setdefault(absolute, set()).add(line)
    return out


def _relative(node_id: str, coverage: CoveragePass, rootdir: Path) -> str:
    """A pytest node id (relative to pytest's rootdir) relative to ``rootdir`` instead."""
    file_part, sep, rest = node_id.partition("::")
    try:
        file_part = ((coverage.rootdir or rootdir) / file_part).resolve()\
            .relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        pass
    return f"{file_part}{sep}{rest}"


def run_driving(tests: Sequence[str], model_files: Iterable[str], rootdir: Path, *,
                timeout_s: float = 1800.0) -> tuple[dict[str, dict[str, set[int]]],
                                                    dict[str, Any]]:
    """Run ``tests`` (node ids relative to ``rootdir``) once under coverage; returns the
    executed lines per test and a summary of the pass (wall time, outcomes)."""
    rootdir = rootdir.resolve()
    files = measured_files(model_files)
    relpaths = [os.path.relpath(f, rootdir) for f in files]
    # files, not node ids: a driving file that cannot be imported must not stop the others
    files_to_run = sorted({t.split("::", 1)[0] for t in tests})
    args = ["-p", "no:cacheprovider", "-p", PLUGIN, "--continue-on-collection-errors",
            *files_to_run]
    with scratch_folder(WORK_PREFIX) as work:  # reaps what runs killed with SIGKILL left
        listing = work / "select.txt"
        listing.write_text("\n".join(tests), encoding="utf-8")
        previous = os.environ.get(SELECT_ENV)
        os.environ[SELECT_ENV] = str(listing)
        try:
            coverage = run_coverage_pass(rootdir, relpaths, args, timeout_s=timeout_s)
        finally:
            if previous is None:
                os.environ.pop(SELECT_ENV, None)
            else:
                os.environ[SELECT_ENV] = previous
        aliases_file = listing.with_name(ALIASES)
        aliases: dict[str, str] = json.loads(aliases_file.read_text(encoding="utf-8")) \
            if aliases_file.is_file() else {}
    executed = executed_by_test(coverage, rootdir, rootdir, relpaths, aliases)
    ran = {_relative(aliases.get(t, t), coverage, rootdir) for t in coverage.outcomes}
    info = {"tests": len(tests), "wall_s": round(coverage.wall_s, 4),
            "returncode": coverage.returncode,
            "failed": sorted({_relative(aliases.get(t, t), coverage, rootdir)
                              for t, o in coverage.outcomes.items() if o == "failed"}),
            "not_run": sorted(set(tests) - ran), "measured_files": len(files)}
    return executed, info
