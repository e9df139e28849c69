"""What deskcheck's tools ask of rank processes, below both the launcher (``suites``) and the
tools (``mutants``): a sweep learns each rank group's timeout, so a hung owner can finish its
diagnosis; auto's owners pass measures each task a warm rank runs under the test that sent it.

Light on purpose (stdlib only): rank processes import it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

STACKS_ENV = "DESKCHECK_STACKS_DIR"  # a mutant run's scratch folder (deskcheck.mutants)
COVERAGE_CONTEXT_ENV = "DESKCHECK_AUTO_CONTEXT"  # the running test's node id (auto's owners pass)
GROUP_SUFFIX = ".group"


def note_rank_group(timeout_s: float) -> None:
    """Say that this process joined a rank group whose collectives time out after
    ``timeout_s`` and whose launcher diagnoses a hang (names the rank that skipped the
    collective, as deskcheck.suites does): a sweep then lets the test running it live long
    enough for the group's timeout and that diagnosis. A no-op outside a sweep. A group
    without such a diagnosis must not call it: its hang stays a TIMEOUT, reported at the
    mutant's own deadline."""
    stacks_dir = os.environ.get(STACKS_ENV)
    if stacks_dir and timeout_s > 0:
        try:
            (Path(stacks_dir) / f"{os.getpid()}{GROUP_SUFFIX}").write_text(f"{timeout_s:g}")
        except OSError:
            pass


def rank_group_timeout(stacks_dir: str) -> float | None:
    """The longest process-group timeout a process of this run noted (each process's last)."""
    found = []
    for path in Path(stacks_dir).glob(f"*{GROUP_SUFFIX}"):
        try:
            found.append(float(path.read_text()))
        except (OSError, ValueError):
            continue
    return max(found, default=None)


def coverage_context() -> str | None:
    """The test the sending process is running, under auto's owners pass (else None)."""
    return os.environ.get(COVERAGE_CONTEXT_ENV)


def follow_coverage_context(context: str | None) -> None:
    """Measure what this (warm rank) process runs next under the sending test's coverage
    context: a rank's lines then belong to every test that drives it, not only to the test
    that started its pool."""
    if context is None and COVERAGE_CONTEXT_ENV not in os.environ:
        return
    if context is None:
        os.environ.pop(COVERAGE_CONTEXT_ENV, None)
    else:
        os.environ[COVERAGE_CONTEXT_ENV] = context
    coverage = sys.modules.get("coverage")
    current = getattr(getattr(coverage, "Coverage", None), "current", None)
    cov = current() if current is not None else None
    if cov is not None:
        cov.switch_context(context or "")
