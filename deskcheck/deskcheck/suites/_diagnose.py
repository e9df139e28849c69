"""Turn the outcomes of a failed task into one error that names the ranks responsible.

Order of blame: a rank that raised outside torch.distributed caused it (the others then waited
for it); otherwise a rank that finished with fewer collectives than its peers skipped the
collective they were left waiting in; then ranks that hung or died. Every failing rank's
traceback or stack follows, rank by rank.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskcheck.errors import RankAssertionError, RankError, RankTimeoutError
from deskcheck.suites._stacks import collective_in_stack, innermost_frame
from deskcheck.suites.outcomes import RankOutcome

_TAIL = 4000


def _ranks(numbers: list[int]) -> str:
    words = [str(n) for n in numbers]
    body = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return ("rank " if len(words) == 1 else "ranks ") + body


def _tail(text: str) -> str:
    text = text.rstrip()
    return text if len(text) <= _TAIL else "...\n" + text[-_TAIL:]


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _waited_in(outcomes: list[RankOutcome]) -> tuple[list[RankOutcome], str]:
    """Ranks left inside a collective (failed in one, hung, or died) and the collective's name."""
    waiting: list[RankOutcome] = []
    names: list[str] = []
    for o in outcomes:
        if o.failure is not None and o.failure.collective:
            waiting.append(o)
            names.append(o.failure.collective)
        elif o.hung:
            name, _site = collective_in_stack(o.stack)
            if name:
                waiting.append(o)
                names.append(name)
    return waiting, (names[0] if names else "a collective")


def _rank_line(o: RankOutcome) -> str:
    count = "?" if o.collectives is None else str(o.collectives)
    if o.hung:
        name, site = collective_in_stack(o.stack)
        where = f" inside {name} called at {site}" if name else ""
        return f"rank {o.rank} (pid {o.pid}): still running at the deadline{where}; its stacks:\n" \
               + _indent(_tail(o.stack))
    if o.died:
        return f"rank {o.rank} (pid {o.pid}): died ({o.died})"
    if o.failure is None:
        return f"rank {o.rank} (pid {o.pid}): returned after {count} collectives"
    where = f" in {o.failure.collective}" if o.failure.collective else ""
    return (f"rank {o.rank} (pid {o.pid}): raised {o.failure.type_name}{where} after {count} "
            f"collectives:\n" + _indent(_tail(o.failure.traceback)))


def values_or_raise(outcomes: list[RankOutcome], fn: Callable[..., Any], where: str,
                    timeout_s: float) -> list[Any]:
    """Each rank's return value, rank by rank, or the error that names the failing ranks."""
    __tracebackhide__ = True
    if all(o.ok for o in outcomes):
        return [o.value for o in outcomes]
    raise failure_error(outcomes, fn, where, timeout_s)


def failure_error(outcomes: list[RankOutcome], fn: Callable[..., Any], label: str,
                  timeout_s: float) -> RankError:
    """The error for a task in which at least one rank did not succeed (its ``outcomes``
    attribute keeps every rank's outcome, for notes added on the way up)."""
    error = _failure_error(outcomes, fn, label, timeout_s)
    error.outcomes = list(outcomes)  # type: ignore[attr-defined]
    return error


def _failure_error(outcomes: list[RankOutcome], fn: Callable[..., Any], label: str,
                   timeout_s: float) -> RankError:
    code = getattr(fn, "__code__", None)
    location = f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)
    task = getattr(fn, "__qualname__", repr(fn))
    raised = [o for o in outcomes if o.failure is not None and not o.failure.collective]
    waiting, collective = _waited_in(outcomes)
    reached = max((o.collectives for o in waiting if o.collectives is not None), default=None)
    left = [o for o in outcomes if o.ok and (reached is None or (
        o.collectives is not None and o.collectives < reached))] if waiting else []
    if waiting and not left and not raised and not any(o.hung or o.died for o in outcomes):
        raised, waiting = raised + waiting, []  # every rank got an error from the collective
    details = "\n".join(_rank_line(o) for o in outcomes)
    outputs = "\n".join(f"--- rank {o.rank} output ---\n{_tail(o.output)}"
                        for o in outcomes if o.output and not o.ok)
    if outputs:
        details += "\n" + outputs
    if raised:
        heads = "; ".join(f"rank {o.rank} raised {o.failure.headline()}"  # type: ignore[union-attr]
                          + (f" in {o.failure.collective}" if o.failure.collective else "")  # type: ignore[union-attr]
                          for o in sorted(raised, key=lambda o: o.rank))
        then = (f" ({_ranks([o.rank for o in waiting])} then waited in {collective} for it)"
                if waiting else "")
        cls = RankAssertionError if all(o.failure.is_assertion for o in raised) else RankError  # type: ignore[union-attr]
        return cls(f"{task} on {label}: {heads}{then}\n{details}", location=location,
                   fix="read the failing rank's traceback below")
    died = [o for o in outcomes if o.died]
    if died:
        heads = "; ".join(f"rank {o.rank} died ({o.died})" for o in died)
        then = (f" ({_ranks([o.rank for o in waiting])} then waited in {collective} for it)"
                if waiting else "")
        return RankError(f"{task} on {label}: {heads}{then}\n{details}", location=location,
                         fix="a rank process ended mid-task: look for os._exit, a signal or "
                             "an out-of-memory kill")
    elsewhere = [o for o in outcomes if o.hung and o not in waiting]
    if elsewhere:
        heads = "; ".join(f"rank {o.rank} never reached {collective}: still running at "
                          f"{innermost_frame(o.stack) or 'an unknown frame'}" for o in elsewhere)
        then = (f" while {_ranks([o.rank for o in waiting])} waited in {collective} "
                f"until the {timeout_s:g} s process-group timeout" if waiting else "")
        return RankTimeoutError(f"{task} on {label}: {heads}{then}\n{details}", location=location,
                                fix="the named rank's stack shows where it is stuck")
    if waiting:
        stuck = _ranks([o.rank for o in waiting])
        if left:
            number = f" #{reached}" if reached is not None else ""
            head = (f"{_ranks([o.rank for o in left])} skipped {collective}{number}: returned "
                    f"after {min(o.collectives or 0 for o in left)} collectives while {stuck} "
                    f"waited in it until the {timeout_s:g} s process-group timeout")
        else:
            head = f"{stuck} did not get through {collective} within the {timeout_s:g} s timeout"
        return RankTimeoutError(f"{task} on {label}: {head}\n{details}", location=location,
                                fix="every rank must enter the same collectives in the same "
                                    "order; look for a rank-local branch before the collective")
    return RankError(f"{task} on {label}: ranks failed\n{details}", location=location,
                     fix="read each rank's report below")
