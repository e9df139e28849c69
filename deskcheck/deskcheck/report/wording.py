"""The words every output format uses for a verdict: one line of why, the owners concerned,
the fix to try, and the failure excerpt without what those lines already said.

Terminal, Markdown, JUnit and HTML all call these, so a verdict reads the same everywhere and
nothing (an owner list, a failure) is printed twice.
"""

from __future__ import annotations

import re

from deskcheck.report.records import MutantRecord

_LOCATION = re.compile(r"^(?:\S+::\S+|\S+?\.py:\d+): ")  # "node::id: " or "path.py:12: "
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Failed|Failure))\b")


def accepted_reason(mutant: MutantRecord) -> str:
    detail = mutant.detail
    return str(detail.get("accepted_reason") or detail.get("reason") or mutant.excerpt or "")


def wrong_failure_owners(mutant: MutantRecord) -> list[str]:
    """The owners that failed for another reason than the defect (WRONG_FAILURE), not every
    owner: recorded by the sweep, else the owner the failure excerpt starts with."""
    recorded = mutant.detail.get("wrong_failure_owners")
    if recorded:
        return list(recorded)
    head = mutant.excerpt.split("\n", 1)[0]
    named = [o for o in mutant.owners if head.startswith(f"{o}:")]
    return named or list(mutant.owners)


def wrong_failure_fix(mutant: MutantRecord) -> str:
    """What to try for a WRONG_FAILURE, naming the exception the owner died of."""
    found = _EXCEPTION.search(mutant.excerpt)
    crash = found.group(1) if found else "an exception"
    if "crash_kills = \"fall-short\"" in mutant.excerpt:
        return (f"the owner only crashed on {crash} (e.g. a None the mutant put there): make "
                "it assert on the behaviour the mutant breaks; crash_kills = \"fall-short\" "
                "counts no kill by a crash alone")
    return (f"the owner stopped on {crash} before its assertion judged the defect: make the "
            f"test reach an assertion on the behaviour the mutant breaks, or, if {crash} is "
            f"how this defect shows, declare it: expect = \"{crash}\" on the mutant (or drop "
            f"it from [sweep] wrong_failure_types)")


def kill_proof(mutant: MutantRecord) -> str:
    """What a KILLED mutant's kill proves, in words: ``"only by a crash (TypeError)"``."""
    from deskcheck.report.summary import KILL_WORDS

    kind, reason = mutant.detail.get("kill"), mutant.detail.get("kill_reason")
    if mutant.verdict != "KILLED" or kind not in KILL_WORDS:
        return ""
    what = {"expect": "the expected message"}.get(str(reason), str(reason or ""))
    return KILL_WORDS[kind] + (f" ({what})" if what and kind != "assertion" or
                               reason == "expect" else "")


def verdict_message(mutant: MutantRecord) -> str:
    """One line saying why this mutant's verdict is what it is."""
    owners = ", ".join(mutant.owners) or "(no owner)"
    others = ", ".join(mutant.failed_non_owners)
    proof = kill_proof(mutant)
    return {
        "KILLED": f"killed by {', '.join(mutant.killed_by) or owners}"
                  + (f", {proof}" if proof else ""),
        "SURVIVED": f"survived: no test failed; owners missed it: {owners}",
        "OWNER_MISSED": f"owner missed it: killed only by non-owners {others or '(unnamed)'}; "
                        f"owners: {owners}",
        "WRONG_FAILURE": "owner failed for another reason than expected: "
                         f"{', '.join(wrong_failure_owners(mutant))}",
        "STALE": "stale: the operator does not match the target's source",
        "TIMEOUT": "timeout: the mutant hung and no owner diagnosed the hang (never counted "
                   "as a kill)",
        "BROKEN": "broken: the mutant does not compile or import",
        "NOT_INJECTABLE": "not injectable: the code that would run the mutant cannot be "
                          "reached in memory (see the excerpt); judge it on disk",
        "BASELINE_RED": f"baseline red: owners fail on clean code, nothing judged: {owners}",
        "ACCEPTED_SURVIVOR": f"accepted survivor: {accepted_reason(mutant)}",
    }.get(mutant.verdict, mutant.verdict)


def fix_hint(mutant: MutantRecord) -> str:
    """The fix to try, for the verdicts where one can be said ("" otherwise)."""
    if mutant.verdict == "WRONG_FAILURE":
        return wrong_failure_fix(mutant)
    if mutant.verdict == "SURVIVED":
        return ("add an assertion to an owner that fails under this diff, or, if the mutant "
                "is equivalent, set accepted_survivor = \"why\" on it")
    if mutant.verdict == "OWNER_MISSED":
        return "add the test that failed to owners = [...], or make an owner catch it too"
    if mutant.verdict == "STALE":
        return (f"compare the entry's snippet and occurrence with the target's source today "
                f"(`deskcheck mutants show {mutant.id}`); update the entry to the code as it "
                "is, or remove it if the defect can no longer be written")
    if mutant.verdict == "TIMEOUT" and "RankTimeoutError" in mutant.excerpt:
        return ("the rank pool's diagnosis named no rank that skipped the collective (every "
                "rank waited in one: a deadlock, or collectives that differ in order or shape "
                "across ranks): read each rank's stack in the excerpt; add an `expect` if this "
                "hang is the failure the mutant must cause")
    if mutant.verdict == "TIMEOUT":
        return ("run the owner's ranks in a deskcheck.suites rank pool: its short process-group "
                "timeout names the rank that skipped the collective, the sweep waits for that "
                "diagnosis, and a diagnosed hang is a kill (a launcher of your own that names "
                "the skipping rank calls deskcheck.mutants.note_rank_group(timeout_s) in each "
                "rank)")
    return ""


def excerpt_lines(mutant: MutantRecord) -> list[str]:
    """The failure excerpt minus what ``verdict_message`` already says: nothing for SURVIVED
    (its excerpt is the owner list) and ACCEPTED_SURVIVOR (the reason), no "killed only by"
    header for OWNER_MISSED, and each failure line once (pytest reports the crash line both
    as the message and in the long text)."""
    if mutant.verdict in ("SURVIVED", "ACCEPTED_SURVIVOR"):
        return []
    lines = mutant.excerpt.strip().splitlines()
    if lines and lines[0].startswith("killed only by non-owner(s):"):
        lines = lines[1:]
    named = {"OWNER_MISSED": mutant.failed_non_owners,
             "WRONG_FAILURE": wrong_failure_owners(mutant)}.get(mutant.verdict, [])
    if len(named) == 1 and lines and lines[0].startswith(f"{named[0]}: "):
        lines[0] = lines[0][len(named[0]) + 2:]  # the one test the line above names already
    seen: set[str] = set()
    kept: list[str] = []
    for line in lines:
        key = _LOCATION.sub("", line.strip())
        if key and key in seen:
            continue
        if key:
            seen.add(key)
        kept.append(line)
    return kept
