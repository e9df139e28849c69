"""deskcheck.gate: red-first and regression gates over git worktrees."""

from deskcheck.gate.layout import TestLayout, load_layout
from deskcheck.gate.redfirst import (
    FAILING_VERDICTS,
    REDFIRST_VERDICTS,
    RedFirstReport,
    TestVerdict,
    classify,
    run_redfirst,
)
from deskcheck.gate.regress import FailingId, RegressReport, compare, run_regress

__all__ = [
    "FAILING_VERDICTS",
    "REDFIRST_VERDICTS",
    "FailingId",
    "RedFirstReport",
    "RegressReport",
    "TestLayout",
    "TestVerdict",
    "classify",
    "compare",
    "load_layout",
    "run_redfirst",
    "run_regress",
]
