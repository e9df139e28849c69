"""Every reference-catalog mutant a congruence arm kills, run under its owner: where the ranks
diverged, the failure names the first split, and it is the decision the mutant changed or one
the mutated value feeds; where they agreed (a safety predicate failed on every rank alike, or
another check of the test failed) no split is claimed.

The mutants run as a user sweeps them (``deskcheck sweep --only ...``); the split is read
from each kill's failure excerpt.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from deskcheck.mutants.catalog import load_catalog
from tests.mutants.derived_catalog import write_derived

pytest.importorskip("torch.distributed")

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "examples" / "tp_scheduler"
CONGRUENCE = "tests/test_congruence_suites.py"

# mutant id -> the functions its split may name: the one the mutant changed, or one its value
# feeds (the reduced count meets each rank's own limit in group_count).
SPLITS = {
    "head.count_max_instead_of_min": {"group_count"},
    "reduce.max_instead_of_min": {"group_count"},
    "reduce.count_vote_not_published": {"group_count"},
    "uniformity.prefetch_verdict_from_local_source": {
        "SchedulerBudgetMixin._local_prefetch_done"},
    # the rank's own vote passed as the group's count: batch_decision receives it (a split by
    # value: the count that comes out apart), group_count returns it, the loop stops on it
    "uniformity.count_from_local_vote": {"SchedulerBatchMixin.get_new_batch_prefill",
                                         "batch_decision", "group_count"},
    # the rank's own prefix length passed on where the group's belongs (a split by value: the
    # adder takes the same way on every rank, with the length that comes out apart)
    "batch.group_prefix_ignored": {"SchedulerBatchMixin._group_prefix_lens",
                                   "SchedulerBatchMixin.get_new_batch_prefill",
                                   "PrefillAdder.add_one_req"},
    # the rank's own budget priced where the group's floor belongs: the adder's token check
    "uniformity.token_budget_from_local_source": {"SchedulerBatchMixin.get_new_batch_prefill",
                                                  "PrefillAdder.add_one_req",
                                                  "PrefillAdder.rem_total_tokens"},
    # a field declared agreed (pyproject) stored with different values, or the check it feeds
    "uniformity.evict_floor_from_the_local_payload": {
        "SchedulerBudgetMixin._update_uniform_pool_budget", "PrefillAdder.add_one_req",
        "PrefillAdder.rem_total_tokens"},
    "bugclass.admit_limit_rank_local": {"SchedulerBudgetMixin._update_uniform_pool_budget"},
    # the declared collective returns each rank's own payload; the floors stored from it
    "bugclass.reduce_dropped": {"SchedulerBudgetMixin._all_reduce_min",
                                "SchedulerBudgetMixin._update_uniform_pool_budget"},
}
# mutant id -> why its owner's failure has no split to name (the ranks agreed).
NO_SPLIT = {
    "ballot.parted_heads_unseen": "every rank reads the same wrong verdict: safety fails alike",
    "ballot.on_side_call_site_dropped": "the detector's own report is checked, not an arm",
    "head.enforcer_switch_ignored": "the premise fails: with the switch ignored nothing diverges",
    "reduce.slot_appended_after_tail_ballot": "every rank reads the same shifted slot",
    "reduce.constant_yes_published": "every rank holds the head alike; safety fails on one",
    "batch.group_count_ignored": "every rank admits the same count; safety fails",
    "bugclass.reduce_op_sum": "the test's own assertion on the reduced room fails, not an arm",
    "bugclass.reduce_over_the_default_group": "the world-4 test asserts each group's floor",
    "bugclass.count_slot_shifted": "every rank reads the same shifted count: safety fails",
    "bugclass.tp_size_read_as_one": "every rank reports floors off alike: safety fails",
}
# mutant id -> the function whose hang note must name the waiting ranks' call site
HANGS = {"bugclass.reduce_only_on_rank_0": "_update_uniform_pool_budget"}


def _congruence_mutants() -> list[tuple[str, str]]:
    catalog = tomllib.loads((TARGET / "mutants.toml").read_text(encoding="utf-8"))
    found = []
    for mutant in catalog["mutant"]:
        owners = [o for o in mutant["owners"] if o.startswith(CONGRUENCE + "::")]
        if owners:
            found.append((mutant["id"], owners[0]))
    return found


MUTANTS = _congruence_mutants()


def test_every_congruence_killed_mutant_is_classified():
    unknown = [m for m, _o in MUTANTS if m not in SPLITS and m not in NO_SPLIT
               and m not in HANGS]
    assert not unknown, ("reference-catalog mutants killed by a congruence arm that this test "
                         "does not classify (add each to SPLITS, NO_SPLIT or HANGS): "
                         f"{unknown}")


@pytest.fixture(scope="module")
def excerpts(tmp_path_factory) -> dict[str, str]:
    """One sweep of every congruence-killed mutant (one warm session, a fork per mutant):
    each mutant's verdict and failure excerpt, as a user's sweep reports them."""
    work = tmp_path_factory.mktemp("split-sweep")
    out = work / "sweep.json"
    catalog = load_catalog(TARGET / "mutants.toml")
    ids = {m for m, _o in MUTANTS}
    # the arms alone own them here: an audit owner would kill first and its excerpt be its own
    derived = write_derived(catalog, [m for m in catalog.mutants if m.id in ids],
                            work / "mutants.toml", lambda o: o.startswith(CONGRUENCE + "::"))
    proc = subprocess.run(
        [sys.executable, "-m", "deskcheck", "sweep", "--catalog", str(derived),
         "--no-store", "--json", str(out), "-n", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.exists(), f"the sweep wrote no JSON (exit {proc.returncode}):\n{proc.stderr}"
    document = json.loads(out.read_text(encoding="utf-8"))
    not_killed = {m["id"]: m["verdict"] for m in document["mutants"] if m["verdict"] != "KILLED"}
    assert not not_killed, f"every congruence-owned mutant must be KILLED: {not_killed}"
    return {m["id"]: m.get("excerpt", "") for m in document["mutants"]}


def _split_functions(excerpt: str) -> set[str]:
    return {line.split(" in ", 1)[1].split(":", 1)[0].strip()
            for line in excerpt.splitlines() if "first split: " in line and " in " in line}


def test_a_diverging_mutant_names_the_decision_it_changed_or_feeds(excerpts):
    wrong = {}
    for mutant, allowed in SPLITS.items():
        named = _split_functions(excerpts[mutant])
        tail = excerpts[mutant].split("first split: ", 1)[-1]
        if not named or not named <= allowed or "\n  rank 0: " not in tail \
                or "\n  rank 1: " not in tail:
            wrong[mutant] = f"named {sorted(named)}, expected one of {sorted(allowed)} with " \
                            "each rank's way and inputs"
    assert not wrong, "the ranks diverged under these mutants but the first split named in " \
        "the sweep's excerpt is not the decision changed or fed:\n" + \
        "\n".join(f"  {m}: {why}" for m, why in wrong.items())


def test_a_mutant_the_ranks_agree_under_claims_no_split(excerpts):
    claimed = [m for m in NO_SPLIT if "first split" in excerpts[m]]
    assert not claimed, "these mutants leave the ranks agreeing, yet a split was claimed: " + \
        ", ".join(f"{m} ({NO_SPLIT[m]})" for m in claimed)


def test_a_hang_names_where_the_waiting_ranks_wait_and_what_it_depends_on(excerpts):
    # the first owner to kill may be the world-2 or the world-3 run of an arm (owners run
    # fastest first by their baseline durations, which load reorders): "rank(s) 1 did not
    # get there" or "rank(s) 1, 2 did not get there"
    missing = {m: f for m, f in HANGS.items()
               if "where the paths parted: rank(s) 0 waited in a collective reached from " not in
               excerpts[m] or not re.search(
                   rf" in {re.escape(f)}; rank\(s\) 1(, \d+)* did not get there", excerpts[m])}
    assert not missing, "these hangs must say where the waiting ranks wait: " + "\n".join(
        f"{m} (in {f}); its excerpt:\n{excerpts[m]}" for m, f in missing.items())
