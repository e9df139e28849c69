"""The verdict rules, one by one (pure functions: each rule can be seen to fail)."""

from __future__ import annotations

from deskcheck.mutants.catalog import DEFAULT_WRONG_FAILURE_TYPES as WRONG
from deskcheck.mutants.verdicts import ItemResult, decide, exception_name, failure_reason

OWNER, OTHER = "t.py::owner", "t.py::other"


def failed(nodeid: str, message: str, text: str = "", when: str = "call") -> ItemResult:
    return ItemResult(nodeid, "failed", when, message, text)


def passed(nodeid: str) -> ItemResult:
    return ItemResult(nodeid, "passed")


def test_exception_name():
    for message, name in (("deskcheck.errors.RankError: rank 1 failed", "RankError"),
                          ("AssertionError: assert 1 == 2", "AssertionError"),
                          ("assert 1 == 2", "")):
        got = exception_name(message)
        assert got == name, (
            f"the exception named by the crash line {message!r} was read as {got!r}, not "
            f"{name!r}")


def test_assertion_failure_of_an_owner_kills():
    verdict = decide([OWNER], [failed(OWNER, "AssertionError: told to admit")], None, WRONG)
    assert verdict.verdict == "KILLED" and verdict.killed_by == [OWNER], (
        f"an owner's assertion failure was judged {verdict.verdict} (killed_by "
        f"{verdict.killed_by}), not KILLED by {OWNER}")


def test_crash_of_an_owner_is_wrong_failure():
    for message in ("TypeError: bad operand", "ImportError: no module", "NameError: x"):
        verdict = decide([OWNER], [failed(OWNER, message)], None, WRONG).verdict
        assert verdict == "WRONG_FAILURE", (
            f"an owner that crashed with {message!r} was judged {verdict}, not WRONG_FAILURE")


def test_setup_error_is_wrong_failure():
    result = failed(OWNER, "ValueError: fixture blew up", when="setup")
    reason = failure_reason(result, None, WRONG)
    assert reason == "wrong", (
        f"an owner whose fixture raised in setup was judged {reason!r}, not 'wrong'")


def test_timeout_raised_by_owner_is_not_a_kill():
    verdict = decide([OWNER], [failed(OWNER, "deskcheck.errors.RankTimeoutError: rank 1")],
                     None, WRONG)
    assert verdict.verdict == "TIMEOUT", (
        f"an owner that raised RankTimeoutError was judged {verdict.verdict}, not TIMEOUT")


def test_process_crash_is_not_a_kill():
    verdict = decide([OWNER], [failed(OWNER, "ProcessCrash: the test process died")], None,
                     WRONG)
    assert verdict.verdict == "WRONG_FAILURE", (
        f"an owner whose test process died was judged {verdict.verdict}, not WRONG_FAILURE")


def test_rank_error_carrying_a_crash_is_wrong_failure():
    text = "rank 1 raised:\nTraceback...\nTypeError: 'NoneType' object is not iterable"
    result = failed(OWNER, "deskcheck.errors.RankError: rank 1 failed", text)
    reason = failure_reason(result, None, WRONG)
    assert reason == "wrong", (
        f"a RankError whose rank crashed with a TypeError was judged {reason!r}, not 'wrong'")
    text_assert = "rank 1 raised:\nAssertionError: ranks disagree"
    result = failed(OWNER, "deskcheck.errors.RankError: rank 1 failed", text_assert)
    reason = failure_reason(result, None, WRONG)
    assert reason == "kill", (
        f"a RankError whose rank failed an assertion was judged {reason!r}, not 'kill'")


def test_expect_decides_when_given():
    result = failed(OWNER, "AssertionError: told to admit 5 with room for 3")
    reason = failure_reason(result, "told to admit .* with room for", WRONG)
    assert reason == "kill", (
        f"an owner failure matching its expect was judged {reason!r}, not 'kill'")
    reason = failure_reason(result, "budget exhausted", WRONG)
    assert reason == "wrong", (
        f"an owner failure whose text does not match its expect 'budget exhausted' was judged "
        f"{reason!r}, not 'wrong'")
    crash = failed(OWNER, "TypeError: expected by the catalog")
    reason = failure_reason(crash, "expected by the catalog", WRONG)
    assert reason == "kill", (
        f"a TypeError matching the expect was judged {reason!r}, not 'kill': with an expect "
        "the wrong_failure_types do not apply")


def test_non_owner_kill_is_owner_missed():
    verdict = decide([OWNER], [passed(OWNER), failed(OTHER, "AssertionError: x")], None, WRONG)
    assert verdict.verdict == "OWNER_MISSED", (
        f"only a non-owner test failed (the owner passed), yet the mutant was judged "
        f"{verdict.verdict}, not OWNER_MISSED")
    assert verdict.failed_non_owners == [OTHER], (
        f"the failing non-owner {OTHER} is not named: {verdict.failed_non_owners}")


def test_non_owner_red_on_clean_code_does_not_count():
    verdict = decide([OWNER], [passed(OWNER), failed(OTHER, "AssertionError: x")], None, WRONG,
                     clean_red=[OTHER])
    assert verdict.verdict == "SURVIVED", (
        f"a non-owner that is red on clean code too counted against the mutant: it was judged "
        f"{verdict.verdict}, not SURVIVED")


def test_survivor_and_accepted_survivor():
    plain = decide([OWNER], [passed(OWNER)], None, WRONG).verdict
    assert plain == "SURVIVED", f"a mutant no test failed was judged {plain}, not SURVIVED"
    verdict = decide([OWNER], [passed(OWNER)], None, WRONG, accepted_survivor="equivalent")
    assert verdict.verdict == "ACCEPTED_SURVIVOR" and "equivalent" in verdict.excerpt, (
        f"an accepted survivor was judged {verdict.verdict} with excerpt "
        f"{verdict.excerpt!r}, not ACCEPTED_SURVIVOR naming its reason 'equivalent'")


def test_kill_beats_a_wrong_failure_of_another_owner():
    second = "t.py::owner2"
    verdict = decide([OWNER, second], [failed(OWNER, "TypeError: x"),
                                       failed(second, "AssertionError: y")], None, WRONG)
    assert verdict.verdict == "KILLED" and verdict.killed_by == [second], (
        f"one owner crashed and {second} failed its assertion: judged {verdict.verdict} "
        f"(killed_by {verdict.killed_by}), not KILLED by {second}")


def test_a_rank_error_is_a_kill_when_no_failure_type_is_declared_wrong() -> None:
    """Regression: an empty ``wrong_failure_types`` built the regex ``\\b()\\b:``, which matches
    any colon, so every rank failure became WRONG_FAILURE."""
    from deskcheck.mutants.verdicts import ItemResult, failure_reason

    rank_failure = ItemResult(
        nodeid="tests/test_x.py::test_arm", outcome="failed",
        message="deskcheck.errors.RankError: rank 1 raised ValueError: told to admit 3",
        text="rank 1 raised ValueError: told to admit 3 with room for 1\n  at x.py:3",
    )
    reason = failure_reason(rank_failure, None, [])
    assert reason == "kill", (
        f"with no wrong_failure_types a rank's ValueError was judged {reason!r}, not 'kill'")
    reason = failure_reason(rank_failure, None, ["ValueError"])
    assert reason == "wrong", (
        f"with ValueError declared wrong, a rank's ValueError was judged {reason!r}, not "
        "'wrong'")
