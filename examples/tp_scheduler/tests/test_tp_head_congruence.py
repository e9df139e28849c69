"""Unit arms of the pure head-congruence decision (order, count, gate)."""

from __future__ import annotations

import itertools

import pytest
from tp_scheduler import tp_head_congruence as thc
from tp_scheduler.tp_head_congruence import ABSENT, HEAD_WIDTH, UNPRICED


def reduce_min(*payloads: list[int]) -> list[int]:
    """What a MIN all_reduce over the given ranks' payloads produces."""
    assert len({len(p) for p in payloads}) == 1, "ranks must contribute equal widths"
    return [min(column) for column in zip(*payloads, strict=True)]


def group_matches_for(rank_queues: list[list[str]], rank_matches: list[dict[str, int]]):
    """Run the canonical-slot protocol across simulated ranks; per-rank group matches."""
    canonicals = [thc.canonical_head(q) for q in rank_queues]
    payloads = [thc.head_vote_payload(c, m) for c, m in zip(canonicals, rank_matches, strict=True)]
    reduced = reduce_min(*payloads)
    return [thc.group_head_matches(reduced, c) for c in canonicals]


class TestCanonicalSlots:
    def test_canonical_head_is_independent_of_queue_order(self):
        rids = ["echo", "alpha", "delta", "charlie", "bravo"]
        heads = {tuple(thc.canonical_head(p)) for p in itertools.permutations(rids)}
        assert heads == {("alpha", "bravo", "charlie", "delta", "echo")}

    def test_canonical_head_is_bounded_by_width(self):
        rids = [f"r{i:02d}" for i in range(HEAD_WIDTH + 5)]
        assert thc.canonical_head(reversed(rids)) == rids[:HEAD_WIDTH]

    def test_ranks_with_permuted_queues_agree_on_every_rid(self):
        queues = [["c", "a", "b"], ["a", "b", "c"], ["b", "c", "a"]]
        matches = [{"a": 8, "b": 0, "c": 32}, {"a": 32, "b": 4, "c": 16}, {"a": 16, "b": 24, "c": 16}]
        per_rank = group_matches_for(queues, matches)
        assert per_rank[0] == per_rank[1] == per_rank[2] == {"a": 8, "b": 0, "c": 16}, (
            f"three ranks with permuted queues must agree on each rid's group match (the MIN: "
            f"a=8, b=0, c=16); they read {per_rank}"
        )

    def test_a_rid_one_rank_lacks_is_dropped_by_the_group(self):
        matches = [{"a": 8, "b": 4}, {"a": 8, "b": ABSENT}]
        per_rank = group_matches_for([["a", "b"], ["a", "b"]], matches)
        assert per_rank[0] == per_rank[1] == {"a": 8}

    def test_a_slot_holding_different_rids_is_dropped_not_mixed(self):
        # Rank 1 never received "b"; its second canonical slot holds "c" instead.
        per_rank = group_matches_for([["a", "b", "c"], ["a", "c"]], [{"a": 5, "b": 9, "c": 9}] * 2)
        assert per_rank[0] == per_rank[1] == {"a": 5}

    def test_group_match_is_the_minimum(self):
        per_rank = group_matches_for([["x"], ["x"]], [{"x": 30}, {"x": 12}])
        assert per_rank[0]["x"] == 12

    def test_payload_width_is_fixed(self):
        short = thc.head_vote_payload(["a"], {"a": 1})
        full = thc.head_vote_payload([f"r{i}" for i in range(HEAD_WIDTH)], {})
        assert len(short) == len(full) == HEAD_WIDTH * thc.SLOT_STRIDE

    def test_group_order_is_longest_group_match_then_rid(self):
        assert thc.group_order({"b": 4, "a": 4, "c": 9, "d": 0}) == ["c", "a", "b", "d"]

    def test_malformed_block_is_refused(self):
        with pytest.raises(ValueError, match="expected"):
            thc.group_head_matches([0, 0, 0], ["a"])


class TestCount:
    def test_count_vote_is_the_tighter_local_bound(self):
        for allocatable, free, vote in ((5, 2, 2), (1, 7, 1), (None, 3, UNPRICED)):
            got = thc.count_vote(allocatable, free)
            assert got == vote, (
                f"a rank that can allocate {allocatable} and has {free} free slots voted "
                f"{got}, not {vote} (the tighter of its two bounds)"
            )

    def test_group_count_is_min_of_group_and_local(self):
        group_vote = min(thc.count_vote(3, 8), thc.count_vote(16, 1))
        assert group_vote == 1
        assert thc.group_count(group_vote, local_limit=3) == 1
        assert thc.group_count(group_vote, local_limit=1) == 1

    def test_an_unpriced_group_leaves_the_local_limit_untouched(self):
        assert thc.group_count(UNPRICED, local_limit=4) == 4

    def test_one_priced_rank_binds_an_otherwise_unpriced_group(self):
        assert min(UNPRICED, thc.count_vote(2, 9)) == 2


