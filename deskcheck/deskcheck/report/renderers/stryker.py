"""Stryker's mutation-testing-report-schema v2 JSON, so existing viewers read our runs.

Status mapping (deskcheck verdict -> Stryker status), and why:

- KILLED -> Killed.
- SURVIVED -> Survived.
- OWNER_MISSED -> Survived: only tests that do not own the mutant failed, and deskcheck does
  not count such a kill; ``statusReason`` names the non-owners that failed.
- TIMEOUT -> Timeout: the same event. Note Stryker's score counts a Timeout as detected while
  deskcheck never does; ``statusReason`` says so and names the hung ranks.
- BROKEN -> CompileError: the mutant does not compile/import, Stryker's exact meaning.
- WRONG_FAILURE, STALE, BASELINE_RED -> RuntimeError: the run could not judge the mutant (the
  owner errored for another reason, the operator no longer applies, or the owners fail on
  clean code). Stryker leaves RuntimeError out of the score *and shows it as an error*, which
  is right for defects someone must fix; Ignored would hide them as deliberate.
- ACCEPTED_SURVIVOR -> Ignored: a documented, deliberate exclusion (the reason is required),
  which is what Ignored means; ``statusReason`` carries the reason.

Every status reason starts with the deskcheck verdict, so nothing is lost in the mapping.
"""

from __future__ import annotations

import json
from typing import Any

from deskcheck import __version__
from deskcheck.report.locations import mutant_span, replacement_text
from deskcheck.report.records import MutantRecord
from deskcheck.report.renderers.junit import accepted_reason, verdict_message
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import kill_split, killed_phrase

STRYKER_STATUS = {
    "KILLED": "Killed",
    "SURVIVED": "Survived",
    "OWNER_MISSED": "Survived",
    "TIMEOUT": "Timeout",
    "BROKEN": "CompileError",
    "WRONG_FAILURE": "RuntimeError",
    "STALE": "RuntimeError",
    "BASELINE_RED": "RuntimeError",
    "ACCEPTED_SURVIVOR": "Ignored",
    "NO_COVERAGE": "NoCoverage",
    "NOT_INJECTABLE": "RuntimeError",
}
THRESHOLDS = {"high": 80, "low": 60}
UNKNOWN_FILE = "(unknown source)"


def status_reason(mutant: MutantRecord) -> str:
    reason = accepted_reason(mutant) if mutant.verdict == "ACCEPTED_SURVIVOR" else \
        verdict_message(mutant)
    if mutant.verdict == "TIMEOUT":
        reason += " (deskcheck does not count a timeout as a kill)"
    text = f"{mutant.verdict}: {reason}"
    return f"{text}\n{mutant.excerpt}" if mutant.excerpt else text


def _mutant_result(mutant: MutantRecord, source: str) -> dict[str, Any]:
    span = mutant_span(mutant, source)
    result: dict[str, Any] = {
        "id": mutant.id,
        "mutatorName": mutant.operator or "unknown",
        "description": mutant.title,
        "replacement": replacement_text(mutant.diff),
        "location": {"start": {"line": span.start_line, "column": span.start_column},
                     "end": {"line": span.end_line, "column": span.end_column}},
        "status": STRYKER_STATUS.get(mutant.verdict, "RuntimeError"),
        "statusReason": status_reason(mutant),
        "coveredBy": list(dict.fromkeys(mutant.owners + mutant.failed_non_owners)),
        "killedBy": list(mutant.killed_by),
        "duration": round(mutant.duration_s * 1000, 3),
        "static": False,
    }
    return result


def build(data: ReportData) -> dict[str, Any]:
    files: dict[str, dict[str, Any]] = {}
    for mutant in data.mutants:
        path = data.mutated_file(mutant)
        key = data.relative_path(path) if path else UNKNOWN_FILE
        if key not in files:
            files[key] = {"language": "python",
                          "source": data.source_text(path) or "",
                          "mutants": []}
        files[key]["mutants"].append(_mutant_result(mutant, files[key]["source"]))
    tests: dict[str, dict[str, Any]] = {}
    for mutant in data.mutants:
        for test_id in (*mutant.owners, *mutant.killed_by, *mutant.failed_non_owners):
            path = test_id.split("::", 1)[0]
            entry = tests.setdefault(path, {"tests": []})
            if all(t["id"] != test_id for t in entry["tests"]):
                entry["tests"].append({"id": test_id, "name": test_id.split("::", 1)[-1]})
    return {
        "schemaVersion": "2",
        "thresholds": dict(THRESHOLDS),
        "projectRoot": str(data.root),
        "files": files,
        "testFiles": tests,
        "framework": {"name": "deskcheck", "version": data.run.deskcheck_version or __version__},
        "config": {"run": data.run.id, "kind": data.run.kind, "commit": data.run.commit,
                   "kills": kill_split(data.mutants), "killed": killed_phrase(data.mutants),
                   "branch": data.run.branch, "tier": data.run.tier, "shard": data.run.shard,
                   "config_fingerprint": data.run.config_fingerprint},
    }


def render(data: ReportData) -> str:
    return json.dumps(build(data), indent=2) + "\n"
