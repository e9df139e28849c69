"""Whether the rank-uniformity floors cover this pass, and when to say so.

The eviction and host floors are published from ONE MIN-reduce over the TP CPU group. When
that group holds one member the reduce is a no-op and every floor switches OFF: the ranks
that must agree are not in the reduce, their radix trees stop being replicas and prefix
matches become rank-dependent. The scope is not a boot constant (a runtime can rebuild the
TP group per phase), so a latch that reports once at startup turns "off for the whole run"
and "off for half of every cutover" into the same line. Hence: report every transition, in
both directions, and always the first observation.

A module function rather than a Scheduler method: stand-ins that bind the reduce method onto
a holder need not bind anything more for it to run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScopeTransition:
    """Scope of this pass and the line to report, if any (``None``: stay quiet)."""

    covered: bool
    report: str | None


def floors_cover(world_size: int) -> bool:
    """A reduce group of one agrees with nobody: floors are OFF."""
    return world_size > 1  # a singleton group is NOT covering


def scope_transition(previous: bool | None, world_size: int, **context: object) -> ScopeTransition:
    """Decide this pass's scope and whether it changed since ``previous``.

    ``previous`` is the last pass's ``covered`` (``None`` before the first observation).
    ``context`` (e.g. ``tp_rank``) is appended to the report line.
    """
    if world_size < 1:
        raise ValueError(f"reduce group size must be >= 1, got {world_size}")
    covered = floors_cover(world_size)
    if previous is not None and previous == covered:
        return ScopeTransition(covered=covered, report=None)
    state = "floors ON" if covered else "floors OFF"
    edge = "first observation" if previous is None else ("restored" if covered else "lost")
    extra = "".join(f" {key}={value}" for key, value in sorted(context.items()))
    report = f"uniform floor scope: world={world_size} -> {state} ({edge}){extra}"
    return ScopeTransition(covered=covered, report=report)
