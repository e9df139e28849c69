"""Record an auto sweep in the results store (``.deskcheck/``), kind ``auto``."""

from __future__ import annotations

import platform
import subprocess

from deskcheck import __version__
from deskcheck.mutants.auto.pipeline import AutoResult
from deskcheck.report.records import RunRecord


def _git(root, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def save(result: AutoResult) -> int | None:
    """Store the run; returns its id (``None`` when the report part is not installed)."""
    try:
        from deskcheck.report.store import Store
    except ImportError:  # pragma: no cover - the report part ships with deskcheck
        return None
    root = result.changes.root
    run = RunRecord(kind="auto", commit=_git(root, "rev-parse", "HEAD"),
                    branch=_git(root, "rev-parse", "--abbrev-ref", "HEAD"),
                    started_at=result.started_at, machine=platform.node(),
                    deskcheck_version=__version__)
    with Store.for_project(root) as store:
        run_id = store.begin_run(run)
        for record in result.records:
            store.record_mutant(run_id, record)
        summary = {"counts": result.counts(), "holds": result.holds,
                   "total": len(result.records), "changed_since": result.settings.changed_since,
                   "base": result.changes.base}
        store.finish_run(run_id, "holds" if result.holds else "falls_short", summary)
    return run_id
