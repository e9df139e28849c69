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
    assert set(FORMATS) == {"terminal", "json", "junit", "markdown", "stryker", "html"}
    for fmt in FORMATS:
        text = render(data, fmt)
        for mutant in mutants:
            assert mutant.id in text, (fmt, mutant.id)


def test_terminal_table_puts_survivors_first(data: ReportData):
    text = render(data, "terminal")
    assert text.index("ballot.M2") < text.index("ballot.M1")  # SURVIVED before KILLED
    assert "falls short" in text and "KILLED (reused)" in text
    assert "non-owner:" in text  # OWNER_MISSED names who failed instead


def test_json_has_stable_keys_and_round_trips(data: ReportData, mutants):
    document = json.loads(render(data, "json"))
    assert document["schema"] == "deskcheck-report/1"
    assert document["run"]["commit"] == "3f2a9c1d0e4b"
    assert document["summary"]["counts"]["OWNER_MISSED"] == 1
    for entry in document["mutants"]:
        assert {"id", "verdict", "owners", "killed_by", "duration_s"} <= entry.keys()
    assert [MutantRecord.from_json(m) for m in document["mutants"]] == mutants
    assert RunRecord.from_json(document["run"]).id == data.run.id


def test_junit_has_one_testcase_per_mutant_with_failures_errors_and_skips(data: ReportData):
    root = ET.fromstring(render(data, "junit"))
    suite = root.find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert len(cases) == len(data.mutants) == int(suite.get("tests"))
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
    assert cases["ballot.M1"].find("failure") is None and cases["ballot.M1"].find("error") is None
    survived = cases["ballot.M2"].find("failure")
    assert survived is not None and survived.get("type") == "SURVIVED"
    assert OWNER_BALLOT in survived.get("message") and "-        return 0, total, \"recovered\"" \
        in survived.text
    missed = cases["ballot.M3"].find("failure")
    assert missed is not None and OTHER_TEST in missed.get("message")
    assert cases["congruence.M1"].find("error").get("type") == "TIMEOUT"
    assert "equivalent" in cases["congruence.M4"].find("skipped").get("message")
    assert cases["ballot.M2"].get("classname") == "pkg.prefetch_ballot.advance_mismatch_streak"
    assert cases["ballot.M2"].get("file") == "pkg/prefetch_ballot.py"


def test_junit_drops_characters_xml_cannot_carry(data: ReportData):
    data.mutants[1].excerpt = "\x1b[31mAssertionError\x1b[0m\x00 boom"
    root = ET.fromstring(render(data, "junit"))  # would raise on \x1b / \x00
    text = "".join(root.itertext())
    assert "[31mAssertionError[0m boom" in text


def test_markdown_lists_survivors_first_with_diff_and_the_owner_that_missed(data: ReportData):
    text = render(data, "markdown")
    assert text.startswith("## deskcheck sweep: falls short — 2 of 12 mutants killed")
    attention = text.index("### Needs attention (9)")
    assert attention < text.index("#### SURVIVED: `ballot.M2`") < text.index(
        "#### OWNER_MISSED: `ballot.M3`") < text.index("#### WRONG_FAILURE") < text.index(
        "<summary>Killed (2)</summary>")
    survivor = text[text.index("#### SURVIVED"):text.index("#### OWNER_MISSED")]
    assert f"owner that missed it: `{OWNER_BALLOT}`" in survivor
    assert "```diff" in survivor and '+        return 0, total, None' in survivor
    missed = text[text.index("#### OWNER_MISSED"):text.index("#### WRONG_FAILURE")]
    assert f"failed instead (not owners): `{OTHER_TEST}`" in missed
    assert "accepted: equivalent: + 0 changes nothing" in text


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
    assert "holds — 1 of 1" in text and "Needs attention" not in text


def test_markdown_is_cut_to_fit_a_pr_comment(data: ReportData):
    for mutant in data.mutants:
        mutant.diff = mutant.diff + ("+ padding\n" * 4000)
    text = render(data, "markdown")
    assert len(text) <= 65_000 and "report truncated" in text


def test_fence_outgrows_backticks_inside():
    assert fence("```python\nx\n```", "diff").startswith("````diff\n")
    assert fence("plain").startswith("```\n")
