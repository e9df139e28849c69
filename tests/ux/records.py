"""Mutant records with the long ids a real project has (the friction log's names)."""

from __future__ import annotations

from pathlib import Path

from deskcheck.mutants.verdicts import ItemResult, decide
from deskcheck.report.records import MutantRecord

DRAIN = "tests/test_limits.py::test_draining_rank_admits_nothing_while_the_group_is_waiting"
HEADROOM = "tests/test_limits.py::test_headroom_is_the_minimum_over_ranks_of_the_local_limit"
E2E = "tests/test_scheduler_end_to_end.py::test_admission_end_to_end_with_three_ranks"
MUTANT_IDS = ("limits.M1.draining_rank_admits_full_budget", "limits.M2.headroom_max_not_min",
              "limits.M3.total_reset_across_recovery", "limits.M4.digest_covers_one_rid")
FAILURE = "AssertionError: rank 1 admitted 7 requests while draining (expected 0)"


def write_owner_tests(root: Path) -> None:
    """The test files the owners above name, under ``root`` (a catalog's owners must exist)."""
    for owner in (DRAIN, HEADROOM, E2E):
        path, _, name = owner.partition("::")
        test_file = root / path
        test_file.parent.mkdir(parents=True, exist_ok=True)
        with test_file.open("a", encoding="utf-8") as out:
            out.write(f"def {name}():\n    pass\n\n\n")


def _owner_failure(nodeid: str, message: str) -> ItemResult:
    """An item result the way the sweep's worker records it: pytest's crash message, and the
    long text (``--tb=line``) that repeats the crash line after its location."""
    path = nodeid.partition("::")[0]
    return ItemResult(nodeid=nodeid, outcome="failed", message=message,
                      text=f"{path}:41: {message}")


def records() -> list[MutantRecord]:
    """One KILLED, one SURVIVED, one OWNER_MISSED and one WRONG_FAILURE mutant, their
    excerpts produced by the real verdict rules."""
    owners = [DRAIN, HEADROOM]
    killed = decide(owners, [_owner_failure(DRAIN, FAILURE)], None, ("TypeError",))
    survived = decide(owners, [ItemResult(DRAIN, "passed"), ItemResult(HEADROOM, "passed")],
                      None, ("TypeError",))
    missed = decide(owners, [ItemResult(DRAIN, "passed"), ItemResult(HEADROOM, "passed"),
                             _owner_failure(E2E, FAILURE)], None, ("TypeError",))
    wrong = decide(owners, [_owner_failure(DRAIN, "TypeError: 'int' object is not callable"),
                            ItemResult(HEADROOM, "passed")], None, ("TypeError",))
    out = []
    for mid, verdict in zip(MUTANT_IDS, (killed, survived, missed, wrong), strict=True):
        wrong = getattr(verdict, "wrong_owners", [])
        detail = {"wrong_failure_owners": wrong} if wrong else {}
        out.append(MutantRecord(
            id=mid, title="draining rank admits its full budget instead of nothing",
            target="tp_scheduler.scheduler_budget_mixin:SchedulerBudgetMixin._local_admit_limit",
            operator="replace", verdict=verdict.verdict, owners=list(owners),
            killed_by=verdict.killed_by, failed_non_owners=verdict.failed_non_owners,
            excerpt=verdict.excerpt, duration_s=20.7, detail=detail,
            source_file="tests/mutants.toml", source_line=12))
    return out
