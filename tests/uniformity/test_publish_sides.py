"""The two sides of one publish (docs/uniformity.md "Inputs"): ``if leader: msgs = drain();
pub.send(msgs) else: msgs = sub.recv()``, where the receive is declared agreed by that send.
After the ``if`` every rank holds what the leader sent, so the condition choosing the side
is no input of ``msgs`` (the ``if`` itself is judged where it gates the send). Found on
Megatron-LM's ``schedule_requests`` (MP rank 0 drains its socket and publishes the batch
over ZMQ; 10 false RANK-LOCAL reports through "which value of all_messages reaches:
self.is_mp_coordinator"). Twins: a leader that drains without sending, changes the list
after sending, sends only sometimes, or sends over another channel, and a receive not
declared agreed, keep the selection an input."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

CONFIG = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = [{ call = "self.pub.send_multipart", group = "self.tp_cpu_group" },
               { call = "self.other.send_multipart", group = "self.tp_cpu_group" }]

[[tool.deskcheck.uniformity.agreed]]
call = "self.sub.recv_multipart"
collective = "self.pub.send_multipart"
why = "the batch the leader published to its TP group"

[[tool.deskcheck.uniformity.role]]
condition = "self.is_leader"
why = "the leader drains the socket, then publishes the batch"
"""

ENGINE = """
    class E:
        def __init__(self, pub, other, sub, inbox):
            self.pub = pub
            self.other = other
            self.sub = sub
            self.inbox = inbox
            self.tp_cpu_group = None
            self.header = [b"v1"]
            self.extra = [b"noop"]
            self.is_leader = dist.get_rank(group=self.tp_cpu_group) == 0

        def step(self):
            msgs = []
            if LEADER:
                while True:
                    try:
                        msgs.append(self.inbox.recv_pyobj(time.monotonic()))
                    except Exception:
                        break
                SEND
            else:
                RECEIVE
            for m in msgs:
                dist.barrier(group=self.tp_cpu_group)
"""

PUBLISH = 'self.pub.send_multipart([b"batch"] + msgs)'
RECEIVE = "frames = self.sub.recv_multipart()\n                msgs = frames[1:]"


def _loop(make_pkg, send: str = PUBLISH, leader: str = "self.is_leader",
          config: str = CONFIG, receive: str = RECEIVE):
    source = ENGINE.replace("LEADER", leader).replace("SEND", send).replace("RECEIVE", receive)
    report = audit("pkg.e:E", root=make_pkg({"e.py": source}, config))
    loops = [d for d in report.decisions if d.kind == "for"]
    assert loops, f"`for m in msgs` gates the barrier but is no decision: {report.decisions}"
    return loops[0], report


def test_the_leader_side_of_a_publish_holds_what_the_others_receive(make_pkg):
    d, _ = _loop(make_pkg)
    assert d.verdict is Verdict.SANCTIONED, (
        "`if self.is_leader: msgs = drain(); pub.send(msgs) else: msgs = sub.recv()` with the "
        "receive declared agreed by that send: every rank holds the published batch after "
        f"the if, so `for m in msgs` must be SANCTIONED; got {d.verdict.value}: {d.why}")
    names = {i.name for i in d.inputs}
    assert not any("is_leader" in n or "get_rank" in n for n in names), (
        f"the condition choosing the publish's side was kept as an input: {names}")
    hops = [h for i in d.inputs for h in i.witness]
    assert any("sent by self.pub.send_multipart" in h for h in hops), (
        f"no witness hop says the leader's list is what it sent: {hops}")


@pytest.mark.parametrize("send, why", [
    ("pass", "the leader drains the socket but never sends"),
    (PUBLISH + "\n                msgs.append(self.inbox.recv_pyobj(0))",
     "the leader changes its list after sending it"),
    ("if len(msgs) > 2:\n                    " + PUBLISH,
     "the leader sends only sometimes (the send is not on every path of its side)"),
    ('self.other.send_multipart([b"batch"] + msgs)',
     "the leader sends over another channel than the one the receive is agreed by"),
    ('self.pub.send_multipart([b"batch"])', "the leader sends something else"),
    ('self.pub.send_multipart([b"batch"] + self.header)',
     "the leader sends another value (a field), not its list"),
], ids=["no_send", "changed_after_send", "conditional_send", "other_channel", "other_payload",
        "other_name"])
def test_a_leader_side_that_is_not_what_it_sent_keeps_the_selection(make_pkg, send, why):
    d, _ = _loop(make_pkg, send)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{why}: the leader's list is its own drain, chosen by a rank id: `for m in msgs` "
        f"must stay RANK-LOCAL; got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("receive, why", [
    ("msgs = [self.inbox.recv_pyobj(time.monotonic())]",
     "the other side reads its own socket, not the published batch"),
    ("frames = self.sub.recv_multipart()\n                if len(frames) > 1:\n"
     "                    msgs = frames[1:]",
     "the other side takes the batch only sometimes (else it keeps the empty list)"),
    (RECEIVE + "\n            msgs.append(self.inbox.recv_pyobj(time.monotonic()))",
     "every rank adds a message of its own after the if"),
    ("frames = self.sub.recv_multipart()\n                msgs = frames[1:] + self.extra",
     "the other side adds configured entries the leader never sent"),
], ids=["other_side_local", "other_side_conditional", "filled_after_the_if",
        "other_side_adds_config"])
