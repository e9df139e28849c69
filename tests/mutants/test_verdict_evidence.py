"""What a verdict carries as evidence (docs/mutants.md, *Verdicts*): the exception name read
from a failure, a failed setup or a rank error as a kill, the killers, non-owner failures,
excerpts and trimmed failure texts of each verdict."""

from __future__ import annotations


def _failed(nodeid: str, message: str, text: str = "", when: str = "call"):
    from deskcheck.mutants.verdicts import ItemResult

    return ItemResult(nodeid, "failed", when, message, text)


def _passed(nodeid: str):
    from deskcheck.mutants.verdicts import ItemResult

    return ItemResult(nodeid, "passed")


WRONG = ("ImportError", "TypeError", "fixture")


def test_exception_name_reads_only_the_dotted_name_before_the_first_colon():
    from deskcheck.mutants.verdicts import exception_name

    cases = {"a.b.RankError: rank 1: lost": "RankError", "KeyboardInterrupt": "",
             "pkg.mod.Err: x": "Err", "Timeout: a.b: c": "Timeout"}
    got = {message: exception_name(message) for message in cases}
    assert got == cases, f"exception names are read wrongly: {got}"


def test_a_failed_setup_of_a_plain_assertion_is_still_a_kill():
    from deskcheck.mutants.verdicts import failure_reason

    for name in ("AssertionError", "Failed"):
        result = _failed("t::o", f"{name}: told to admit", when="setup")
        assert failure_reason(result, None, WRONG) == "kill", (
            f"an owner whose fixture asserted ({name}) was not counted as a kill")


def test_a_rank_error_is_a_kill_unless_its_text_shows_a_crash():
    from deskcheck.mutants.verdicts import failure_reason

    clean = _failed("t::o", "deskcheck.errors.RankError: rank 1 failed", "rank 1 returned 3")
    assert failure_reason(clean, None, WRONG) == "kill", (
        "a rank error without any crash in its text was not counted as a kill")
    both = _failed("t::o", "deskcheck.errors.RankError: rank 1 failed",
                   "TypeError: x\nAssertionError: ranks disagree")
    assert failure_reason(both, None, WRONG) == "kill", (
        "a rank error whose text shows an AssertionError was not counted as a kill")


def test_killed_verdict_carries_killers_non_owner_failures_and_excerpt():
    from deskcheck.mutants.verdicts import decide

    results = [_failed("t::o", "AssertionError: told to admit", "E  long text"),
               _failed("t::x", "AssertionError: other"), _failed("t::red", "AssertionError: r")]
    verdict = decide(["t::o"], results, None, WRONG, clean_red=["t::red"])
    assert (verdict.verdict, verdict.killed_by, verdict.failed_non_owners) == (
        "KILLED", ["t::o"], ["t::x"]), f"a kill is reported wrongly: {verdict}"
    assert verdict.excerpt == "t::o: AssertionError: told to admit\nE  long text", (
        f"the kill's excerpt does not show the owner's failure: {verdict.excerpt!r}")


def test_expect_is_applied_to_every_owner_when_deciding():
    from deskcheck.mutants.verdicts import decide

    results = [_failed("t::o", "AssertionError: budget exhausted")]
    verdict = decide(["t::o"], results, "told to admit", WRONG)
    assert verdict.verdict == "WRONG_FAILURE", (
        f"decide ignored expect: a failure not matching it gave {verdict.verdict}")


def test_wrong_failure_and_timeout_verdicts_carry_their_evidence():
    from deskcheck.mutants.verdicts import decide

    for message, expected in (("TypeError: bad operand", "WRONG_FAILURE"),
                              ("TimeoutError: rank 1", "TIMEOUT")):
        results = [_failed("t::o", message, "trace"), _failed("t::x", "AssertionError: x")]
        verdict = decide(["t::o"], results, None, WRONG)
        assert (verdict.verdict, verdict.killed_by, verdict.failed_non_owners) == (
            expected, [], ["t::x"]), f"{expected} is reported wrongly: {verdict}"
        assert verdict.excerpt == f"t::o: {message}\ntrace", (
            f"the {expected} excerpt does not show the owner's failure: {verdict.excerpt!r}")


def test_owner_missed_and_survived_excerpts_name_the_tests():
    from deskcheck.mutants.verdicts import decide

    results = [_passed("t::o"), _passed("t::p"), _failed("t::x", "AssertionError: x")]
    missed = decide(["t::o", "t::p"], results, None, WRONG)
    assert (missed.verdict, missed.killed_by) == ("OWNER_MISSED", []), missed
    assert missed.excerpt == "killed only by non-owner(s): t::x\nt::x: AssertionError: x", (
        f"the OWNER_MISSED excerpt does not name the non-owner kill: {missed.excerpt!r}")
    survived = decide(["t::o", "t::p"], results[:2], None, WRONG)
    assert survived.excerpt == "every owner passed under the mutant: t::o, t::p", (
        f"the SURVIVED excerpt does not name the owners that passed: {survived.excerpt!r}")


def test_a_long_failure_text_is_trimmed_to_its_tail():
    from deskcheck.mutants.verdicts import decide

    text = "head " + "x" * 1300 + " tail"
    verdict = decide(["t::o"], [_failed("t::o", "AssertionError: a", text)], None, WRONG)
    body = verdict.excerpt.split("\n", 1)[1]
    assert body == text[-1200:], "the excerpt keeps the wrong part of a long failure text"
    exact = "y" * 1200
    verdict = decide(["t::o"], [_failed("t::o", "AssertionError: a", exact)], None, WRONG)
    assert verdict.excerpt.endswith("\n" + exact), "a text of exactly the limit was cut"
