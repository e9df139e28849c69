"""The bug-class operators judged by a real sweep: a TP planner whose owners are congruence
arms on real gloo ranks (tests/mutants/fixtures/bugclass). Each operator's mutant is KILLED by
an assertion; the `tp_rank == 0`-guarded collective, with default settings and no `expect`,
is KILLED by the diagnosed hang naming the rank that skipped; crash-only kills are told apart
and can be made to fall short."""

from __future__ import annotations

import pytest

from .conftest import sweep_json

pytest.importorskip("torch.distributed")

BUGCLASS = __import__("pathlib").Path(__file__).parent / "fixtures" / "bugclass"
OWNER = "checks/check_planner.py::test_every_rank_admits_what_the_whole_group_can_seat"
ASSERTION_KILLS = {
    "reduce.max_instead_of_min": OWNER,
    "admit.rank_local_free_slots": OWNER,
    "reduce.dropped": OWNER,
    "reduce.default_group": "checks/check_planner.py::test_each_tp_group_agrees_within_itself",
    "admit.slot_shifted": OWNER,
    "plan.tp_size_read_as_one": OWNER,
}


@pytest.fixture(scope="module")
def bugclass_sweep(tmp_path_factory):
    return sweep_json(tmp_path_factory.mktemp("bugclass"), "--workers", "2",
                      catalog=BUGCLASS / "mutants.toml", cwd=BUGCLASS)


def by_id(report: dict) -> dict[str, dict]:
    return {m["id"]: m for m in report["mutants"]}


@pytest.mark.parametrize("mutant_id", sorted(ASSERTION_KILLS))
def test_each_operator_mutant_is_killed_by_its_owner_by_an_assertion(bugclass_sweep, mutant_id):
    _, report = bugclass_sweep
    mutant = by_id(report)[mutant_id]
    assert mutant["verdict"] == "KILLED", (
        f"{mutant_id} ({mutant['operator']}) was {mutant['verdict']}: {mutant['excerpt'][:600]}")
    assert mutant["killed_by"] == [ASSERTION_KILLS[mutant_id]], mutant["killed_by"]
    assert mutant["detail"].get("kill") == "assertion", (
        f"{mutant_id} was killed, but not by an assertion: {mutant['detail'].get('kill')} "
        f"({mutant['detail'].get('kill_reason')})")


def test_a_rank_0_guarded_collective_is_killed_naming_the_rank_that_skipped(bugclass_sweep):
    _, report = bugclass_sweep
    mutant = by_id(report)["reduce.only_rank_0_reduces"]
    assert mutant["verdict"] == "KILLED", (
        f"the tp_rank == 0 guarded all_reduce was {mutant['verdict']} under default settings: "
        f"{mutant['excerpt'][:600]}")
    assert mutant["detail"]["kill"] == "hang", mutant["detail"]
    assert "rank 1 skipped all_reduce #1" in mutant["excerpt"], (
        f"the verdict does not name the skipping rank: {mutant['excerpt'][:600]}")


def test_the_budget_waits_for_the_groups_diagnosis(bugclass_sweep):
    """timeout_s = 1 on the entry: the owner's budget would end long before the group's 10 s
    timeout; a test that joined a rank group gets the timeout and the diagnosis on top."""
    _, report = bugclass_sweep
    mutant = by_id(report)["reduce.only_rank_0_reduces.short_budget"]
    assert mutant["verdict"] == "KILLED", (
        f"with a 1 s budget the diagnosed hang was {mutant['verdict']}: {mutant['excerpt'][:400]}")
    assert "rank 0 skipped all_reduce" in mutant["excerpt"], mutant["excerpt"][:400]
    assert mutant["detail"]["timeout_s"] > 20, (
        f"the budget ({mutant['detail']['timeout_s']} s) was not extended to cover the 10 s "
        "group timeout and its diagnosis")


def test_the_summary_says_what_the_kills_prove(bugclass_sweep):
    proc, report = bugclass_sweep
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert report["kills"] == {"assertion": 6, "hang": 2}, report["kills"]
    line = "8 KILLED: 6 by an assertion, 2 by a diagnosed hang -> holds"
    assert line in proc.stdout, f"the summary line is not {line!r}:\n{proc.stdout[-600:]}"


def test_crash_only_kills_are_told_apart_and_can_fall_short(tmp_path):
    catalog = BUGCLASS / "crash.toml"
    proc, report = sweep_json(tmp_path, catalog=catalog, cwd=BUGCLASS)
    assert proc.returncode == 0, proc.stdout[-1500:]
    assert "2 KILLED: 1 by an assertion, 1 only by a crash -> holds" in proc.stdout, (
        proc.stdout[-600:])
    crash = by_id(report)["plan.budget_check_gone"]
    assert (crash["verdict"], crash["detail"]["kill"]) == ("KILLED", "crash"), crash["detail"]
    assert crash["detail"]["kill_reason"] == "AttributeError", crash["detail"]
    strict_proc, strict = sweep_json(tmp_path, "--crash-kills-fall-short", catalog=catalog,
                                     cwd=BUGCLASS)
    assert strict_proc.returncode == 1, "a crash-only kill held under --crash-kills-fall-short"
    verdicts = {m["id"]: m["verdict"] for m in strict["mutants"]}
    assert verdicts == {"plan.world_of_one_admits_one_less": "KILLED",
                        "plan.budget_check_gone": "WRONG_FAILURE"}, verdicts
    assert "killed only by a crash (AttributeError)" in by_id(strict)[
        "plan.budget_check_gone"]["excerpt"], (
        "under --crash-kills-fall-short the crash-only kill must say 'killed only by a crash "
        f"(AttributeError)'; excerpt: {by_id(strict)['plan.budget_check_gone']['excerpt']!r}")