def test_a_side_that_does_not_always_receive_keeps_the_selection(make_pkg, receive, why):
    d, _ = _loop(make_pkg, receive=receive)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"{why}: the ranks can hold different lists after the if: `for m in msgs` must stay "
        f"RANK-LOCAL; got {d.verdict.value}: {d.why}")


def test_a_receive_not_declared_agreed_is_no_publish(make_pkg):
    config = CONFIG.split("[[tool.deskcheck.uniformity.agreed]]")[0] + \
        CONFIG.split("[[tool.deskcheck.uniformity.role]]")[1].join(
            ["[[tool.deskcheck.uniformity.role]]", ""])
    d, _ = _loop(make_pkg, config=config)
    assert d.verdict is Verdict.RANK_LOCAL, (
        "with no declaration that the receive returns what the send published, the two "
        f"sides are two local values: must stay RANK-LOCAL; got {d.verdict.value}: {d.why}")


def test_a_rank_local_choice_of_side_is_reported_at_the_if(make_pkg):
    d, report = _loop(make_pkg, leader="self.inbox.poll(time.monotonic())")
    assert d.verdict is Verdict.SANCTIONED, (
        "after the if every rank holds the published batch whichever side it took: "
        f"`for m in msgs` must be SANCTIONED; got {d.verdict.value}: {d.why}")
    ifs = [x for x in report.decisions if x.kind == "if" and "poll" in x.condition]
    assert ifs and ifs[0].verdict is Verdict.RANK_LOCAL, (
        "the side is chosen by a poll only this rank saw: the `if` gating the send must be "
        f"reported RANK-LOCAL itself; got {[(x.condition, x.verdict.value) for x in ifs]}")


RETURNED = """
    class Queue:
        def __init__(self, writer):
            self._is_writer = writer
            self.last = None

        def enqueue(self, obj):
            self.last = obj

        def dequeue(self):
            return self.last

        def broadcast_object(self, obj=None):
            if self._is_writer:
                WRITER
            READER

    class E:
        def __init__(self, inbox, tp_cpu_group):
            self.inbox = inbox
            self.tp_cpu_group = tp_cpu_group
            self.mq = Queue(dist.get_rank(group=tp_cpu_group) == 0)

        def step(self):
            reqs = self.mq.broadcast_object(self.inbox.recv_pyobj(time.monotonic()))
            for r in reqs:
                dist.barrier(group=self.tp_cpu_group)
"""

RETURNED_CONFIG = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = [{ call = "self.enqueue", group = "self.tp_cpu_group" }]

[[tool.deskcheck.uniformity.agreed]]
call = "self.dequeue"
collective = "self.enqueue"
why = "the object the writer enqueued for its TP group"
"""


@pytest.mark.parametrize("writer, verdict, why", [
    ("self.enqueue(obj)\n                return obj", Verdict.SANCTIONED,
     "the writer returns what it enqueued, the readers what they dequeue: one object"),
    ("self.enqueue(obj)\n                return self.last", Verdict.RANK_LOCAL,
     "the writer returns another value than the one it enqueued"),
    ("self.enqueue(obj)\n                obj = self.last\n                return obj",
     Verdict.RANK_LOCAL, "the writer rebinds the name after enqueuing it"),
    ("if obj:\n                    self.enqueue(obj)\n                return obj",
     Verdict.RANK_LOCAL, "the writer enqueues only sometimes"),
    ("return obj", Verdict.RANK_LOCAL, "the writer never enqueues"),
], ids=["returns_what_it_sent", "returns_another_value", "rebinds_after_send",
        "sends_only_sometimes", "no_send"])
@pytest.mark.parametrize("reader", ["else:\n                return self.dequeue()",
                                    "return self.dequeue()"], ids=["else", "after_the_if"])
def test_the_two_returns_of_one_publish_are_one_value(make_pkg, writer, verdict, why, reader):
    source = RETURNED.replace("WRITER", writer).replace("READER", reader)
    report = audit("pkg.e:E", root=make_pkg({"e.py": source}, RETURNED_CONFIG))
    loops = [d for d in report.decisions if d.kind == "for"]
    assert loops, f"`for r in reqs` gates the barrier but is no decision: {report.decisions}"
    d = loops[0]
    assert d.verdict is verdict, (
        f"vLLM's MessageQueue.broadcast_object shape (`if writer: enqueue(obj); return obj "
        f"else: return dequeue()`, dequeue declared agreed by enqueue): {why}: `for r in "
        f"reqs` must be {verdict.value}; got {d.verdict.value}: {d.why}")
