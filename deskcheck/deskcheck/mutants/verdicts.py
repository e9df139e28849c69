"""Decide a mutant's verdict from what its tests did (pure functions, no processes).

A failure of an owner is a *kill* only for the right reason: the ``expect`` regex matches
its text when one is given; otherwise it is an assertion-style failure and not a crash of
the kinds in ``wrong_failure_types`` (ImportError, TypeError, ...), and not a timeout. A hang
deskcheck's rank pool diagnosed (``RankTimeoutError`` naming the rank that skipped the
collective, or the one that never reached it) is the failure the mutant causes: a kill.

Each kill also says what it proves (``kill_kind``): ``assertion`` (an assertion, or the
``expect``ed message), ``hang`` (a diagnosed hang), ``error`` (another exception the code
raised) or ``crash`` (only a TypeError/AttributeError/NameError, typically from a ``None``
the mutant put there: the test never reached an assertion on the behaviour).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

TIMEOUT_TYPES = ("RankTimeoutError", "TimeoutError")
PROCESS_CRASH = "ProcessCrash"  # the test process itself died (signal, os._exit)
REASONS = ("kill", "wrong", "timeout")
KILL_KINDS = ("assertion", "hang", "error", "crash")  # strongest proof first
CRASH_TYPES = ("TypeError", "AttributeError", "NameError", "UnboundLocalError")
# assertion-style failures: AssertionError and deskcheck's subclasses of it (a congruence arm's
# divergence or safety verdict), pytest.fail
_ASSERTION_TYPES = ("AssertionError", "RankAssertionError", "CongruenceError",
                    "VacuousPremiseError", "Failed")
# deskcheck.suites' diagnosis: "rank 1 skipped all_reduce #4: ..." / "rank 2 never reached ..."
_DIAGNOSED = re.compile(r"\branks? \d+(?:(?:, | and )\d+)* (?:skipped|never reached) \w+")


@dataclass
class ItemResult:
    """One test item's outcome in one process (parent or mutant child)."""

    nodeid: str
    outcome: str  # passed | failed | skipped
    when: str = "call"  # the phase that failed: setup | call | teardown
    message: str = ""  # the crash line, e.g. "TypeError: unsupported operand"
    text: str = ""  # the failure's long text (trimmed)
    duration: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemResult:
        return cls(**data)


def exception_name(message: str) -> str:
    """``"deskcheck.errors.RankError: ..."`` -> ``"RankError"`` (``""`` if none)."""
    head = message.split(":", 1)[0].strip() if ":" in message else ""
    if not re.fullmatch(r"[A-Za-z_][\w.]*", head):
        return ""
    return head.rsplit(".", 1)[-1]


def failure_reason(result: ItemResult, expect: str | None,
                   wrong_failure_types: Sequence[str]) -> str | None:
    """``None`` when it did not fail, else ``kill`` / ``wrong`` / ``timeout``."""
    if result.outcome != "failed":
        return None
    if expect is not None:
        haystack = f"{result.message}\n{result.text}"
        return "kill" if re.search(expect, haystack) else "wrong"
    name = exception_name(result.message)
    if name in TIMEOUT_TYPES:
        return "kill" if diagnosed_hang(result) else "timeout"
    if name == PROCESS_CRASH:
        return "wrong"
    if result.when == "setup" and "fixture" in wrong_failure_types and name not in (
            "AssertionError", "Failed"):
        return "wrong"
    if name in wrong_failure_types:
        return "wrong"
    if name.endswith("RankError") and wrong_failure_types:  # a rank's own exception is in the text
        crash = re.search(r"\b(" + "|".join(map(re.escape, wrong_failure_types)) + r")\b:",
                          result.text)
        if crash and not re.search(r"\bAssertionError\b", result.text):
            return "wrong"
    return "kill"


def diagnosed_hang(result: ItemResult) -> bool:
    """deskcheck's own rank-timeout error, naming the rank that skipped the collective."""
    return (exception_name(result.message) == "RankTimeoutError"
            and bool(_DIAGNOSED.search(result.message)))


def _crash_in_rank_text(result: ItemResult) -> str:
    found = re.search(r"\b(" + "|".join(CRASH_TYPES) + r")\b:", result.text)
    return found.group(1) if found and not re.search(r"\bAssertionError\b", result.text) else ""


