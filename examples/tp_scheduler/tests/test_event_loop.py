"""The event loop and the forward pass a formed batch goes into, at a TP world of one.

The loop: the leader polls its inbox, every rank queues what it received, runs the pass
(reduce, formation) and forwards the batch it formed; a shutdown ends it after its pass. The
forward is a row-parallel stand-in whose numbers do not depend on the world size, so these
tests pin them here and the gloo arms (test_forward_congruence.py) compare against them.
"""

from __future__ import annotations

import pytest
from tp_scheduler import (
    SHUTDOWN,
    Req,
    RequestInbox,
    ScheduleBatch,
    Scheduler,
    SchedulerConfig,
    TPModelRunner,
)

A = tuple(range(10, 30))
B = tuple(range(50, 60))


def scheduler(**config) -> Scheduler:
    return Scheduler(tp_rank=0, tp_size=1, config=SchedulerConfig(**config))


class TestInbox:
    def test_each_poll_takes_one_delivery_in_order(self):
        inbox = RequestInbox()
        a, b = Req("a", A), Req("b", B)
        inbox.deliver([a, b])
        inbox.deliver([])
        inbox.deliver([SHUTDOWN])
        assert [inbox.poll(), inbox.poll(), inbox.poll(), inbox.poll()] == [
            [a, b], [], [SHUTDOWN], []], "a poll took other than the next delivery"

    def test_only_requests_and_shutdowns_are_delivered(self):
        with pytest.raises(TypeError, match="carries Req or Shutdown, got 'a'"):
            RequestInbox().deliver(["a"])


class TestForward:
    def batch(self, prefix_b: int = 0) -> ScheduleBatch:
        return ScheduleBatch(reqs=[Req("a", A), Req("b", B)], prefix_lens=[0, prefix_b],
                             rule="group")

    def test_the_forward_runs_the_extend_tokens_through_every_layer(self):
        out = TPModelRunner(0, 1, num_layers=3).forward(self.batch(prefix_b=4))
        assert (out.rids, out.num_tokens, out.layers) == (("a", "b"), 20 + 6, 3), (
            f"the forward ran {out.num_tokens} tokens through {out.layers} layers, expected "
            "the 26 extend tokens (20 of a, 10 - 4 cached of b) through 3")

    def test_the_output_is_deterministic_and_depends_on_the_tokens(self):
        first = TPModelRunner(0, 1).forward(self.batch())
        again = TPModelRunner(0, 1).forward(self.batch())
        other = TPModelRunner(0, 1).forward(self.batch(prefix_b=4))
        assert first.checksum == again.checksum, "two forwards of one batch differ"
        assert first.checksum != other.checksum, "a different batch gave the same checksum"

    def test_bad_shapes_and_a_missing_group_are_refused(self):
        with pytest.raises(ValueError, match="num_layers >= 1"):
            TPModelRunner(0, 1, num_layers=0)
        with pytest.raises(ValueError, match="needs the TP process group"):
            TPModelRunner(0, 2)
        with pytest.raises(ValueError, match="num_layers must be >= 1"):
            SchedulerConfig(num_layers=0)


class TestEventLoop:
    def test_the_loop_forwards_each_formed_batch_until_a_shutdown(self):
        sched = scheduler()
        sched.inbox.deliver([Req("a", A, max_new_tokens=2), Req("b", B)])
        sched.inbox.deliver([])
        sched.inbox.deliver([SHUTDOWN])
        assert sched.event_loop_normal() == 3, "the loop did not stop after the shutdown's pass"
        assert [(o.rids, o.num_tokens) for o in sched.forward_outputs] == [(("a", "b"), 30)], (
            f"forwards {sched.forward_outputs}: expected one, of the batch the first pass formed")
        assert sched.model_runner.forward_count == 1

    def test_requests_that_come_with_the_shutdown_are_still_served(self):
        sched = scheduler()
        sched.inbox.deliver([Req("a", A), SHUTDOWN])
        assert sched.event_loop_normal() == 1
        assert [o.rids for o in sched.forward_outputs] == [("a",)], (
            "the shutdown's pass dropped the request delivered with it")

    def test_a_pass_without_a_batch_runs_no_forward(self):
        sched = scheduler()
        sched.inbox.deliver([Req("a", A)])
        sched.inbox.deliver([SHUTDOWN])
        sched.prefetch_pending.add("a")
        assert sched.event_loop_normal() == 2
        assert sched.forward_outputs == [] and sched.model_runner.forward_count == 0, (
            "a pass whose head's prefetch is pending still ran a forward")

    def test_only_the_leader_polls(self):
        follower = Scheduler.__new__(Scheduler)
        follower.tp_rank, follower.tp_size = 1, 1  # a follower in a group of one: no broadcast
        follower.inbox = RequestInbox()
        follower.inbox.deliver([Req("a", A)])
        assert Scheduler.recv_requests(follower) == [] and len(follower.inbox) == 1, (
            "a follower polled its own inbox instead of taking the leader's broadcast")
