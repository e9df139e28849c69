"""Machine-readable JSON of one run (stable keys; mutant keys are MutantRecord's fields)."""

from __future__ import annotations

import json

from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import kill_split, killed_phrase

JSON_SCHEMA_ID = "deskcheck-report/1"


def render(data: ReportData) -> str:
    document = {
        "schema": JSON_SCHEMA_ID,
        "run": data.run.to_json(),
        "summary": {**data.summary, "kills": kill_split(data.mutants),
                    "killed": killed_phrase(data.mutants)},
        "mutants": [m.to_json() for m in data.mutants],
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
