"""What a kill proves (pure verdict rules): an assertion, a diagnosed hang, another error, or
only a crash; a hang deskcheck diagnosed is a kill, an undiagnosed one a TIMEOUT."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import DEFAULT_WRONG_FAILURE_TYPES
from deskcheck.mutants.verdicts import ItemResult, crash_kills_rule, decide, kill_kind

OWNER = "tests/test_x.py::test_arm"
SKIPPED = ("deskcheck.errors.RankTimeoutError: tests/test_x.py:9: task on world=2 gloo (DESK): "
           "rank 1 skipped all_reduce #1: returned after 0 collectives while rank 0 waited in "
           "it until the 10 s process-group timeout")
NEVER = ("deskcheck.errors.RankTimeoutError: t.py:3: task on world=3 gloo (DESK): rank 2 never "
         "reached all_reduce: still running at pkg/mod.py:88 in step while ranks 0 and 1 "
         "waited in all_reduce until the 10 s process-group timeout")
STUCK = ("deskcheck.errors.RankTimeoutError: t.py:3: task on world=2 gloo (DESK): ranks 0 and 1 "
         "did not get through all_reduce within the 10 s timeout")


def failed(message: str, text: str = "") -> ItemResult:
    return ItemResult(OWNER, "failed", message=message, text=text)


@pytest.mark.parametrize("message", [SKIPPED, NEVER])
def test_a_diagnosed_hang_is_a_kill_with_default_settings(message):
    verdict = decide([OWNER], [failed(message)], None, DEFAULT_WRONG_FAILURE_TYPES)
    assert verdict.verdict == "KILLED", f"a hang naming its rank was judged {verdict.verdict}"
    assert (verdict.kill_kind, verdict.kill_reason) == ("hang", "RankTimeoutError"), (
        "a diagnosed hang must be a kill of kind 'hang' by RankTimeoutError; it was "
        f"{(verdict.kill_kind, verdict.kill_reason)}"
    )


def test_a_hang_nobody_diagnosed_stays_a_timeout():
    verdict = decide([OWNER], [failed(STUCK)], None, DEFAULT_WRONG_FAILURE_TYPES)
    assert verdict.verdict == "TIMEOUT", (
        f"a rank timeout that names no skipping rank was judged {verdict.verdict}")
    plain = decide([OWNER], [failed("TimeoutError: waited 30 s")], None, ())
    assert plain.verdict == "TIMEOUT", f"a plain TimeoutError was judged {plain.verdict}"


@pytest.mark.parametrize("message, text, expect, kind", [
    ("AssertionError: rank 1 admitted 5", "", None, ("assertion", "AssertionError")),
    ("deskcheck.errors.RankAssertionError: rank 0 raised AssertionError", "", None,
     ("assertion", "RankAssertionError")),
    ("Failed: the plan diverged", "", None, ("assertion", "Failed")),
    ("deskcheck.errors.CongruenceError: t.py:3: congruence arm 'count' diverged", "", None,
     ("assertion", "CongruenceError")),
    ("TypeError: cannot unpack non-iterable NoneType object", "", None, ("crash", "TypeError")),
    ("AttributeError: 'NoneType' object has no attribute 'admit'", "", None,
     ("crash", "AttributeError")),
    ("deskcheck.errors.RankError: rank 1 raised TypeError: '<=' not supported",
     "TypeError: '<=' not supported between instances of 'NoneType' and 'int'", None,
     ("crash", "TypeError")),
    ("RuntimeError: the allocator refused 3 requests", "", None, ("error", "RuntimeError")),
    ("TypeError: cannot unpack", "", "cannot unpack", ("assertion", "expect")),
])
def test_each_kill_says_what_it_proves(message, text, expect, kind):
    got = kill_kind(failed(message, text), expect)
    assert got == kind, f"a kill by {message[:50]!r} was classified {got}, not {kind}"


def test_the_strongest_proof_among_the_owners_is_the_one_reported():
    results = [ItemResult("t.py::a", "failed", message="TypeError: x"),
               ItemResult("t.py::b", "failed", message="AssertionError: y")]
    verdict = decide(["t.py::a", "t.py::b"], results, None, ())
    assert verdict.kill_kind == "assertion", (
        f"an owner failed an assertion, yet the kill was reported as {verdict.kill_kind}")


def test_crash_kills_can_be_made_to_fall_short():
    verdict = decide([OWNER], [failed("TypeError: cannot unpack non-iterable NoneType")], None,
                     ())
    assert crash_kills_rule(verdict, "hold").verdict == "KILLED", (
        "with crash_kills = hold a crash-only kill must stay KILLED; it was "
        f"{crash_kills_rule(verdict, 'hold').verdict}"
    )
    strict = crash_kills_rule(verdict, "fall-short")
    assert strict.verdict == "WRONG_FAILURE", f"a crash-only kill was {strict.verdict}"
    assert "killed only by a crash (TypeError)" in strict.excerpt, strict.excerpt
    assert strict.wrong_owners == [OWNER], (
        "a crash-only kill that falls short must name its owner as the wrong one; wrong_owners is "
        f"{strict.wrong_owners}"
    )
    asserted = decide([OWNER], [failed("AssertionError: no")], None, ())
    assert crash_kills_rule(asserted, "fall-short").verdict == "KILLED", (
        "a kill by an assertion fell short under crash_kills = fall-short")
