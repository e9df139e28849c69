"""Values made agreed by in-place collectives, truth tests of containers, wrapper groups."""

from __future__ import annotations

from deskcheck.uniformity import InputClass, Verdict, audit

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


def _by_condition(report):
    return {d.condition: d for d in report.decisions}


def test_a_tensor_reduced_in_place_is_agreed_after_the_collective(make_pkg):
    root = make_pkg({"s.py": """
        import torch

        def reduce_polls(polls, group):
            tensor = torch.tensor(polls)
            dist.all_reduce(tensor, group=group)
            return tensor.tolist()

        class S:
            def step(self):
                polls = reduce_polls([p.poll() for p in self.pollers], self.tp_cpu_group)
                if polls[0] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    d = _by_condition(audit("pkg.s:S", root=root))["polls[0] > 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"the polls were reduced in place before being returned, yet: {d.verdict} {d.why}")
    assert [i.klass for i in d.inputs] == [InputClass.AGREED], d.inputs


def test_a_containers_truth_is_its_length(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                for r in self.agreed_reqs():
                    self.queue.append((r, time.monotonic()))
                if not self.queue:
                    return
                dist.barrier(group=self.tp_cpu_group)
            def agreed_reqs(self):
                return dist.broadcast_object_list([self.inbox], group=self.tp_cpu_group)
    """}, CFG)
    d = _by_condition(audit("pkg.s:S", root=root))["not self.queue"]
    assert d.verdict is not Verdict.RANK_LOCAL, (
        f"`not self.queue` tests the queue's length (agreed appends), not the timestamps: "
        f"{d.why}")


def test_a_wrapper_named_with_a_fixed_group_runs_over_it(make_pkg):
    root = make_pkg({"s.py": """
        def shard_broadcast(data):
            return data

        class S:
            def step(self):
                if self.pp_rank == 0:
                    shard_broadcast([1])
    """}, CFG + 'collectives = [{ call = "shard_broadcast", group = "self.tp_group" }]\n')
    d = _by_condition(audit("pkg.s:S", root=root))["self.pp_rank == 0"]
    assert d.collectives[0].dim == "tp", f"the declared group was not used: {d.collectives[0]}"
    assert d.verdict is Verdict.UNIFORM, f"{d.verdict} {d.why}"


def test_a_wrapper_that_reduces_its_parameter_in_place_makes_it_agreed(make_pkg):
    root = make_pkg({"s.py": """
        import torch

        class S:
            def _all_reduce(self, tensor, op):
                dist.all_reduce(tensor, op=op, group=self.tp_cpu_group)

            def step(self):
                ready = 0
                for ack in self.acks:
                    if not ack.finish_event.query():
                        break
                    ready += 1
                counts = torch.tensor([ready])
                self._all_reduce(counts, dist.ReduceOp.MIN)
                if counts.tolist()[0] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    d = _by_condition(audit("pkg.s:S", root=root))["counts.tolist()[0] > 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"self._all_reduce reduces its tensor in place over the TP group, yet: {d.why}")


# SGLang's multiplexing mixin (multiplexing_mixin.py:209): a CUDA event poll summed over the
# TP group by a ProcessGroup *method*, waited on at once.
PG_METHOD = """
    import torch

    class S:
        def step(self):
            done = self.prefill_exe_done.query()
            flags = torch.ones(1) if done else torch.zeros(1)
            self.tp_cpu_group.allreduce(flags, dist.ReduceOp.SUM).wait()
            if flags.item() == self.tp_size:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_process_group_method_reduces_its_tensor_in_place(make_pkg):
    root = make_pkg({"s.py": PG_METHOD}, CFG)
    d = _by_condition(audit("pkg.s:S", root=root))["flags.item() == self.tp_size"]
    assert d.verdict is Verdict.UNIFORM, (
        f"self.tp_cpu_group.allreduce(flags, SUM).wait() sums the tensor in place over the TP "
        f"group, yet the decision on it was {d.verdict}: {d.why}")


def test_a_process_group_method_over_another_group_does_not_agree_the_tensor(make_pkg):
    """The can-fail twin: the same sum over the PP group leaves the tensor rank-local within
    a TP group."""
    root = make_pkg({"s.py": PG_METHOD.replace("self.tp_cpu_group.allreduce",
                                                 "self.pp_group.allreduce")}, CFG)
    d = _by_condition(audit("pkg.s:S", root=root))["flags.item() == self.tp_size"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"a sum over the PP group does not agree the tensor over TP, yet the decision gating "
        f"a TP barrier was {d.verdict}: {d.why}")
