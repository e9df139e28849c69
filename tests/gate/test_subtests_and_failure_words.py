"""What the gates say about one failing item (docs/gate.md, *deskcheck redfirst* and *deskcheck
regress*), as pure functions of the sides' records: a test's failed subtests are kept per side
and named in its detail (the first five, then how many more), the failure's own line follows
its exception, and the one-line failure keeps the first split the recorder named within
FAILURE_LINE_MAX characters."""

from __future__ import annotations

from deskcheck.gate.redfirst import (
    FAILURE_LINE_MAX,
    failure_line,
    first_split_words,
    judge,
    judge_test_only,
    subtest_words,
)
from deskcheck.gate.regress import compare
from deskcheck.gate.selection import MODIFIED, SelectedTest
from tests.gate.pure_sides import side

T = "t/test_a.py::test_s"
FAILED_SUBTESTS = ("(i=1)", "(i=2)")


def test_a_red_base_keeps_its_failed_subtests_and_names_them_after_its_failure_line():
    base = side("base", {T: "failed"}, {T: {
        "when": "call", "exc_type": "AssertionError", "subtests_failed": list(FAILED_SUBTESTS),
        "message": "assert 1 == 2\nmore context"}})
    branch = side("branch", {T: "passed"}, {T: {"subtests_failed": ["(i=9)"]}})
    [got] = judge([SelectedTest(T, "t/test_a.py", 1, MODIFIED)], base, branch, {T: T})
    assert (got.base_subtests_failed, got.branch_subtests_failed) == (
        FAILED_SUBTESTS, ("(i=9)",)), (
        f"each side's failed subtests of the test must be kept on its verdict (base "
        f"{FAILED_SUBTESTS}, branch ('(i=9)',)); got {got.base_subtests_failed}, "
        f"{got.branch_subtests_failed}")
    assert got.detail == ("base: failed in call with AssertionError: assert 1 == 2 (failed "
                          "subtests: (i=1), (i=2)); branch: passed (failed subtests: (i=9))"), (
        f"the detail must name the base failure's phase, exception and first line, then each "
        f"side's failed subtests; got {got.detail!r}")


def test_a_test_only_verdict_keeps_the_branchs_failed_subtests():
    branch = side("branch", {T: "failed"}, {T: {"subtests_failed": list(FAILED_SUBTESTS)}})
    [got] = judge_test_only([SelectedTest(T, "t/test_a.py", 1, MODIFIED)], branch, {T: T})
    assert got.branch_subtests_failed == FAILED_SUBTESTS, (
        f"the branch's failed subtests must be kept on a test-only verdict: "
        f"{got.branch_subtests_failed}")
    assert got.detail.endswith("branch: failed (failed subtests: (i=1), (i=2))"), (
        f"the test-only detail must name the branch's failed subtests: {got.detail!r}")


def test_regress_keeps_each_sides_failed_subtests():
    base = side("base", {T: "passed"}, {T: {"subtests_failed": ["(i=0)"]}})
    branch = side("branch", {T: "failed"}, {T: {"subtests_failed": list(FAILED_SUBTESTS)}})
    [regression], *_ = compare(base, branch, None)
    assert (regression.base_subtests_failed, regression.branch_subtests_failed) == (
        ("(i=0)",), FAILED_SUBTESTS), (
        f"a regression must keep each side's failed subtests (base ('(i=0)',), branch "
        f"{FAILED_SUBTESTS}); got {regression}")


def test_failed_subtests_are_named_five_at_most_then_how_many_more():
    names = tuple(f"(i={i})" for i in range(7))
    assert subtest_words(()) == "", "no failed subtest must add no words"
    assert subtest_words(names[:5]) == (
        " (failed subtests: (i=0), (i=1), (i=2), (i=3), (i=4))"), (
        f"five failed subtests must all be named, with no 'more': {subtest_words(names[:5])!r}")
    assert subtest_words(names) == (
        " (failed subtests: (i=0), (i=1), (i=2), (i=3), (i=4) and 2 more)"), (
        f"seven failed subtests must name the first five and say '2 more': "
        f"{subtest_words(names)!r}")


def test_a_failure_that_starts_with_its_split_is_the_split_alone():
    got = failure_line("first split: sched.py:12: if ready\nrank 0: true\nrank 1: false")
    assert got == "first split: sched.py:12: if ready (rank 0: true; rank 1: false)", (
        f"a failure whose only lines are the split note must be the split with each rank's "
        f"way, nothing before it: {got!r}")


def test_a_split_without_rank_lines_adds_no_brackets():
    got = first_split_words(["boom", "first split: sched.py:12: if ready", "after"])
    assert got == "first split: sched.py:12: if ready", (
        f"a split note with no rank lines after it must be its line alone: {got!r}")


def test_a_long_failure_is_cut_to_exactly_the_room_the_split_leaves():
    split = "first split: s.py:1: if x"
    got = failure_line("rank 1 diverged: " + "y" * 400 + "\n" + split)
    assert len(got) == FAILURE_LINE_MAX and got.endswith("…; " + split), (
        f"a long rank line must be cut (ending in '…') so that it, '; ' and the split fill "
        f"exactly {FAILURE_LINE_MAX} characters; got {len(got)}: {got[-60:]!r}")
    long_split = "first split: s.py:1: if " + "z" * 280
    got = failure_line("rank 1 diverged: " + "y" * 400 + "\n" + long_split)
    said = got.split("; first split:")[0]
    assert len(said) == 60 and said.endswith("…"), (
        f"however long the split, the rank line keeps 60 characters (cut with '…'); it kept "
        f"{len(said)}: {said!r}")
