"""Verdict rules in combination (docs/mutants.md, the verdict table): several owners failing
the wrong way, a timeout beside a wrong failure, several non-owner kills."""

from __future__ import annotations

from deskcheck.mutants.verdicts import ItemResult, decide

WRONG = ("ImportError", "TypeError", "fixture")


def failed(nodeid: str, message: str, text: str = "") -> ItemResult:
    return ItemResult(nodeid, "failed", message=message, text=text)


def test_a_wrong_failure_names_every_owner_that_failed_the_wrong_way():
    results = [failed("t::a", "TypeError: bad operand"), ItemResult("t::b", "passed"),
               failed("t::c", "ImportError: no module x"), failed("t::x", "AssertionError: x")]
    verdict = decide(["t::a", "t::b", "t::c"], results, None, WRONG)
    assert (verdict.verdict, verdict.wrong_owners) == ("WRONG_FAILURE", ["t::a", "t::c"]), (
        f"two owners crashed with wrong failure types and one passed: the verdict must be "
        f"WRONG_FAILURE naming both crashed owners (the report's wrong_failure_owners); got "
        f"{verdict.verdict} naming {verdict.wrong_owners}")


def test_a_timeout_names_no_wrong_owner():
    results = [failed("t::a", "TimeoutError: rank 1"), failed("t::b", "TypeError: x")]
    verdict = decide(["t::a", "t::b"], results, None, WRONG)
    assert (verdict.verdict, verdict.wrong_owners) == ("TIMEOUT", []), (
        f"an owner that timed out makes the verdict TIMEOUT (it outranks a wrong failure), "
        f"which names no wrong-failure owner; got {verdict.verdict} naming "
        f"{verdict.wrong_owners}")


def test_owner_missed_names_every_non_owner_kill_in_one_readable_list():
    results = [ItemResult("t::o", "passed"), failed("t::x", "AssertionError: x"),
               failed("t::y", "AssertionError: y"), failed("t::red", "AssertionError: r")]
    verdict = decide(["t::o"], results, None, WRONG, clean_red=["t::red"])
    assert verdict.verdict == "OWNER_MISSED" and verdict.failed_non_owners == ["t::x", "t::y"], (
        f"two non-owners failed under the mutant (a third fails on clean code too and says "
        f"nothing): OWNER_MISSED naming t::x and t::y; got {verdict.verdict}, "
        f"{verdict.failed_non_owners}")
    assert verdict.excerpt.splitlines()[0] == "killed only by non-owner(s): t::x, t::y", (
        f"the excerpt's first line must list the non-owner kills, comma-separated; got "
        f"{verdict.excerpt!r}")

