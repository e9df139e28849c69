"""Verdict rules in combination (docs/mutants.md, *Verdicts*): owner and non-owner outcomes
together with ``accepted_survivor``, ``expect`` and timeouts; several owners failing the
wrong way, a timeout beside a wrong failure, several non-owner kills. Each rule alone is
pinned in tests/mutants/test_mutants_verdicts.py; these pin what wins when several hold."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import DEFAULT_WRONG_FAILURE_TYPES as WRONG
from deskcheck.mutants.verdicts import ItemResult, decide

OWNER, OWNER2, OTHER = "t.py::owner", "t.py::owner2", "t.py::other"


ASSERTION = "AssertionError: told to admit 5 with room for 3"


TIMEOUT = "deskcheck.errors.RankTimeoutError: rank 1 hung in all_reduce"


CRASH = "TypeError: unsupported operand"


def failed(nodeid: str, message: str, when: str = "call") -> ItemResult:
    return ItemResult(nodeid, "failed", when, message, "")


def passed(nodeid: str) -> ItemResult:
    return ItemResult(nodeid, "passed")


def skipped(nodeid: str) -> ItemResult:
    return ItemResult(nodeid, "skipped")


# (case, owners' results, non-owners' results, accepted_survivor, expected verdict, why)
CASES = [
    ("kill+non_owner", [failed(OWNER, ASSERTION)], [failed(OTHER, ASSERTION)], None,
     "KILLED", "an owner's assertion failure is a kill whatever the other tests did"),
    ("timeout+non_owner", [failed(OWNER, TIMEOUT)], [failed(OTHER, ASSERTION)], None,
     "TIMEOUT", "an owner that timed out is a TIMEOUT, not a kill by some other test"),
    ("wrong+non_owner", [failed(OWNER, CRASH)], [failed(OTHER, ASSERTION)], None,
     "WRONG_FAILURE", "an owner that crashed failed for the wrong reason; the other test's "
     "failure does not turn that into OWNER_MISSED"),
    ("timeout+kill", [failed(OWNER, TIMEOUT), failed(OWNER2, ASSERTION)], [], None,
     "KILLED", "one owner failing for the right reason is enough, even when another hung"),
    ("accepted+non_owner", [passed(OWNER)], [failed(OTHER, ASSERTION)], "equivalent: x",
     "OWNER_MISSED", "accepted_survivor accepts a mutant nothing fails, not a kill by a "
                     "non-owner"),
    ("accepted+kill", [failed(OWNER, ASSERTION)], [], "equivalent: x",
     "KILLED", "an accepted survivor that the owner now kills is KILLED"),
    ("accepted+wrong", [failed(OWNER, CRASH)], [], "equivalent: x",
     "WRONG_FAILURE", "accepted_survivor never hides an owner that crashed"),
    ("accepted+timeout", [failed(OWNER, TIMEOUT)], [], "equivalent: x",
     "TIMEOUT", "accepted_survivor never hides an owner that timed out"),
    ("accepted+clean_red", [passed(OWNER)], [failed("t.py::red", ASSERTION)], "equivalent: x",
     "ACCEPTED_SURVIVOR", "a non-owner red on clean code too says nothing about the mutant"),
    ("skipped_owner", [skipped(OWNER)], [], None,
     "SURVIVED", "a skipped owner did not fail: nothing failed, the mutant survived"),
    ("setup_error+non_owner", [failed(OWNER, "ValueError: fixture x", when="setup")],
     [failed(OTHER, ASSERTION)], None,
     "WRONG_FAILURE", "an owner's fixture error is a failure for the wrong reason"),
]


@pytest.mark.parametrize(("owner_results", "others", "accepted", "expected", "why"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_verdict_of_a_combination(owner_results, others, accepted, expected, why):
    results = owner_results + others
    owners = [r.nodeid for r in owner_results]
    verdict = decide(owners, results, None, WRONG, accepted_survivor=accepted,
                     clean_red=["t.py::red"])
    outcomes = ", ".join(f"{r.nodeid} {r.outcome} {r.message!r}" for r in results)
    assert verdict.verdict == expected, (
        f"owners {owners} with outcomes [{outcomes}] and accepted_survivor={accepted!r} were "
        f"judged {verdict.verdict}, not {expected}: {why}")


def test_every_owner_that_killed_is_named():
    verdict = decide([OWNER, OWNER2], [failed(OWNER, ASSERTION), failed(OWNER2, ASSERTION)],
                     None, WRONG)
    assert verdict.killed_by == [OWNER, OWNER2], (
        f"both owners failed for the right reason, but killed_by names {verdict.killed_by}: "
        "the report would hide an owner that works")


def test_a_kill_still_names_the_failing_non_owners():
    verdict = decide([OWNER], [failed(OWNER, ASSERTION), failed(OTHER, ASSERTION),
                               failed("t.py::red", ASSERTION)], None, WRONG,
                     clean_red=["t.py::red"])
    assert verdict.failed_non_owners == [OTHER], (
        f"a KILLED mutant also failed the non-owner {OTHER} (and t.py::red, red on clean code "
        f"too), but failed_non_owners is {verdict.failed_non_owners}, not [{OTHER!r}]")


def test_expect_is_matched_against_owners_only():
    verdict = decide([OWNER], [passed(OWNER), failed(OTHER, "AssertionError: budget gone")],
                     "budget gone", WRONG)
    assert verdict.verdict == "OWNER_MISSED", (
        f"only a non-owner failed (its text matches the expect 'budget gone'; the owner "
        f"passed), yet the mutant was judged {verdict.verdict}, not OWNER_MISSED")


def test_expect_overrides_the_wrong_failure_types():
    verdict = decide([OWNER], [failed(OWNER, "TypeError: budget gone")], "budget gone", WRONG)
    assert verdict.verdict == "KILLED", (
        f"the owner's TypeError matches the expect 'budget gone', which names the right reason, "
        f"yet the mutant was judged {verdict.verdict}, not KILLED (with an expect, the "
        "wrong_failure_types do not apply)")


def test_an_expect_miss_is_wrong_failure_even_for_an_accepted_survivor():
    verdict = decide([OWNER], [failed(OWNER, ASSERTION)], "budget gone", WRONG,
                     accepted_survivor="equivalent: x")
    assert verdict.verdict == "WRONG_FAILURE", (
        f"the owner failed but not as its expect 'budget gone' says; with accepted_survivor "
        f"set the mutant was judged {verdict.verdict}, not WRONG_FAILURE")


def test_a_survivor_names_the_owners_that_passed():
    verdict = decide([OWNER, OWNER2], [passed(OWNER), passed(OWNER2)], None, WRONG)
    assert verdict.verdict == "SURVIVED" and OWNER in verdict.excerpt \
        and OWNER2 in verdict.excerpt, (
            f"a survivor's excerpt must name every owner that passed under the mutant; "
            f"got {verdict.verdict}: {verdict.excerpt!r}")


# the short wrong-failure list of the three combination cases below
WRONG_SHORT = ("ImportError", "TypeError", "fixture")


def test_a_wrong_failure_names_every_owner_that_failed_the_wrong_way():
    results = [failed("t::a", "TypeError: bad operand"), ItemResult("t::b", "passed"),
               failed("t::c", "ImportError: no module x"), failed("t::x", "AssertionError: x")]
    verdict = decide(["t::a", "t::b", "t::c"], results, None, WRONG_SHORT)
    assert (verdict.verdict, verdict.wrong_owners) == ("WRONG_FAILURE", ["t::a", "t::c"]), (
        f"two owners crashed with wrong failure types and one passed: the verdict must be "
        f"WRONG_FAILURE naming both crashed owners (the report's wrong_failure_owners); got "
        f"{verdict.verdict} naming {verdict.wrong_owners}")


def test_a_timeout_names_no_wrong_owner():
    results = [failed("t::a", "TimeoutError: rank 1"), failed("t::b", "TypeError: x")]
    verdict = decide(["t::a", "t::b"], results, None, WRONG_SHORT)
    assert (verdict.verdict, verdict.wrong_owners) == ("TIMEOUT", []), (
        f"an owner that timed out makes the verdict TIMEOUT (it outranks a wrong failure), "
        f"which names no wrong-failure owner; got {verdict.verdict} naming "
        f"{verdict.wrong_owners}")


def test_owner_missed_names_every_non_owner_kill_in_one_readable_list():
    results = [ItemResult("t::o", "passed"), failed("t::x", "AssertionError: x"),
               failed("t::y", "AssertionError: y"), failed("t::red", "AssertionError: r")]
    verdict = decide(["t::o"], results, None, WRONG_SHORT, clean_red=["t::red"])
    assert verdict.verdict == "OWNER_MISSED" and verdict.failed_non_owners == ["t::x", "t::y"], (
        f"two non-owners failed under the mutant (a third fails on clean code too and says "
        f"nothing): OWNER_MISSED naming t::x and t::y; got {verdict.verdict}, "
        f"{verdict.failed_non_owners}")
    assert verdict.excerpt.splitlines()[0] == "killed only by non-owner(s): t::x, t::y", (
        f"the excerpt's first line must list the non-owner kills, comma-separated; got "
        f"{verdict.excerpt!r}")
