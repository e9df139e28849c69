"""A mutant's verdict when a process of its run died of an exception (``crashes``).

The first event is then the crash, not what the owner did after it (waited for a rank until
the timeout, failed on a missing result): the crash becomes the owner's failure line, judged
by the usual rules (``decide``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deskcheck.mutants.crashes import Crash, crash_result, during, signature
from deskcheck.mutants.runner import JobOutcome
from deskcheck.mutants.verdicts import ItemResult, Verdict, decide
from deskcheck.mutants.worker import relative_to_root


def clean_signatures(outcome: JobOutcome) -> set[tuple[str, str, str]]:
    """The crashes a clean (baseline) run had: they say nothing about a mutant."""
    return {signature(nodeid, c) for nodeid, crashes in during(outcome.crashes,
                                                                outcome.events).items()
            for c in crashes}


def owner_crashes(outcome: JobOutcome, owner_ids: Sequence[str],
                  clean: set[tuple[str, str, str]], root: str) -> list[Crash]:
    """Processes that died of an exception while an owner ran and do not on clean code,
    earliest first, their paths written relative to ``root``."""
    found = []
    for nodeid, crashes in during(outcome.crashes, outcome.events).items():
        if nodeid in owner_ids:
            found += [replace(c, where=relative_to_root(c.where, root),
                              stack=relative_to_root(c.stack, root))
                      for c in crashes if signature(nodeid, c) not in clean]
    return sorted(found, key=lambda c: c.at)


def after_timeout(outcome: JobOutcome, owner_ids: Sequence[str], crash: Crash,
                  expect: str | None, wrong_failure_types: Sequence[str]) -> Verdict | None:
    """The verdict of a run that timed out after ``crash``: the crash judged as the owner's
    failure; None when it judges nothing (the test running was not an owner)."""
    waited = f"waited until the mutant's timeout ({outcome.timeout_s:.1f}s)"
    running = outcome.running_item or owner_ids[0]
    result = crash_result(ItemResult(nodeid=running, outcome="failed",
                                     message=f"TimeoutError: the test {waited}"), crash,
                          then=waited)
    verdict = decide(owner_ids, [result], expect, wrong_failure_types)
    return verdict if verdict.verdict in ("KILLED", "WRONG_FAILURE") else None


def owner_failures_told_by(results: list[ItemResult], owner_ids: Sequence[str],
                           crash: Crash) -> list[ItemResult]:
    """Each failed owner's result with the crash as its failure line."""
    return [crash_result(r, crash) if r.nodeid in owner_ids and r.outcome == "failed" else r
            for r in results]
