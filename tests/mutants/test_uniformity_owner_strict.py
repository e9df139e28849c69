"""``[uniformity] strict = true``: an UNKNOWN decision fails the owner like a RANK-LOCAL one;
without it only RANK-LOCAL does (docs/mutants.md, *The audit as an owner*)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from deskcheck.mutants.uniformity_owner import AuditSettings, UniformityJudge


def judge(strict: bool) -> UniformityJudge:
    return UniformityJudge(settings=AuditSettings(target="m:C", strict=strict),
                           catalog_root=Path("."))


def test_strict_makes_an_unknown_decision_fail():
    unknown = SimpleNamespace(verdict="UNKNOWN")
    assert judge(True).failing(unknown), "strict = true did not make an UNKNOWN decision fail"
    assert not judge(False).failing(unknown), "an UNKNOWN decision failed without strict"


def test_rank_local_fails_with_or_without_strict():
    local = SimpleNamespace(verdict="RANK_LOCAL")
    assert judge(False).failing(local) and judge(True).failing(local), (
        "a RANK-LOCAL decision did not fail the uniformity owner")