def kill_kind(result: ItemResult, expect: str | None) -> tuple[str, str]:
    """(kind, what it was) of a kill: ``("assertion", "expect")``, ``("hang",
    "RankTimeoutError")``, ``("crash", "TypeError")``, ``("error", "RuntimeError")``."""
    if expect is not None:
        return "assertion", "expect"
    if result.nodeid.startswith("uniformity:"):  # the audit's verdict flipped: a checked claim
        return "assertion", "uniformity audit"
    name = exception_name(result.message) or "failure"
    if name in TIMEOUT_TYPES:
        return "hang", name
    if name in _ASSERTION_TYPES or name.endswith("AssertionError") or (
            not exception_name(result.message) and "assert" in result.message):
        return "assertion", name
    if name in CRASH_TYPES:
        return "crash", name
    if name.endswith("RankError"):
        crash = _crash_in_rank_text(result)
        if crash:
            return "crash", crash
    return "error", name


@dataclass
class Verdict:
    verdict: str
    killed_by: list[str] = field(default_factory=list)
    failed_non_owners: list[str] = field(default_factory=list)
    excerpt: str = ""
    wrong_owners: list[str] = field(default_factory=list)  # WRONG_FAILURE: who failed that way
    kill_kind: str = ""  # KILLED: the strongest proof among the kills (KILL_KINDS)
    kill_reason: str = ""  # what that kill was: "expect", "AssertionError", "TypeError", ...


def _excerpt(result: ItemResult, limit: int = 1200) -> str:
    text = f"{result.nodeid}: {result.message}".strip()
    body = result.text.strip()
    if body:
        text += "\n" + (body[-limit:] if len(body) > limit else body)
    return text


def decide(owners: Iterable[str], results: Sequence[ItemResult], expect: str | None,
           wrong_failure_types: Sequence[str], accepted_survivor: str | None = None,
           clean_red: Iterable[str] = (), judged: Mapping[str, str | None] | None = None
           ) -> Verdict:
    """The verdict of one mutant from its item results.

    ``clean_red``: non-owner tests that fail on clean code too (they say nothing).
    ``judged``: owners whose failure reason is already decided (``uniformity:`` owners: a
    verdict flip is a kill; ``expect`` is for the tests)."""
    owner_set, red, judged = set(owners), set(clean_red), judged or {}
    reasons = {r.nodeid: judged[r.nodeid] if r.nodeid in judged
               else failure_reason(r, expect, wrong_failure_types)
               for r in results if r.nodeid in owner_set}
    killed = [r for r in results if reasons.get(r.nodeid) == "kill"]
    if killed:
        kinds = [(KILL_KINDS.index(kill_kind(r, expect)[0]), n) for n, r in enumerate(killed)]
        best = killed[min(kinds)[1]]
        kind, reason = kill_kind(best, expect)
        return Verdict("KILLED", [r.nodeid for r in killed],
                       _non_owner_failures(results, owner_set, red), _excerpt(best),
                       kill_kind=kind, kill_reason=reason)
    non_owner = _non_owner_failures(results, owner_set, red)
    for reason, verdict in (("timeout", "TIMEOUT"), ("wrong", "WRONG_FAILURE")):
        hit = [r for r in results if reasons.get(r.nodeid) == reason]
        if hit:
            return Verdict(verdict, [], non_owner, _excerpt(hit[0]),
                           wrong_owners=[r.nodeid for r in hit] if reason == "wrong" else [])
    if non_owner:
        first = next(r for r in results if r.nodeid == non_owner[0])
        return Verdict("OWNER_MISSED", [], non_owner,
                       "killed only by non-owner(s): " + ", ".join(non_owner) + "\n"
                       + _excerpt(first))
    if accepted_survivor:
        return Verdict("ACCEPTED_SURVIVOR", excerpt=f"accepted: {accepted_survivor}")
    ran = [r.nodeid for r in results if r.nodeid in owner_set]
    return Verdict("SURVIVED", excerpt="every owner passed under the mutant: " + ", ".join(ran))


def _non_owner_failures(results: Sequence[ItemResult], owners: set[str],
                        red: set[str]) -> list[str]:
    return [r.nodeid for r in results
            if r.outcome == "failed" and r.nodeid not in owners and r.nodeid not in red]


CRASH_KILLS = ("hold", "fall-short")


def crash_kills_rule(verdict: Verdict, crash_kills: str) -> Verdict:
    """With ``crash_kills = "fall-short"`` a kill only by a crash is a WRONG_FAILURE: no owner
    reached an assertion on the behaviour the mutant breaks."""
    if verdict.verdict != "KILLED" or verdict.kill_kind != "crash" or crash_kills != "fall-short":
        return verdict
    note = (f"killed only by a crash ({verdict.kill_reason}), and crash_kills = \"fall-short\": "
            "no owner reached an assertion on the behaviour")
    return replace(verdict, verdict="WRONG_FAILURE", killed_by=[],
                   wrong_owners=list(verdict.killed_by),
                   excerpt=f"{verdict.excerpt}\n{note}".strip())
