"""Each verdict arises when it should, from one real sweep of the fixture catalog."""

from __future__ import annotations

import pytest

from .conftest import FIXTURE_SWEEP_TAG, by_id, tagged_processes

pytestmark = pytest.mark.xdist_group("mutants-fixture-sweep")


def test_json_has_the_contract_keys(fixture_sweep):
    _, document = fixture_sweep
    for mutant in document["mutants"]:
        for key in ("id", "verdict", "owners", "killed_by", "duration_s"):
            assert key in mutant, f"{mutant['id']} lacks {key}"
    assert document["holds"] is False, (
        "the sweep's JSON must say holds: false when a mutant falls short; it said "
        f"{document['holds']!r}"
    )


def test_exit_code_falls_short_when_any_mutant_is_not_killed(fixture_sweep):
    proc, _ = fixture_sweep
    assert proc.returncode == 1, proc.stderr


@pytest.mark.parametrize("mutant_id", [
    "calc.low_bound_skipped", "calc.admit_strict", "calc.pick_max", "calc.size_offset",
    "calc.pick_marker_owned", "dist.max_not_min", "dist.max_not_min_spawn",
])
def test_owned_mutants_are_killed_by_their_owner(fixture_sweep, mutant_id):
    mutant = by_id(fixture_sweep[1])[mutant_id]
    assert mutant["verdict"] == "KILLED", mutant["excerpt"]
    assert mutant["killed_by"] and set(mutant["killed_by"]) <= set(mutant["owners"]), (
        f"{mutant_id} must be killed by its owners {mutant['owners']}; killed_by is "
        f"{mutant['killed_by']}"
    )


