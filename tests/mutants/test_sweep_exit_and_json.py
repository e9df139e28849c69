"""What a sweep's exit status and ``--json`` promise (docs/mutants.md): exit 0 when every
mutant is KILLED or an accepted survivor, 1 for any other verdict; ``--json`` holds
``summary``, ``timing`` and per mutant the documented fields. Pure: built from records."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.mutants.render import to_json
from deskcheck.mutants.sweep import SweepResult
from deskcheck.report.records import VERDICTS, MutantRecord

HOLDING = ("KILLED", "ACCEPTED_SURVIVOR")


def result(*verdicts: str) -> SweepResult:
    records = [MutantRecord(id=f"m.{n}", title=f"defect {n}", target="pkg.mod:f",
                            operator="return", verdict=v, owners=["t::a"])
               for n, v in enumerate(verdicts)]
    return SweepResult(records=records, baseline={}, started_at="", finished_at="",
                       duration_s=1.0, workers=1, timing={"collection": 0.1})


def test_killed_and_accepted_survivors_together_hold():
    assert result(*HOLDING).holds, (
        "docs/mutants.md: exit 0 when every mutant is KILLED or an accepted survivor; a sweep "
        "of one KILLED and one ACCEPTED_SURVIVOR was judged not to hold")
    assert result().holds, "a sweep with nothing left to judge (all reused) must hold"


@pytest.mark.parametrize("verdict", [v for v in VERDICTS if v not in HOLDING])
def test_any_other_verdict_beside_kills_falls_short(verdict: str):
    got = result("KILLED", verdict, "KILLED").holds
    assert not got, (
        f"docs/mutants.md: exit 1 for any verdict but KILLED or an accepted survivor; a sweep "
        f"with one {verdict} among KILLED mutants was judged to hold")


def test_the_json_has_the_summary_timing_and_every_documented_mutant_field():
    data = to_json(result("KILLED", "SURVIVED"), Path("mutants.toml"))
    missing = [k for k in ("summary", "timing", "holds", "kills", "killed", "mutants")
               if k not in data]
    assert not missing, f"the --json report lacks the documented keys {missing}: {sorted(data)}"
    assert data["summary"] == {"KILLED": 1, "SURVIVED": 1} and data["holds"] is False, (
        "summary must count the verdicts and holds be false with a survivor; got summary "
        f"{data['summary']}, holds {data['holds']}")
    documented = ("id", "title", "target", "operator", "verdict", "owners", "killed_by",
                  "failed_non_owners", "duration_s", "excerpt", "diff", "fingerprint", "detail")
    lacking = [k for k in documented if k not in data["mutants"][0]]
    assert not lacking, (
        f"docs/mutants.md lists these per-mutant --json fields, the report lacks {lacking}: "
        f"{sorted(data['mutants'][0])}")
