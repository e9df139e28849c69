"""Which split is named (docs/suites.md "The first split"): in the epoch after the last
collective every rank reached, a decision where an agreed value meets one that differs is
preferred; the note marks agreed inputs ``[agreed]``."""

from __future__ import annotations

from deskcheck.suites.split import Decision, telling_split

FILE = "sched.py"


def _rank(hit: str, took_if: bool, limit: str, returned: int, *, epoch_of_call: int = 0,
          ) -> list[Decision]:
    return [
        Decision(1, 0, FILE, 10, "if", "hit > n", took_if, {"hit": hit, "n": "3"}, ("step",)),
        Decision(2, epoch_of_call, FILE, 20, "call", "group_count(vote, limit)", returned,
                 {"vote": "3", "limit": limit}, ("step", "group_count"),
                 frozenset({"vote"})),
    ]


def test_the_split_where_an_agreed_value_meets_a_local_one_is_preferred() -> None:
    split = telling_split([_rank("5", True, "3", 3), _rank("0", False, "2", 2)])
    assert split is not None, "two ranks that took two decisions different ways: no split named"
    assert split.per_rank[0].line == 20, (
        f"the split named is {split.per_rank[0].where} ({split.per_rank[0].condition}); "
        "expected sched.py:20 group_count(vote, limit), where the agreed vote meets each "
        "rank's own limit, not the earlier rank-local `if hit > n`")
    assert "sched.py:10" in split.others, f"the other split is not listed: {split.others}"


def test_the_split_is_taken_after_the_last_collective_every_rank_reached() -> None:
    split = telling_split([_rank("5", True, "3", 3, epoch_of_call=1),
                           _rank("0", False, "2", 2, epoch_of_call=1)])
    assert split is not None, "no split named"
    assert split.per_rank[0].line == 20, (
        f"the split named is {split.per_rank[0].where}, in epoch {split.per_rank[0].epoch}; "
        "expected sched.py:20, the split after the last collective both ranks reached "
        "(epoch 1), not the rank-local one before it (epoch 0)")


def test_the_note_marks_agreed_inputs() -> None:
    split = telling_split([_rank("5", True, "3", 3), _rank("0", False, "2", 2)])
    assert split is not None, "no split named"
    text = split.render()
    assert "vote=3 [agreed]" in text, (
        f"the note does not mark the agreed input as 'vote=3 [agreed]':\n{text}")
    assert "limit=2 [agreed]" not in text, f"a rank-local input was marked agreed:\n{text}"