def test_marker_declared_owner_counts(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.pick_marker_owned"]
    assert mutant["owners"] == ["checks/check_calc.py::test_pick_marked"], (
        "a @pytest.mark.kills owner must be the owner of calc.pick_marker_owned; owners are "
        f"{mutant['owners']}"
    )


def test_weak_owner_survives(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.audit_dropped"]
    assert mutant["verdict"] == "SURVIVED", (
        "an owner too weak to fail must leave calc.audit_dropped SURVIVED; it was "
        f"{mutant['verdict']}: {mutant['excerpt']}"
    )
    assert mutant["killed_by"] == [] and mutant["failed_non_owners"] == [], (
        f"a survivor has no killed_by and no failed_non_owners; got {mutant['killed_by']} and "
        f"{mutant['failed_non_owners']}"
    )


def test_accepted_survivor_is_visible_and_holds(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.audit_dropped_accepted"]
    assert mutant["verdict"] == "ACCEPTED_SURVIVOR", (
        f"a survivor with accepted_survivor must be ACCEPTED_SURVIVOR; it was {mutant['verdict']}"
    )
    assert "no observable effect" in mutant["excerpt"], (
        "an ACCEPTED_SURVIVOR must show its reason ('no observable effect'); excerpt: "
        f"{mutant['excerpt']!r}"
    )


def test_killed_only_elsewhere_is_owner_missed(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.high_bound_weak_owner"]
    assert mutant["verdict"] == "OWNER_MISSED", (
        f"a mutant only a non-owner kills must be OWNER_MISSED; it was {mutant['verdict']}: "
        f"{mutant['excerpt']}"
    )
    assert mutant["failed_non_owners"] == ["checks/check_calc.py::test_clamp_high"], (
        "OWNER_MISSED must name the non-owner that failed (test_clamp_high); failed_non_owners is "
        f"{mutant['failed_non_owners']}"
    )
    # test_always_red fails on clean code too: it must not count as a kill
    assert "checks/check_calc.py::test_always_red" not in mutant["failed_non_owners"], (
        "a test red on clean code (test_always_red) must not count as a non-owner failure; "
        f"failed_non_owners is {mutant['failed_non_owners']}"
    )


def test_crash_of_the_owner_is_wrong_failure(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.total_none"]
    assert mutant["verdict"] == "WRONG_FAILURE", (
        "an owner that crashed with a TypeError must make WRONG_FAILURE; it was "
        f"{mutant['verdict']}: {mutant['excerpt']}"
    )
    assert "TypeError" in mutant["excerpt"], (
        f"a WRONG_FAILURE excerpt must show the crash (TypeError); excerpt: {mutant['excerpt']!r}"
    )


def test_failure_not_matching_expect_is_wrong_failure(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.admit_strict_wrong_expect"]
    assert mutant["verdict"] == "WRONG_FAILURE", (
        "an owner failure that does not match expect must make WRONG_FAILURE; it was "
        f"{mutant['verdict']}: {mutant['excerpt']}"
    )
    assert "told to admit 5" in mutant["excerpt"], (
        "the WRONG_FAILURE excerpt must show the owner's actual failure ('told to admit 5'); "
        f"excerpt: {mutant['excerpt']!r}"
    )


def test_stale_replace_names_snippet_and_function(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.total_doubled_stale"]
    assert mutant["verdict"] == "STALE", (
        f"a replace whose old text is not in the target must be STALE; it was {mutant['verdict']}: "
        f"{mutant['excerpt']}"
    )
    assert "'acc += value * 2'" in mutant["excerpt"], (
        "a STALE excerpt must quote the missing snippet 'acc += value * 2'; excerpt: "
        f"{mutant['excerpt']!r}"
    )
    assert "fixpkg.calc:total" in mutant["excerpt"], (
        f"a STALE excerpt must name the target fixpkg.calc:total; excerpt: {mutant['excerpt']!r}"
    )


def test_uncompilable_mutant_is_broken(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.total_broken"]
    assert mutant["verdict"] == "BROKEN", (
        f"a mutant that does not compile must be BROKEN; it was {mutant['verdict']}: "
        f"{mutant['excerpt']}"
    )


def test_red_owner_on_clean_code_is_baseline_red(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["calc.red_owner"]
    assert mutant["verdict"] == "BASELINE_RED", (
        f"an owner red on clean code must make BASELINE_RED; it was {mutant['verdict']}: "
        f"{mutant['excerpt']}"
    )
    assert "test_always_red" in mutant["excerpt"], (
        "a BASELINE_RED excerpt must name the red owner test_always_red; excerpt: "
        f"{mutant['excerpt']!r}"
    )


def test_deadlock_is_timeout_naming_ranks_with_stacks(fixture_sweep):
    mutant = by_id(fixture_sweep[1])["dist.ring_deadlock"]
    assert mutant["verdict"] == "TIMEOUT", (
        f"a deadlocked ring was judged {mutant['verdict']}, not TIMEOUT:\n{mutant['excerpt']}")
    alive = mutant["detail"]["alive"]
    labels = sorted(p["label"] for p in alive)
    assert "rank 0/2" in labels and "rank 1/2" in labels, labels
    rank_stacks = [p["stack"] for p in alive if p["label"].startswith("rank")]
    assert all("ring_pass" in s or "barrier" in s for s in rank_stacks), rank_stacks
    assert "rank 1/2" in mutant["excerpt"], (
        f"a TIMEOUT excerpt must name the hung rank 'rank 1/2'; excerpt: {mutant['excerpt']!r}"
    )
    # acceptance: reported within timeout + 2 s, and nothing of it is left running
    assert mutant["duration_s"] <= mutant["detail"]["timeout_s"] + 2.0, (
        f"a TIMEOUT must be reported within timeout_s + 2 s ({mutant['detail']['timeout_s']} + 2); "
        f"it took {mutant['duration_s']} s"
    )
    assert tagged_processes(FIXTURE_SWEEP_TAG) == [], (
        "a TIMEOUT must leave no process of the sweep running; still alive: "
        f"{tagged_processes(FIXTURE_SWEEP_TAG)}"
    )  # the killed ranks included


@pytest.mark.parametrize("kind", ["fork", "spawn", "subprocess", "torchrun"])
def test_every_process_kind_sees_the_mutant(fixture_sweep, kind):
    """The owner asserts its child saw clean code; under the mutant the failure message
    (matched by ``expect``) proves that kind of process saw the mutated code."""
    mutant = by_id(fixture_sweep[1])[f"kinds.{kind}"]
    assert mutant["verdict"] == "KILLED", mutant["excerpt"]
    assert "saw" in mutant["excerpt"] and "mutated" in mutant["excerpt"], (
        f"a {kind} child's failure must say it saw mutated code; excerpt: {mutant['excerpt']!r}"
    )


def test_no_process_of_the_sweep_is_left(fixture_sweep):
    assert tagged_processes(FIXTURE_SWEEP_TAG) == [], (
        f"the sweep left processes running: {tagged_processes(FIXTURE_SWEEP_TAG)}"
    )


def test_what_falls_short_is_explained_after_the_table(fixture_sweep):
    """CI pages show a log's tail: after the table, each mutant that does not hold gets its
    verdict, catalog line, why, and the head of its failure; holding mutants get none."""
    proc, _ = fixture_sweep
    after_table = proc.stdout[proc.stdout.rindex("└"):]
    tail = after_table[:after_table.rindex(" mutants in ")]  # up to the summary line
    flat = " ".join(tail.split())  # the blocks are wrapped to the screen's width
    assert "WRONG_FAILURE calc.total_none (catalog entry " in flat, (
        "after the table, WRONG_FAILURE calc.total_none must be explained with its catalog entry; "
        f"tail: {flat!r}"
    )
    assert "owner failed for another reason than expected" in flat, (
        "a WRONG_FAILURE's explanation must say 'owner failed for another reason than expected'; "
        f"tail: {flat!r}"
    )
    assert "  | " in tail and "TypeError" in tail, (
        "a WRONG_FAILURE's explanation must quote the head of its failure ('  | ... TypeError'); "
        f"tail: {tail!r}"
    )
    assert "SURVIVED calc.audit_dropped (" in flat, (
        f"after the table, SURVIVED calc.audit_dropped must be explained; tail: {flat!r}"
    )
    assert "calc.pick_max " not in tail and "ACCEPTED_SURVIVOR" not in tail, (
        "holding mutants (KILLED calc.pick_max, ACCEPTED_SURVIVOR) get no explanation after the "
        f"table; tail: {tail!r}"
    )
