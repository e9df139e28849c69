"""Terminal, JSON, JUnit and Markdown renderers over a run holding every verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.renderers import FORMATS, render
from deskcheck.report.renderers.markdown import fence
from deskcheck.report.reportdata import ReportData, load_report
from deskcheck.report.store import Store

from .sample_records import OTHER_TEST, OWNER_BALLOT


@pytest.fixture
def data(store: Store, recorded_run: int) -> ReportData:
    return load_report(store, recorded_run)


def test_every_format_renders_every_mutant(data: ReportData, mutants):
    assert set(FORMATS) == {"terminal", "json", "junit", "markdown", "stryker", "html"}, (
        "the report formats must be terminal, json, junit, markdown, stryker, html; they are "
        f"{sorted(FORMATS)}"
    )
    for fmt in FORMATS:
        text = render(data, fmt)
        for mutant in mutants:
            assert mutant.id in text, (fmt, mutant.id)


def test_terminal_table_puts_survivors_first(data: ReportData):
    text = render(data, "terminal")
    assert text.index("ballot.M2") < text.index("ballot.M1"), (
        f"the terminal table must list the survivor ballot.M2 before the kill ballot.M1:\n{text}"
    )  # SURVIVED before KILLED
    assert "falls short" in text and "KILLED (reused)" in text, (
        f"the terminal report must say 'falls short' and 'KILLED (reused)':\n{text}"
    )
    assert "non-owner:" in text, (
        f"the terminal report must name the non-owner that failed for OWNER_MISSED:\n{text}"
    )  # OWNER_MISSED names who failed instead


def test_json_has_stable_keys_and_round_trips(data: ReportData, mutants):
    document = json.loads(render(data, "json"))
    assert document["schema"] == "deskcheck-report/1", (
        f"the JSON report schema must be deskcheck-report/1; it is {document['schema']!r}"
    )
    assert document["run"]["commit"] == "3f2a9c1d0e4b", (
        "the JSON report must carry the run's commit 3f2a9c1d0e4b; it has "
        f"{document['run']['commit']!r}"
    )
    assert document["summary"]["counts"]["OWNER_MISSED"] == 1, (
        f"the JSON summary must count 1 OWNER_MISSED; it counts {document['summary']['counts']}"
    )
    for entry in document["mutants"]:
        assert {"id", "verdict", "owners", "killed_by", "duration_s"} <= entry.keys(), (
            "every JSON mutant must have id, verdict, owners, killed_by, duration_s; one has "
            f"{sorted(entry)}"
        )
    assert [MutantRecord.from_json(m) for m in document["mutants"]] == mutants, (
        "the JSON mutants do not round-trip to the recorded MutantRecords"
    )
    assert RunRecord.from_json(document["run"]).id == data.run.id, (
        f"the JSON run must round-trip to run {data.run.id}; it gave "
        f"{RunRecord.from_json(document['run']).id}"
    )


def test_junit_has_one_testcase_per_mutant_with_failures_errors_and_skips(data: ReportData):
    root = ET.fromstring(render(data, "junit"))
    suite = root.find("testsuite")
    assert suite is not None, "the junit report has no <testsuite>"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert len(cases) == len(data.mutants) == int(suite.get("tests")), (
        f"junit must have one testcase per mutant ({len(data.mutants)}) and count them in tests=; "
        f"it has {len(cases)}, tests={suite.get('tests')}"
    )
    kinds = {name: next((child.tag for child in case), "passed") for name, case in cases.items()}
    for mutant in data.mutants:
        if mutant.verdict in ("TIMEOUT", "BROKEN", "BASELINE_RED"):
            assert kinds[mutant.id] == "error", (
                f"{mutant.id} ({mutant.verdict}) is a <{kinds[mutant.id]}>: docs/report.md: "
                f"TIMEOUT, BROKEN and BASELINE_RED are <error>s (the mutant could not be judged)")
    counts = (suite.get("failures"), suite.get("errors"), suite.get("skipped"))
    assert counts == ("4", "3", "1"), (
        f"the suite counts {counts} (failures, errors, skipped), not 4 failures (SURVIVED, "
        f"OWNER_MISSED, WRONG_FAILURE, STALE), 3 errors (TIMEOUT, BROKEN, BASELINE_RED) and "
        f"1 skipped (ACCEPTED_SURVIVOR)")
    assert cases["ballot.M1"].find("failure") is None and cases["ballot.M1"].find("error") is None, (
        "the KILLED ballot.M1 must be a passing testcase, with no <failure> or <error>"
    )
    survived = cases["ballot.M2"].find("failure")
    assert survived is not None and survived.get("type") == "SURVIVED", (
        "the survivor ballot.M2 must be a <failure type=\"SURVIVED\">; it is "
        f"{survived if survived is None else survived.attrib}"
    )
    assert OWNER_BALLOT in survived.get("message") and "-        return 0, total, \"recovered\"" \
        in survived.text, (
        f"the SURVIVED failure must name the owner {OWNER_BALLOT} and show the diff; message "
        f"{survived.get('message')!r}"
    )
    missed = cases["ballot.M3"].find("failure")
    assert missed is not None and OTHER_TEST in missed.get("message"), (
        f"the OWNER_MISSED ballot.M3 must be a <failure> naming {OTHER_TEST}; it is "
        f"{missed if missed is None else missed.attrib}"
    )
    assert cases["congruence.M1"].find("error").get("type") == "TIMEOUT", (
        "the TIMEOUT congruence.M1 must be an <error type=\"TIMEOUT\">"
    )
    assert "equivalent" in cases["congruence.M4"].find("skipped").get("message"), (
        "the ACCEPTED_SURVIVOR congruence.M4 must be <skipped> with the reason 'equivalent'"
    )
    assert cases["ballot.M2"].get("classname") == "pkg.prefetch_ballot.advance_mismatch_streak", (
        "a junit classname must be the target's dotted path; it is "
        f"{cases['ballot.M2'].get('classname')!r}"
    )
    assert cases["ballot.M2"].get("file") == "pkg/prefetch_ballot.py", (
        f"a junit file must be the target's file; it is {cases['ballot.M2'].get('file')!r}"
    )


def test_junit_drops_characters_xml_cannot_carry(data: ReportData):
    data.mutants[1].excerpt = "\x1b[31mAssertionError\x1b[0m\x00 boom"
    root = ET.fromstring(render(data, "junit"))  # would raise on \x1b / \x00
    text = "".join(root.itertext())
    assert "[31mAssertionError[0m boom" in text, (
        "junit must drop only what XML cannot carry (ESC, NUL) and keep the rest; the text is "
        f"{text!r}"
    )


def test_markdown_lists_survivors_first_with_diff_and_the_owner_that_missed(data: ReportData):
    text = render(data, "markdown")
    assert text.startswith("## deskcheck sweep: falls short — 2 of 12 mutants killed"), (
        "the markdown report must open with '## deskcheck sweep: falls short — 2 of 12 mutants "
        f"killed'; it opens {text[:120]!r}"
    )
    for heading in ("### Needs attention (9)", "#### SURVIVED: `ballot.M2`",
                    "#### OWNER_MISSED: `ballot.M3`", "#### WRONG_FAILURE"):
        assert heading in text, f"the markdown report has no {heading!r}:\n{text[:1500]}"
    assert "<details><summary>Killed (2)</summary>" in text, (
        "docs/report.md: the kills are folded in a `<details>` block, "
        f"'<details><summary>Killed (2)</summary>'; the Markdown has none:\n{text[-1500:]}")
    attention = text.index("### Needs attention (9)")
    assert attention < text.index("#### SURVIVED: `ballot.M2`") < text.index(
        "#### OWNER_MISSED: `ballot.M3`") < text.index("#### WRONG_FAILURE") < text.index(
        "<summary>Killed (2)</summary>"), (
        "the markdown report must list Needs attention, then SURVIVED, OWNER_MISSED, "
        "WRONG_FAILURE, then the Killed (2) block"
    )
    survivor = text[text.index("#### SURVIVED"):text.index("#### OWNER_MISSED")]
    assert f"owner that missed it: `{OWNER_BALLOT}`" in survivor, (
        f"a survivor must name the owner that missed it, {OWNER_BALLOT}:\n{survivor}"
    )
    assert "```diff" in survivor and '+        return 0, total, None' in survivor, (
        f"a survivor must show its diff in a ```diff fence:\n{survivor}"
    )
    missed = text[text.index("#### OWNER_MISSED"):text.index("#### WRONG_FAILURE")]
    assert f"failed instead (not owners): `{OTHER_TEST}`" in missed, (
        f"an OWNER_MISSED must name who failed instead (not owners), {OTHER_TEST}:\n{missed}"
    )
    assert "accepted: equivalent: + 0 changes nothing" in text, (
        "the markdown report must show the accepted survivor's reason 'accepted: equivalent: + 0 "
        "changes nothing'"
    )


def test_markdown_lists_every_survivor_before_the_other_mutants_that_fall_short(
        data: ReportData):
    text = render(data, "markdown")
    attention = text[text.index("### Needs attention"):].split("\n### ")[0]
    heads = [line.split(":")[0][5:] for line in attention.splitlines()
             if line.startswith("#### ")]
    first_other = next(i for i, v in enumerate(heads) if v != "SURVIVED")
    assert "SURVIVED" in heads and "SURVIVED" not in heads[first_other:], (
        f"the Markdown report lists {heads} under Needs attention: a survivor after "
        f"{heads[first_other]}; docs/report.md promises survivors first")


def test_markdown_holds_when_everything_is_killed(store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    store.record_mutant(run_id, mutants[0])
    store.finish_run(run_id, "holds")
    text = render(load_report(store, run_id), "markdown")
    assert "holds — 1 of 1" in text and "Needs attention" not in text, (
        "a run where everything is killed must say 'holds — 1 of 1' with no Needs attention:\n"
        f"{text}"
    )


def test_markdown_is_cut_to_fit_a_pr_comment(data: ReportData):
    for mutant in data.mutants:
        mutant.diff = mutant.diff + ("+ padding\n" * 4000)
    text = render(data, "markdown")
    assert len(text) <= 65_000 and "report truncated" in text, (
        "the markdown report must fit a PR comment (<= 65000 chars) and say 'report truncated'; "
        f"it is {len(text)} chars"
    )


def test_fence_outgrows_backticks_inside():
    assert fence("```python\nx\n```", "diff").startswith("````diff\n"), (
        "a fence around text holding ``` must use four backticks (````diff)"
    )
    assert fence("plain").startswith("```\n"), (
        f"a plain text must get a ``` fence; it opens {fence('plain')[:10]!r}"
    )
