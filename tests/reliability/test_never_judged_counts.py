"""A run's summary counts every planned mutant it never judged: the count is whole, only the
listed ids are cut to ``SHOWN_NEVER_JUDGED``; and such a run does not hold."""

from __future__ import annotations

from deskcheck.report.records import MutantRecord
from deskcheck.report.summary import SHOWN_NEVER_JUDGED, summarize


def test_the_never_judged_count_is_whole_when_the_ids_are_cut() -> None:
    planned = [f"k.m{i:02d}" for i in range(SHOWN_NEVER_JUDGED + 5)]
    summary = summarize([], planned=planned)
    assert summary["never_judged"] == len(planned), (
        f"{len(planned)} planned mutants were never judged but the summary counts "
        f"{summary['never_judged']}: the count must be whole, only the listed ids are cut")
    assert summary["never_judged_ids"] == planned[:SHOWN_NEVER_JUDGED], (
        f"the first {SHOWN_NEVER_JUDGED} ids are listed: {summary['never_judged_ids']}")
    assert summary["planned"] == len(planned), f"planned counts the plan: {summary}"


def test_a_run_whose_judged_mutants_all_held_but_one_was_never_judged_does_not_hold() -> None:
    killed = MutantRecord(id="k.a", title="a", target="t", operator="op", verdict="KILLED")
    summary = summarize([killed], planned=["k.a", "k.b"])
    assert summary["never_judged"] == 1 and summary["holds"] is False, (
        "k.b was planned and never judged: the run does not hold even though k.a was killed; "
        f"got {summary}")
