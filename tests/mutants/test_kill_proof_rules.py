"""What a kill proves, decided by the pure verdict rules (docs/mutants.md, *Verdicts* and
*What a kill proves*), and the hang budget's diagnosis allowance."""

from __future__ import annotations

from deskcheck.mutants.verdicts import (
    ItemResult,
    crash_kills_rule,
    decide,
    failure_reason,
    kill_kind,
)

WRONG = ("ImportError", "ModuleNotFoundError")


def failed(nodeid: str, message: str, text: str = "") -> ItemResult:
    return ItemResult(nodeid=nodeid, outcome="failed", message=message, text=text)


def test_a_kill_only_by_a_crash_is_a_wrong_failure_with_fall_short():
    verdict = decide(["t::a"], [failed("t::a", "AttributeError: 'NoneType' has no 'x'")],
                     None, WRONG)
    assert verdict.verdict == "KILLED" and verdict.kill_kind == "crash", (
        f"an AttributeError-only kill was not recorded as 'only by a crash': {verdict}")
    ruled = crash_kills_rule(verdict, "fall-short")
    assert ruled.verdict == "WRONG_FAILURE", (
        f'crash_kills = "fall-short" left a crash-only kill {ruled.verdict}, not WRONG_FAILURE')
    assert crash_kills_rule(verdict, "hold").verdict == "KILLED", (
        'crash_kills = "hold" turned a crash-only kill into a failure')
    note = ('killed only by a crash (AttributeError), and crash_kills = "fall-short": no owner '
            "reached an assertion on the behaviour")
    assert ruled.excerpt.endswith("\n" + note), (
        "the WRONG_FAILURE of a crash-only kill must end its excerpt with the note that says why "
        f"(the words fix_hint and the reports show), {note!r}; the excerpt is {ruled.excerpt!r}")


def test_the_recorded_kill_is_the_strongest_proof_among_the_owners():
    results = [failed("t::crash", "TypeError: bad operand"),
               failed("t::assert", "AssertionError: assert 2 == 3")]
    verdict = decide(["t::crash", "t::assert"], results, None, WRONG)
    assert verdict.kill_kind == "assertion", (
        f"two owners killed (a crash and an assertion) and the kill was recorded as "
        f"{verdict.kill_kind!r}: the strongest proof, 'assertion', must be recorded")


def test_a_rank_that_never_reached_the_collective_is_a_diagnosed_hang():
    result = failed("t::a", "RankTimeoutError: rank 1 never reached all_reduce #2: rank 0 "
                            "waited in it until the 10 s process-group timeout")
    assert failure_reason(result, None, WRONG) == "kill", (
        "a RankTimeoutError naming the rank that never reached the collective was not a kill")
    assert kill_kind(result, None)[0] == "hang", "it was not recorded as a diagnosed hang"


def test_a_timeout_naming_no_rank_is_a_timeout():
    result = failed("t::a", "RankTimeoutError: the group timed out")
    assert failure_reason(result, None, WRONG) == "timeout", (
        "a rank timeout that names no skipping rank was judged other than a TIMEOUT")
