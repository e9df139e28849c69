"""docs/auto.md, *Options*: "Exit code: 0 when every mutant on a changed line was KILLED, 1
when one survived, has no covering test or could not be judged". Pure: built from records."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.mutants.auto.changes import ChangeSet
from deskcheck.mutants.auto.generate import Generation
from deskcheck.mutants.auto.pipeline import AutoResult
from deskcheck.mutants.auto.settings import AutoSettings
from deskcheck.report.records import MutantRecord


def result(*verdicts: str) -> AutoResult:
    records = [MutantRecord(id=f"a.{n}", title=f"auto {n}", target="pkg.mod:f",
                            operator="replace", verdict=v) for n, v in enumerate(verdicts)]
    root = Path(".")
    return AutoResult(settings=AutoSettings(root=root, changed_since="main"),
                      changes=ChangeSet(root=root, base="b", files=[]),
                      generation=Generation(), coverage=None, records=records, mutants={},
                      owners={}, started_at="")


def test_every_mutant_killed_holds():
    assert result("KILLED", "KILLED").holds, (
        "docs/auto.md: exit 0 when every mutant on a changed line was KILLED; two KILLED "
        "mutants were judged to fall short")


@pytest.mark.parametrize("verdict", ["SURVIVED", "NO_COVERAGE", "BROKEN", "STALE", "TIMEOUT",
                                     "WRONG_FAILURE", "BASELINE_RED", "NOT_INJECTABLE"])
def test_a_survivor_an_uncovered_line_or_an_unjudged_mutant_falls_short(verdict: str):
    assert not result("KILLED", verdict).holds, (
        "docs/auto.md: exit 1 when a mutant survived, has no covering test or could not be "
        f"judged; KILLED + {verdict} was judged to hold")
