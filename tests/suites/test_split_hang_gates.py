"""A rank timeout is not re-run: the note names the decisions of the waiting function that the
collective's call depends on, read from the source (docs/suites.md "When it costs"): the
branches it sits in, including the else arm, and the early exits before it (return, raise,
continue, break)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.suites.hang_gate import gates

SOURCE = """
def admit(self, need, t):
    if self.closed:
        raise RuntimeError("closed")
    if self.draining:
        return 0
    if self.free >= need:
        self.log()
    else:
        dist.all_reduce(t)
    return 1
"""


def _gates(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(SOURCE))
    line = 1 + textwrap.dedent(SOURCE).splitlines().index("        dist.all_reduce(t)")
    return {g.text: g.role for g in gates(f"{path}:{line} in admit")}


def test_the_else_arm_a_collective_sits_in_is_named(tmp_path: Path) -> None:
    found = _gates(tmp_path)
    assert found.get("if self.free >= need") == "it runs only when this is false", (
        "the all_reduce sits in the else arm of `if self.free >= need`, but the hang note "
        f"lists {found}: the else arm's decision is missing")


def test_early_exits_by_raise_and_return_are_named(tmp_path: Path) -> None:
    found = _gates(tmp_path)
    assert found.get("if self.draining") == "an early exit before it", (
        f"the early `return` before the all_reduce is not named: {found}")
    assert found.get("if self.closed") == "an early exit before it", (
        f"the early `raise` before the all_reduce is not named as an early exit: {found}")


LOOPS = """
def admit(self, t):
    for item in self.items:
        if item is None:
            continue
        self.count(item)
    for peer in self.peers:
        if peer.done:
            continue
        dist.all_reduce(t)
"""


def test_a_continue_in_a_loop_that_ended_before_the_call_is_no_gate(tmp_path: Path) -> None:
    path = tmp_path / "loops.py"
    path.write_text(textwrap.dedent(LOOPS))
    line = 1 + textwrap.dedent(LOOPS).splitlines().index("        dist.all_reduce(t)")
    found = {g.text: g.role for g in gates(f"{path}:{line} in admit")}
    assert "if item is None" not in found, (
        "`if item is None: continue` sits in a loop that ends before the all_reduce, so it "
        f"cannot keep a rank from the call, yet the hang note lists it: {found}")
    assert found.get("if peer.done") == "an early exit before it", (
        f"the continue inside the loop that holds the all_reduce is not named: {found}")
    assert found.get("for peer in self.peers") == "it runs only inside this branch", found


def test_a_rank_still_reporting_its_timeout_at_the_deadline_is_placed_by_its_stack(
        tmp_path: Path) -> None:
    """Under load the waiting rank's own process-group timeout can fire just before the
    deadline: it sent its failing note but not the full report, so its failure has no call
    site; where it waits is then read from the stack dumped at the deadline."""
    from deskcheck.suites.hang_gate import gate_note
    from deskcheck.suites.outcomes import RankFailure, RankOutcome

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(SOURCE))
    line = 1 + textwrap.dedent(SOURCE).splitlines().index("        dist.all_reduce(t)")
    dump = ("Current thread 0x00007f0000000001 (most recent call first):\n"
            '  File "/venv/lib/torch/distributed/distributed_c10d.py", line 2800 in all_reduce\n'
            '  File "/venv/lib/torch/distributed/c10d_logger.py", line 81 in wrapper\n'
            f'  File "{path}", line {line} in admit\n')
    reporting = RankOutcome(0, 101, failure=RankFailure(
        "RuntimeError", "timed out (still reporting it at the deadline)", "",
        collective="all_reduce"), collectives=2, stack=dump, extra={"reporting": True})
    finished = RankOutcome(1, 102, value=0, collectives=1)
    note = gate_note([reporting, finished]) or ""
    assert "where the paths parted: rank(s) 0 waited in a collective reached from " in note \
        and "in admit; rank(s) 1 did not get there" in note, (
            "rank 0 was still reporting its timeout at the deadline (a failure with no call "
            "site, its stack dumped), and the hang note did not say where it waited:\n"
            f"{note or '(no note)'}")
