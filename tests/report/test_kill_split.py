"""Kills that say what they prove: every renderer tells a kill by an assertion from a kill
only by a crash, in the same words (``8 KILLED: 2 by an assertion, 6 only by a crash``)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.renderers import FORMATS, render
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import kill_split, killed_phrase, mutation_score

PHRASE = "8 KILLED: 2 by an assertion, 6 only by a crash"


def killed(n: int, kind: str, reason: str) -> MutantRecord:
    return MutantRecord(id=f"m.{kind}.{n}", title=f"{kind} kill {n}", target="pkg.mod:f",
                        operator="rank-local", verdict="KILLED", owners=["tests/t.py::test_a"],
                        killed_by=["tests/t.py::test_a"],
                        detail={"kill": kind, "kill_reason": reason})


@pytest.fixture
def data(tmp_path) -> ReportData:
    mutants = [killed(n, "assertion", "AssertionError") for n in range(2)]
    mutants += [killed(n, "crash", "TypeError") for n in range(6)]
    run = RunRecord(kind="sweep", id=7, commit="abc", status="done")
    return ReportData(run=run, mutants=mutants, root=tmp_path)


def test_the_split_counts_each_kind_of_kill(data):
    assert kill_split(data.mutants) == {"assertion": 2, "crash": 6}, (
        "the kill split must count 2 assertion and 6 crash kills; it counts "
        f"{kill_split(data.mutants)}"
    )
    assert killed_phrase(data.mutants) == PHRASE, (
        f"the killed phrase must be {PHRASE!r}; it is {killed_phrase(data.mutants)!r}"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_renderer_says_how_the_mutants_were_killed(data, fmt):
    text = render(data, fmt)
    words = {"markdown": "2 by an assertion, 6 only by a crash",
             "html": "2 by an assertion, 6 only by a crash"}.get(fmt, PHRASE)
    assert words in text, f"the {fmt} report does not say {words!r}:\n{text[:1500]}"


def test_each_crash_only_kill_is_named_where_the_mutant_is_shown(data):
    suite = ET.fromstring(render(data, "junit"))
    outs = [case.findtext("system-out") or "" for case in suite.iter("testcase")]
    crash = [o for o in outs if "only by a crash (TypeError)" in o]
    assert len(crash) == 6, f"JUnit names {len(crash)} crash-only kills, expected 6: {outs}"
    stryker = json.loads(render(data, "stryker"))
    reasons = [m["statusReason"] for f in stryker["files"].values() for m in f["mutants"]]
    assert sum("only by a crash" in r for r in reasons) == 6, reasons
    markdown = render(data, "markdown")
    assert markdown.count("only by a crash (TypeError)") == 6, markdown


def test_json_carries_the_split_as_numbers(data):
    summary = json.loads(render(data, "json"))["summary"]
    assert summary["kills"] == {"assertion": 2, "crash": 6}, summary
    assert summary["killed"] == PHRASE, summary


def test_kills_recorded_before_kinds_were_kept_are_not_guessed(tmp_path):
    old = MutantRecord(id="m", title="t", target="p:f", operator="swap", verdict="KILLED")
    assert killed_phrase([old]) == "1 KILLED", "a kill without a recorded kind was classified"
    assert kill_split([old]) == {"unrecorded": 1}, (
        "a kill recorded before kinds were kept must count as unrecorded, not guessed; it counts "
        f"{kill_split([old])}"
    )


def test_a_timeout_says_how_to_get_the_diagnosis():
    from deskcheck.report.wording import fix_hint

    hung = MutantRecord(id="m", title="t", target="p:f", operator="skip-on-rank",
                        verdict="TIMEOUT", excerpt="timed out after 13.0s in t.py::test_a")
    assert "deskcheck.suites rank pool" in fix_hint(hung), fix_hint(hung)
    undiagnosed = MutantRecord(id="m", title="t", target="p:f", operator="skip-on-rank",
                               verdict="TIMEOUT", excerpt=(
                                   "t.py::test_a: deskcheck.errors.RankTimeoutError: ranks 0 "
                                   "and 1 did not get through all_reduce within the 10 s "
                                   "timeout"))
    assert "named no rank that skipped" in fix_hint(undiagnosed), fix_hint(undiagnosed)


def test_a_crash_kill_that_falls_short_says_to_assert_on_the_behaviour():
    from deskcheck.report.wording import fix_hint

    short = MutantRecord(id="m", title="t", target="p:f", operator="replace",
                         verdict="WRONG_FAILURE", owners=["t.py::test_a"], excerpt=(
                             "t.py::test_a: AttributeError: 'NoneType' object has no attribute "
                             "'admit'\nkilled only by a crash (AttributeError), and crash_kills "
                             "= \"fall-short\": no owner reached an assertion on the behaviour"))
    hint = fix_hint(short)
    assert "assert on the behaviour" in hint and "AttributeError" in hint, hint
    assert "wrong_failure_types" not in hint, f"the hint points at the wrong setting: {hint}"


def test_the_mutation_score_counts_accepted_survivors_apart():
    accepted = MutantRecord(id="m.accepted", title="equivalent", target="pkg.mod:f",
                            operator="rank-local", verdict="ACCEPTED_SURVIVOR",
                            owners=["tests/t.py::test_a"])
    score = mutation_score([killed(0, "assertion", "AssertionError"), accepted])
    assert (score["score"], score["judged"], score["accepted"]) == (100.0, 1, 1), (
        "the mutation score is KILLED over judged mutants, accepted survivors counted apart "
        "(docs/report.md:51): 1 killed of 1 judged with 1 accepted must score 100.0; it is "
        f"{score}")
