"""Blame from outcomes alone (no processes): who skipped, who hung, who raised, who died."""

from __future__ import annotations

from deskcheck.errors import RankAssertionError, RankError, RankTimeoutError
from deskcheck.suites import RankFailure, RankOutcome
from deskcheck.suites._diagnose import failure_error
from deskcheck.suites._stacks import collective_in_stack, innermost_frame, trim_rank_stack

C10D = "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
STACK_IN_ALL_REDUCE = f'''Thread 0x00007f0073a226c0 (most recent call first):
  File "/work/deskcheck/suites/_rank_main.py", line 95 in watch
  File "/usr/lib/python3.11/threading.py", line 982 in run

Current thread 0x00007f008e3ceb80 (most recent call first):
  File "{C10D}", line 3252 in all_reduce
  File "/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83 in wrapper
  File "/work/model.py", line 88 in step
  File "/work/deskcheck/suites/_rank_main.py", line 187 in _run
  File "/work/deskcheck/suites/_rank_main.py", line 226 in serve
  File "/work/deskcheck/suites/pool.py", line 181 in _start_rank
  File "/venv/lib/python3.11/site-packages/_pytest/main.py", line 411 in pytest_runtestloop
'''
STACK_SLEEPING = '''Current thread 0x00007f008e3ceb80 (most recent call first):
  File "/work/model.py", line 12 in wait_for_peer
  File "/work/deskcheck/suites/_rank_main.py", line 187 in _run
'''


def task():  # the failing task's location is named in every error
    pass


def in_collective(rank, count, message="Timed out waiting 2000ms for recv"):
    return RankOutcome(rank, 100 + rank, collectives=count, failure=RankFailure(
        "RuntimeError", message, "Traceback ...", collective="all_reduce",
        call_site="/work/model.py:88 in step"))


def test_stacks_name_the_collective_and_its_caller():
    assert collective_in_stack(STACK_IN_ALL_REDUCE) == ("all_reduce", "/work/model.py:88 in step"), (
        "a stack in all_reduce must name the collective and its caller /work/model.py:88 in step; "
        f"it gave {collective_in_stack(STACK_IN_ALL_REDUCE)}"
    )
    assert collective_in_stack(STACK_SLEEPING) == (None, None), (
        f"a sleeping stack names no collective; it gave {collective_in_stack(STACK_SLEEPING)}"
    )
    assert innermost_frame(STACK_SLEEPING) == "/work/model.py:12 in wait_for_peer", (
        "the innermost frame must be /work/model.py:12 in wait_for_peer; it is "
        f"{innermost_frame(STACK_SLEEPING)!r}"
    )


def test_a_forked_ranks_stack_loses_the_parents_frames_and_the_watch_thread():
    trimmed = trim_rank_stack(STACK_IN_ALL_REDUCE)
    assert "pytest_runtestloop" not in trimmed and "_start_rank" not in trimmed, (
        f"a forked rank's stack must lose the parent's pytest frames:\n{trimmed}"
    )
    assert "in watch" not in trimmed, (
        f"a forked rank's stack must lose the watch thread:\n{trimmed}"
    )
    assert trimmed.splitlines()[-1].endswith("line 226 in serve"), (
        f"a forked rank's stack must end in serve (line 226):\n{trimmed}"
    )


def test_the_rank_that_returned_early_skipped_the_collective():
    outcomes = [in_collective(0, 4), RankOutcome(1, 101, value=None, collectives=3),
                in_collective(2, 4)]
    error = failure_error(outcomes, task, "world=3 gloo (DESK)", 2.0)
    assert isinstance(error, RankTimeoutError), (
        "a rank that returned early while others waited must be a RankTimeoutError; it is "
        f"{type(error).__name__}: {error}"
    )
    assert str(error).splitlines()[0].endswith(
        "task on world=3 gloo (DESK): rank 1 skipped all_reduce #4: returned after 3 collectives "
        "while ranks 0 and 2 waited in it until the 2 s process-group timeout"), (
        "the error must say rank 1 skipped all_reduce #4 while ranks 0 and 2 waited; its first "
        f"line is {str(error).splitlines()[0]!r}"
    )
    assert str(error).startswith(f"{__file__}:"), (
        f"the error must start with the task's file:line {__file__}:; it is {str(error)[:200]!r}"
    )


def test_ranks_still_inside_the_collective_at_the_deadline_also_blame_the_skipper():
    hung = RankOutcome(0, 100, hung=True, stack=STACK_IN_ALL_REDUCE)
    outcomes = [hung, RankOutcome(1, 101, collectives=3)]
    head = str(failure_error(outcomes, task, "w2", 2.0)).splitlines()[0]
    assert head.endswith("rank 1 skipped all_reduce: returned after 3 collectives while rank 0 "
                         "waited in it until the 2 s process-group timeout"), head


def test_a_rank_stuck_elsewhere_is_named_where_it_is_stuck():
    outcomes = [in_collective(0, 1), RankOutcome(1, 101, hung=True, stack=STACK_SLEEPING)]
    error = failure_error(outcomes, task, "w2", 2.0)
    assert isinstance(error, RankTimeoutError), (
        f"a rank stuck elsewhere must be a RankTimeoutError; it is {type(error).__name__}: {error}"
    )
    assert "rank 1 never reached all_reduce: still running at /work/model.py:12 in " \
           "wait_for_peer while rank 0 waited in all_reduce" in str(error), (
        "the error must say where rank 1 is stuck (/work/model.py:12 in wait_for_peer); it says:\n"
        f"{error}"
    )


def test_a_raising_rank_is_the_cause_and_the_waiting_ranks_are_mentioned():
    boom = RankOutcome(1, 101, collectives=0, failure=RankFailure(
        "AssertionError", "told 3, room 1", "Traceback ...", is_assertion=True))
    error = failure_error([in_collective(0, 1), boom], task, "w2", 2.0)
    assert isinstance(error, RankAssertionError), (
        f"a raising rank must be a RankAssertionError; it is {type(error).__name__}: {error}"
    )
    assert "rank 1 raised AssertionError: told 3, room 1 (rank 0 then waited in all_reduce " \
           "for it)" in str(error), (
        "the error must blame rank 1's AssertionError and mention rank 0 waiting for it; it "
        f"says:\n{error}"
    )


def test_the_same_collective_error_on_every_rank_is_not_a_timeout():
    outcomes = [in_collective(r, 2, "Numpy is not available") for r in range(2)]
    error = failure_error(outcomes, task, "w2", 2.0)
    assert type(error) is RankError, (
        "the same collective error on every rank is no timeout: it must be a plain RankError; it "
        f"is {type(error).__name__}"
    )
    assert "rank 0 raised RuntimeError: Numpy is not available in all_reduce; rank 1 raised" \
           in str(error), (
        f"the error must name each rank's RuntimeError in all_reduce; it says:\n{error}"
    )


def test_a_dead_rank_is_named_with_its_signal():
    outcomes = [in_collective(0, 1), RankOutcome(1, 101, died="signal 9 (SIGKILL)")]
    error = failure_error(outcomes, task, "w2", 2.0)
    assert type(error) is RankError, (
        f"a dead rank must be a plain RankError; it is {type(error).__name__}"
    )
    assert "rank 1 died (signal 9 (SIGKILL)) (rank 0 then waited in all_reduce for it)" \
           in str(error), (
        f"the error must name rank 1 and its signal 9 (SIGKILL); it says:\n{error}"
    )