class TestBatchDecision:
    QUEUE = ["charlie", "alpha", "echo", "delta", "bravo"]
    GROUP = {"alpha": 8, "bravo": 0, "charlie": 16, "delta": 0, "echo": 0}

    def decide(self, **overrides):
        kwargs = dict(
            enabled=True, world_size=2, group_matches=self.GROUP, reduced_count=2,
            ballot_mismatch=False,
        )
        kwargs.update(overrides)
        local_limit = kwargs.pop("local_limit", 3)
        queue = kwargs.pop("queue", self.QUEUE)
        return thc.batch_decision(queue, local_limit, **kwargs)

    def test_group_rule_takes_the_group_order_and_count(self):
        decision = self.decide()
        assert decision.rids == ("charlie", "alpha")
        assert decision.order == ("charlie", "alpha", "bravo", "delta", "echo")
        assert (decision.count, decision.rule) == (2, thc.RULE_GROUP)

    def test_the_decision_does_not_depend_on_the_local_queue_order(self):
        a = self.decide(queue=["bravo", "echo", "alpha", "charlie", "delta"], local_limit=9)
        b = self.decide(queue=list(reversed(self.QUEUE)), local_limit=2)
        assert a.rids == b.rids and a.count == b.count

    def test_no_rank_is_told_more_than_its_own_room(self):
        assert self.decide(local_limit=1, reduced_count=1).count == 1

    def test_the_count_never_exceeds_the_named_head(self):
        decision = self.decide(group_matches={"alpha": 3}, reduced_count=5)
        assert decision.rids == ("alpha",) and decision.count == 1
        assert decision.order[1:] == ("charlie", "echo", "delta", "bravo")

    def test_a_ballot_mismatch_still_takes_the_group_rule(self):
        decision = self.decide(ballot_mismatch=True)
        assert decision.rule == thc.RULE_GROUP_UNDER_MISMATCH
        assert decision.rids == ("charlie", "alpha")

    def test_disabled_returns_the_rank_local_formation(self):
        decision = self.decide(enabled=False)
        assert decision.rule == thc.RULE_RANK_LOCAL_DISABLED
        assert decision.order == tuple(self.QUEUE) and decision.count == 3

    def test_world_of_one_is_rank_local(self):
        decision = self.decide(enabled=False, world_size=1, group_matches=None, reduced_count=None)
        assert decision.rule == thc.RULE_RANK_LOCAL_WORLD_OF_ONE, (
            f"a TP world of one was decided by rule {decision.rule!r}, not "
            f"{thc.RULE_RANK_LOCAL_WORLD_OF_ONE!r}"
        )

    def test_the_group_count_binds_a_rank_with_more_room(self):
        decision = self.decide(local_limit=9, reduced_count=1)
        assert decision.count == 1 and decision.rids == ("charlie",), (
            f"the group can seat 1 request, this rank 9: the rank took {decision.count} "
            f"({decision.rids}), not the group's 1 (its own room was used instead of the group's)"
        )

    def test_the_head_is_in_group_order_whatever_the_local_order(self):
        decision = self.decide(queue=["alpha", "bravo", "charlie", "delta", "echo"])
        assert decision.rids == ("charlie", "alpha"), (
            f"the group ordered charlie (longest group match) before alpha, but this rank "
            f"took {decision.rids}: its own queue order was used instead of the group's"
        )

    def test_no_published_decision_is_rank_local(self):
        assert self.decide(group_matches=None).rule == thc.RULE_RANK_LOCAL_NO_DECISION


class TestEnforcerGate:
    def test_on_by_default_with_peers(self):
        assert thc.enforcer_gate(2, env={}) is True

    def test_kill_switch_turns_it_off(self):
        assert thc.enforcer_gate(3, env={thc.KILL_SWITCH_ENV: "0"}) is False
        assert thc.enforcer_gate(3, env={thc.KILL_SWITCH_ENV: "1"}) is True

    def test_world_of_one_turns_it_off(self):
        assert thc.enforcer_gate(1, env={}) is False

    def test_reads_the_process_environment(self, monkeypatch):
        monkeypatch.setenv(thc.KILL_SWITCH_ENV, "0")
        assert thc.enforcer_gate(2) is False
