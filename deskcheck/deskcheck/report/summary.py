"""The summary a run carries: counts per verdict and whether the run holds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from deskcheck.report.records import HOLDING_VERDICTS, VERDICTS, MutantRecord

SHOWN_NEVER_JUDGED = 20  # ids listed in a summary; the count is always whole


def summarize(mutants: Iterable[MutantRecord], planned: Sequence[str] | None = None
              ) -> dict[str, Any]:
    """Counts per verdict (every verdict key present), totals, reuse count and ``holds``.

    ``planned``: the ids the run set out to judge (``None``: unknown, an older store). Those
    without a verdict are ``never_judged`` (a run interrupted or killed before them).
    ``holds`` is true iff every planned mutant was judged and every judged one is KILLED or
    an accepted survivor (the sweep's exit 0).
    """
    records = list(mutants)
    recorded = {r.id for r in records}
    missing = sorted(set(planned or ()) - recorded)
    counts = dict.fromkeys(VERDICTS, 0)
    for record in records:
        counts[record.verdict] = counts.get(record.verdict, 0) + 1
    held = sum(1 for r in records if r.verdict in HOLDING_VERDICTS)
    return {
        "total": len(records),
        "counts": counts,
        "held": held,
        "falling_short": len(records) - held,
        "reused": sum(1 for r in records if r.reused),
        "duration_s": round(sum(r.duration_s for r in records), 6),
        "planned": len(recorded | set(planned or ())),
        "never_judged": len(missing),
        "never_judged_ids": missing[:SHOWN_NEVER_JUDGED],
        "holds": held == len(records) and not missing,
        "kills": kill_split(records),
    }


# What a kill proves (``detail["kill"]``, decided by deskcheck.mutants.verdicts), strongest
# first: the words every output uses.
KILL_WORDS: dict[str, str] = {
    "assertion": "by an assertion",
    "hang": "by a diagnosed hang",
    "error": "by an error the code raised",
    "crash": "only by a crash",
}


def kill_split(mutants: Iterable[MutantRecord]) -> dict[str, int]:
    """How the KILLED mutants were killed, per ``KILL_WORDS`` kind (kinds with none left
    out); ``unrecorded`` counts kills stored before deskcheck told them apart."""
    split: dict[str, int] = {}
    for record in mutants:
        if record.verdict == "KILLED":
            kind = str(record.detail.get("kill") or "unrecorded")
            split[kind] = split.get(kind, 0) + 1
    order = [*KILL_WORDS, "unrecorded"]
    return {k: split[k] for k in sorted(split, key=lambda k: order.index(k)
                                        if k in order else len(order))}


def kill_phrase(split: dict[str, int]) -> str:
    """``"2 by an assertion, 6 only by a crash"`` ("" when no kill says what it proves)."""
    if not split or set(split) == {"unrecorded"}:
        return ""
    return ", ".join(f"{n} {KILL_WORDS.get(kind, 'as recorded before kinds were kept')}"
                     for kind, n in split.items())


def killed_phrase(mutants: Iterable[MutantRecord]) -> str:
    """``"8 KILLED: 2 by an assertion, 6 only by a crash"`` (``"8 KILLED"`` without kinds)."""
    records = [m for m in mutants if m.verdict == "KILLED"]
    phrase = kill_phrase(kill_split(records))
    return f"{len(records)} KILLED" + (f": {phrase}" if phrase else "")


def verdict_order(verdict: str) -> int:
    """Sort key putting what needs attention first: survivors, then the rest, kills last."""
    order = ("SURVIVED", "OWNER_MISSED", "WRONG_FAILURE", "TIMEOUT", "STALE", "BROKEN",
             "NOT_INJECTABLE",
             "BASELINE_RED", "ACCEPTED_SURVIVOR", "KILLED")
    return order.index(verdict) if verdict in order else len(order)


# Verdicts that judged the tests (the mutant ran and the owners were asked): the score's
# denominator. ACCEPTED_SURVIVOR is shown apart; STALE/BROKEN/BASELINE_RED judged nothing.
JUDGED_VERDICTS = frozenset({"KILLED", "SURVIVED", "OWNER_MISSED", "WRONG_FAILURE", "TIMEOUT",
                             "NO_COVERAGE"})


def mutation_score(mutants: Iterable[MutantRecord]) -> dict[str, Any]:
    """Stryker's mutation score, by ownership: KILLED over judged mutants (``None`` when
    none was judged), with the accepted survivors and the unjudged counted apart."""
    records = list(mutants)
    killed = sum(r.verdict == "KILLED" for r in records)
    judged = sum(r.verdict in JUDGED_VERDICTS for r in records)
    accepted = sum(r.verdict == "ACCEPTED_SURVIVOR" for r in records)
    return {"killed": killed, "judged": judged, "accepted": accepted,
            "not_judged": len(records) - judged - accepted,
            "score": round(100.0 * killed / judged, 1) if judged else None}
