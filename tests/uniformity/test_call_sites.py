"""A call's return value is bound to that call's arguments (one level of call-site
sensitivity): a helper called from two places does not lend one caller the other's inputs."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"

# SGLang's disaggregation/utils.py: `_is_fake_transfer(req)` is called on a request popped
# by agreed polls and, elsewhere, on a request indexed by this rank's raw poll list.
HELPER = """
    def is_fake(req):
        return req.host is None

    class S:
        def step(self):
            polls = [p.poll() for p in self.pollers]
            for i, state in enumerate(polls):
                if state == 2 and is_fake(self.reqs[polls[i]]):
                    continue
            req = self.agreed_reqs[0]
            if is_fake(req):
                dist.barrier(group=self.tp_cpu_group)

        def sync(self):
            self.agreed_reqs = dist.broadcast_object_list([self.pending], group=self.tp_cpu_group)
"""


def test_a_helpers_return_follows_only_this_calls_argument(make_pkg):
    root = make_pkg({"s.py": HELPER}, CFG)
    d = next(d for d in audit("pkg.s:S", root=root).decisions if d.condition == "is_fake(req)")
    local = [(i.name, i.witness) for i in d.inputs if i.klass.value == "RANK-LOCAL"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"is_fake(req) is called here on an agreed request; the rank-local poll is the argument "
        f"of another call of is_fake, yet the decision was RANK-LOCAL through it: {local}")


def test_a_helpers_return_keeps_a_rank_local_argument_of_this_call(make_pkg):
    """The can-fail twin: the decision's own call passes the polled request."""
    root = make_pkg({"s.py": HELPER.replace("if is_fake(req):",
                                            "if is_fake(self.reqs[polls[0]]):")}, CFG)
    d = next(d for d in audit("pkg.s:S", root=root).decisions
             if d.condition == "is_fake(self.reqs[polls[0]])")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"is_fake is called on a request indexed by this rank's raw poll, yet the decision "
        f"was {d.verdict}: {d.why}")
    poll = next(i for i in d.inputs if i.klass.value == "RANK-LOCAL")
    assert "poll" in poll.name, f"the rank-local input must be the poll, got {poll.name}"
