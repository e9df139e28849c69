"""The Stryker JSON validates against the published schema (taken from npm at session start)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from deskcheck.report.records import VERDICTS, RunRecord
from deskcheck.report.renderers.stryker import STRYKER_STATUS, build, render
from deskcheck.report.reportdata import load_report
from deskcheck.report.store import Store

from .sample_records import BALLOT_FILE, BALLOT_SOURCE, CONGRUENCE_FILE


def _validator(schema: dict) -> jsonschema.Draft7Validator:
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def test_report_of_every_verdict_validates_against_the_published_schema(
        stryker_schema, store: Store, recorded_run: int):
    report = json.loads(render(load_report(store, recorded_run)))
    errors = sorted(_validator(stryker_schema).iter_errors(report), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_validator_can_fail(stryker_schema, store: Store, recorded_run: int):
    report = build(load_report(store, recorded_run))
    broken = copy.deepcopy(report)
    broken["files"][BALLOT_FILE]["mutants"][0]["status"] = "OWNER_MISSED"
    assert list(_validator(stryker_schema).iter_errors(broken)), (
        "the Stryker schema validator accepted the status OWNER_MISSED, which the schema does not "
        "allow: it cannot fail"
    )
    broken = copy.deepcopy(report)
    broken["files"][BALLOT_FILE]["mutants"][0]["location"]["start"]["line"] = 0
    assert list(_validator(stryker_schema).iter_errors(broken)), (
        "the Stryker schema validator accepted a location at line 0: it cannot fail"
    )


def test_every_status_is_one_the_schema_allows(stryker_schema):
    allowed = set(stryker_schema["properties"]["files"]["additionalProperties"]["properties"]
                  ["mutants"]["items"]["properties"]["status"]["enum"])
    assert set(STRYKER_STATUS) == set(VERDICTS), (
        "every deskcheck verdict must have a Stryker status; missing "
        f"{sorted(set(VERDICTS) - set(STRYKER_STATUS))}"
    )
    assert set(STRYKER_STATUS.values()) <= allowed, (
        "every Stryker status must be one the schema allows; not allowed: "
        f"{sorted(set(STRYKER_STATUS.values()) - allowed)}"
    )


def test_files_are_keyed_by_path_with_source_and_located_mutants(store: Store, recorded_run):
    report = build(load_report(store, recorded_run))
    assert set(report["files"]) == {BALLOT_FILE, CONGRUENCE_FILE}, (
        f"the Stryker files must be keyed by the mutated paths {BALLOT_FILE}, {CONGRUENCE_FILE}; "
        f"they are {sorted(report['files'])}"
    )
    ballot = report["files"][BALLOT_FILE]
    assert ballot["source"] == BALLOT_SOURCE and ballot["language"] == "python", (
        "the Stryker file must carry its source and language python; language "
        f"{ballot['language']!r}"
    )
    by_id = {m["id"]: m for m in ballot["mutants"]}
    lines = BALLOT_SOURCE.splitlines()
    m2 = by_id["ballot.M2"]  # recovery edge: the `return 0, total, "recovered"` line
    start, end = m2["location"]["start"], m2["location"]["end"]
    assert lines[start["line"] - 1].strip() == 'return 0, total, "recovered"', (
        "ballot.M2 must start on the line return 0, total, \"recovered\"; it starts on "
        f"{lines[start['line'] - 1]!r}"
    )
    assert lines[start["line"] - 1][start["column"] - 1:].startswith("return 0"), (
        f"ballot.M2 must start at the column of return 0; it starts at column {start['column']}"
    )
    assert end["line"] == start["line"] and end["column"] == len(lines[start["line"] - 1]) + 1, (
        f"ballot.M2 must end at the end of its line; start {start}, end {end}"
    )
    assert m2["status"] == "Survived" and m2["replacement"] == "return 0, total, None", (
        "the survivor ballot.M2 must be Survived with the replacement return 0, total, None; it "
        f"is {m2['status']!r}, {m2.get('replacement')!r}"
    )
    assert by_id["ballot.M3"]["status"] == "Survived", (
        "OWNER_MISSED must show as Survived in Stryker; ballot.M3 is "
        f"{by_id['ballot.M3']['status']!r}"
    )
    assert by_id["ballot.M3"]["statusReason"].startswith("OWNER_MISSED: owner missed it"), (
        "the statusReason must keep the verdict OWNER_MISSED: owner missed it; it is "
        f"{by_id['ballot.M3']['statusReason']!r}"
    )
    assert by_id["ballot.M1"]["killedBy"] == ["tests/test_ballot.py::test_recovery_edge_reported"], (
        "killedBy must name the owner that killed ballot.M1; it is "
        f"{by_id['ballot.M1']['killedBy']}"
    )
    assert by_id["ballot.M1"]["duration"] == 31.0, (
        f"duration must be the recorded 31.0 s; it is {by_id['ballot.M1']['duration']}"
    )
    assert by_id["ballot.M5"]["status"] == "RuntimeError", (
        f"a STALE mutant (ballot.M5) is {by_id['ballot.M5']['status']!r} in Stryker, not "
        f"'RuntimeError': docs/report.md: STALE is not judged, and shown as an error rather "
        f"than hidden as deliberate")
    gate = {m["id"]: m for m in report["files"][CONGRUENCE_FILE]["mutants"]}
    assert gate["congruence.M1"]["status"] == "Timeout", (
        f"TIMEOUT must be Timeout in Stryker; congruence.M1 is {gate['congruence.M1']['status']!r}"
    )
    assert "not count a timeout as a kill" in gate["congruence.M1"]["statusReason"], (
        "a TIMEOUT reason must say the gate does not count a timeout as a kill; it is "
        f"{gate['congruence.M1']['statusReason']!r}"
    )
    assert gate["congruence.M2"]["status"] == "CompileError", (
        "BROKEN must be CompileError in Stryker; congruence.M2 is "
        f"{gate['congruence.M2']['status']!r}"
    )
    assert gate["congruence.M4"]["status"] == "Ignored", (
        "ACCEPTED_SURVIVOR must be Ignored in Stryker; congruence.M4 is "
        f"{gate['congruence.M4']['status']!r}"
    )
    assert gate["congruence.M4"]["statusReason"] == ("ACCEPTED_SURVIVOR: equivalent: + 0 "
                                                     "changes nothing"), (
        "the Ignored reason must keep the verdict and the acceptance; it is "
        f"{gate['congruence.M4']['statusReason']!r}"
    )
    test_ids = {t["id"] for f in report["testFiles"].values() for t in f["tests"]}
    assert "tests/test_scheduler.py::test_admission_end_to_end" in test_ids, (
        f"testFiles must list the owner tests; they list {sorted(test_ids)}"
    )


def test_a_mutant_without_source_still_validates(stryker_schema, store: Store, mutants):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    lost = mutants[1]
    lost.source_file, lost.diff, lost.target = "", "", "removed.module:gone"
    store.record_mutant(run_id, lost)
    report = json.loads(render(load_report(store, run_id)))
    assert not list(_validator(stryker_schema).iter_errors(report)), (
        "a mutant without source must still validate against the Stryker schema; errors: "
        f"{[e.message for e in _validator(stryker_schema).iter_errors(report)][:3]}"
    )
    assert report["files"]["(unknown source)"]["mutants"][0]["location"]["start"] == {
        "line": 1, "column": 1}, (
        "a mutant without source must be placed at line 1, column 1 of (unknown source)"
    )


@pytest.mark.parametrize("verdict", VERDICTS)
def test_status_reason_keeps_the_deskcheck_verdict(store: Store, mutants, verdict):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    record = mutants[0]
    record.verdict = verdict
    store.record_mutant(run_id, record)
    (entry,) = build(load_report(store, run_id))["files"][BALLOT_FILE]["mutants"]
    assert entry["statusReason"].startswith(verdict + ":"), (
        f"the statusReason must start with the deskcheck verdict {verdict}:; it is "
        f"{entry['statusReason']!r}"
    )


def test_a_sweep_record_pointing_at_its_catalog_entry_is_placed_in_the_target_file(
        stryker_schema, project: Path, store: Store, mutants):
    """The sweep sets ``source_file`` to the catalog (mutants.toml:line); the diff and the
    target name still place the mutant in the module it mutates."""
    run_id = store.begin_run(RunRecord(kind="sweep"))
    survivor, stale = mutants[1], mutants[4]  # ballot.M2 (has a diff), ballot.M5 (STALE, none)
    for record in (survivor, stale):
        record.source_file, record.source_line = "mutants.toml", 12
        store.record_mutant(run_id, record)
    assert set(store.sources(run_id)) == {BALLOT_FILE}, (
        "the snapshotted source must be the mutated module, not the catalog; sources "
        f"{sorted(store.sources(run_id))}"
    )  # the module, not the catalog
    report = json.loads(render(load_report(store, run_id)))
    assert not list(_validator(stryker_schema).iter_errors(report)), (
        "the report must validate against the Stryker schema; errors: "
        f"{[e.message for e in _validator(stryker_schema).iter_errors(report)][:3]}"
    )
    assert set(report["files"]) == {BALLOT_FILE}, (
        f"a mutant pointing at its catalog entry must be placed in the target file {BALLOT_FILE}; "
        f"files {sorted(report['files'])}"
    )
    by_id = {m["id"]: m for m in report["files"][BALLOT_FILE]["mutants"]}
    line = BALLOT_SOURCE.splitlines()[by_id["ballot.M2"]["location"]["start"]["line"] - 1]
    assert line.strip() == 'return 0, total, "recovered"', (
        f"ballot.M2 must be placed on its mutated line; it is on {line!r}"
    )
    assert by_id["ballot.M5"]["status"] == "RuntimeError", (
        f"STALE must be RuntimeError in Stryker; ballot.M5 is {by_id['ballot.M5']['status']!r}"
    )


DOCUMENTED_STATUS = {  # docs/report.md, the stryker mapping, verdict by verdict
    "KILLED": "Killed", "SURVIVED": "Survived", "OWNER_MISSED": "Survived",
    "TIMEOUT": "Timeout", "BROKEN": "CompileError", "WRONG_FAILURE": "RuntimeError",
    "STALE": "RuntimeError", "BASELINE_RED": "RuntimeError", "ACCEPTED_SURVIVOR": "Ignored",
}


@pytest.mark.parametrize(("verdict", "status"), sorted(DOCUMENTED_STATUS.items()))
def test_each_verdict_has_the_documented_stryker_status(store: Store, mutants, verdict, status):
    run_id = store.begin_run(RunRecord(kind="sweep"))
    record = mutants[0]
    record.verdict = verdict
    store.record_mutant(run_id, record)
    (entry,) = build(load_report(store, run_id))["files"][BALLOT_FILE]["mutants"]
    assert entry["status"] == status, (
        f"docs/report.md maps {verdict} to Stryker's {status}; the report says "
        f"{entry['status']!r}")
