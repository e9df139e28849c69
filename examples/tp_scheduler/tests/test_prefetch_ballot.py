"""Unit arms of the prefetch ballot: digest, tail reading and the mismatch-streak machine."""

from __future__ import annotations

import pytest
from tp_scheduler import prefetch_ballot as pb
from tp_scheduler.prefetch_ballot import MismatchStreak


def drive(bits: list[bool], cap: int = 8, state: MismatchStreak | None = None):
    state = state or MismatchStreak()
    reports = []
    for bit in bits:
        state, report = pb.advance_mismatch_streak(state, bit, cap)
        reports.append(report)
    return state, reports


class TestDigest:
    def test_digest_covers_the_head_in_queue_order(self):
        assert pb.queue_head_digest(["a", "b"]) != pb.queue_head_digest(["b", "a"])

    def test_digest_ignores_the_queue_beyond_the_head(self):
        head = ["a", "b", "c", "d"]
        assert pb.queue_head_digest(head + ["x"]) == pb.queue_head_digest(head + ["y"])

    def test_digest_fits_the_int64_pair_and_an_empty_queue_is_zero(self):
        digest = pb.queue_head_digest(["alpha", "bravo"])
        assert 0 < digest < 2**32 and -digest >= -(2**63)
        assert pb.queue_head_digest([]) == 0


class TestReading:
    def test_min_of_the_pair_yields_min_and_max(self):
        tails = [[7, 1, 500, -500], [7, 1, 300, -300], [7, 0, 900, -900]]
        reduced = [min(col) for col in zip(*tails, strict=True)]
        reading = pb.read_ballot(reduced)
        assert (reading.digest_min, reading.digest_max) == (300, 900)
        assert reading.verdicts == (0,)
        assert reading.mismatch is True

    def test_agreeing_digests_are_not_a_mismatch(self):
        reading = pb.read_ballot([42, 1, 5, -5])
        assert reading.mismatch is False and reading.verdicts == (1,)

    def test_the_ballot_is_read_from_the_tail(self):
        assert pb.read_ballot([9, 9, 9, 1, 5, -5]) == pb.read_ballot([1, 5, -5])

    def test_each_ballot_field_is_read_from_its_own_slot(self):
        reading = pb.read_ballot([7, 7, 0, 300, -900])
        got = (reading.verdicts, reading.digest_min, reading.digest_max)
        assert got == ((0,), 300, 900), (
            f"the tail [verdict 0, digest pair 300/-900] after two head values was read as "
            f"verdicts/min/max {got}, not ((0,), 300, 900): a field is read at the wrong slot"
        )

    def test_a_payload_too_short_is_refused(self):
        try:
            reading = pb.read_ballot([1, 2])
        except ValueError as exc:
            assert "cannot hold" in str(exc), f"the refusal does not say why: {exc}"
        else:
            pytest.fail(f"a 2-value payload cannot hold the 3-wide ballot, yet it was read as {reading}")

    def test_verdict_under_an_agreeing_ballot_is_the_group_one(self):
        reading = pb.read_ballot([0, 5, -5])
        assert pb.prefetch_done_under_ballot(reading, local_done=True) is False

    def test_parted_heads_still_take_the_group_verdict(self):
        """The verdict slot is a MIN over every rank whatever its head: agreed, so it gates
        the batch (and the forward's collectives) the same way on every rank."""
        parted = pb.read_ballot([0, 5, -6])
        assert parted.mismatch
        assert pb.prefetch_done_under_ballot(parted, local_done=True) is False, (
            "under parted queue heads a rank took its own verdict: it forwards alone")

    def test_without_a_ballot_the_verdict_is_the_ranks_own(self):
        assert pb.prefetch_done_under_ballot(None, local_done=False) is False
        assert pb.prefetch_done_under_ballot(None, local_done=True) is True


class TestMismatchStreak:
    def test_onset_is_reported_on_the_first_mismatch(self):
        _, reports = drive([True])
        assert reports[0].kind == pb.REPORT_ONSET and reports[0].streak == 1

    def test_cadence_is_powers_of_two_then_every_cap(self):
        _, reports = drive([True] * 40, cap=8)
        reported = [r.streak for r in reports if r is not None]
        assert reported == [1, 2, 4, 8, 16, 24, 32, 40]

    def test_agreement_alone_is_silent(self):
        state, reports = drive([False] * 5)
        assert reports == [None] * 5 and state == MismatchStreak()

    def test_the_recovery_edge_reports_the_length_that_ended(self):
        state, reports = drive([True] * 5 + [False, False])
        assert reports[5] is not None and reports[5].kind == pb.REPORT_RECOVERED
        assert reports[5].ended_length == 5
        assert reports[6] is None
        assert state.streak == 0

    def test_the_total_never_resets_across_recovery(self):
        state, _ = drive([True] * 3 + [False] + [True] * 2 + [False])
        assert state.total == 5 and state.streak == 0

    def test_a_new_divergence_after_recovery_is_a_new_onset(self):
        _, reports = drive([True, True, False, True])
        assert reports[3].kind == pb.REPORT_ONSET and reports[3].total == 3

    @pytest.mark.parametrize(
        ("cap", "expected"),
        [
            (1, list(range(1, 31))),
            (3, [1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]),
            (5, [1, 2, 4, 5, 10, 15, 20, 25, 30]),
            (6, [1, 2, 4, 6, 12, 18, 24, 30]),
            (8, [1, 2, 4, 8, 16, 24]),
            (64, [1, 2, 4, 8, 16]),
        ],
        ids=["cap1", "cap3", "cap5", "cap6", "cap8", "cap64"],
    )
    def test_the_cadence_for_caps_that_are_not_powers_of_two(self, cap, expected):
        """Streaks 1, 2, 4, ... below the cap, then every cap-many passes: the cap itself
        is reported even when it is not a power of two, and a cap of 1 reports every pass."""
        try:
            _, reports = drive([True] * 30, cap=cap)
        except ValueError as exc:
            pytest.fail(f"a streak cap of {cap} was refused ({exc}); every cap >= 1 is valid")
        reported = [r.streak for r in reports if r is not None]
        assert reported == expected, (
            f"with cap {cap} the detector reported streaks {reported} in 30 divergent passes, "
            f"not {expected} (powers of two below the cap, then every {cap} passes)"
        )
        kinds = {r.kind for r in reports if r is not None}
        assert kinds == {pb.REPORT_ONSET, pb.REPORT_PERSISTS}, (
            f"with cap {cap} the reports were of kinds {sorted(kinds)}, not onset then persists"
        )

    def test_a_cap_below_one_is_refused(self):
        with pytest.raises(ValueError, match="cap"):
            pb.advance_mismatch_streak(MismatchStreak(), True, cap=0)
