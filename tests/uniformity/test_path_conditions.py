"""What a path's condition says about the value read at its end (mechanism 1, refined):

- a disjunction (``if not flags or dist.get_world_size(group) == 1: return flags``) is
  judged disjunct by disjunct: where a disjunct makes the value read falsy (``not x``,
  ``x is None``, ``len(x) == 0``) the value carries nothing, so the other disjuncts decide;
- a single-rank test held in a parameter (``distributed=world_size > 1``) or a local is
  followed to what binds it: the call site's argument, every caller's, the assignment's.

Each fixture has a twin that must stay RANK-LOCAL, so the rule cannot pass by dropping
inputs."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
"""

# The SGLang shape (disaggregation/utils.py all_reduce_flags): an early return of the
# argument itself when it is empty or the group has one rank, else its all-reduced copy.
_REDUCE_FLAGS = """
import torch.distributed as dist

def all_reduce_flags(flags, group):
    if {guard}:
        return flags
    t = list(flags)
    dist.all_reduce(t, group=group)
    return t

class S:
    def step(self):
        polls = [self.poller.poll()]
        done = all_reduce_flags(polls, self.tp_group)
        if done[0]:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""


# agreed where reduced, TRIVIAL (one rank) where not: either way no rank may disagree
_EXCUSED = (Verdict.UNIFORM, Verdict.TRIVIAL)


def _decision(root, condition):
    report = audit("pkg.s:S", root=root)
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"no decision `{condition}`; found: " + ", ".join(
        f"`{d.condition}`" for d in report.decisions)
    return found[0]


def _locals(d):
    return sorted(i.name for i in d.inputs if i.klass.value == "RANK-LOCAL")


@pytest.mark.parametrize("guard", [
    "not flags or dist.get_world_size(group) == 1",
    "dist.get_world_size(group) == 1 or len(flags) == 0",
    "flags is None or dist.get_world_size(group) == 1",
    "not (flags and dist.get_world_size(group) > 1)",
])
def test_an_or_guard_whose_other_disjunct_empties_the_value_is_trivial(make_pkg, guard):
    root = make_pkg({"s.py": _REDUCE_FLAGS.format(guard=guard)}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict in _EXCUSED, (
        f"under `{guard}` the poll result escapes unreduced only where it is empty or the "
        f"group has one rank, so `done[0]` is agreed; got {d.verdict.value} with rank-local "
        f"inputs {_locals(d)}: the `or` guard was not split into its disjuncts")


@pytest.mark.parametrize("guard", [
    "not flags or self_check(flags)",          # the other disjunct says nothing of ranks
    "not group or dist.get_world_size(group) == 1",  # empties a different name
    "flags or dist.get_world_size(group) == 1",      # truthy, not empty
])
def test_an_or_guard_that_does_not_excuse_every_path_stays_rank_local(make_pkg, guard):
    source = _REDUCE_FLAGS.format(guard=guard) + "\ndef self_check(xs):\n    return True\n"
    root = make_pkg({"s.py": source}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict is Verdict.RANK_LOCAL and any("poller.poll" in n for n in _locals(d)), (
        f"under `{guard}` a non-empty poll list escapes unreduced on a multi-rank group, "
        f"so `done[0]` must stay RANK-LOCAL through poller.poll; got {d.verdict.value} "
        f"with {_locals(d)}")


def test_an_emptied_value_is_followed_only_through_its_own_definition(make_pkg):
    # `flags` is reassigned after the test: the test said nothing of the value returned
    root = make_pkg({"s.py": _REDUCE_FLAGS.replace(
        "    if {guard}:\n        return flags",
        "    if not flags or dist.get_world_size(group) == 1:\n"
        "        flags = [f + 1 for f in flags] + [self_poll()]\n        return flags"
    ) + "\ndef self_poll():\n    import time\n    return time.time()\n"}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`flags` is rebound after `not flags` was tested, so the returned list is not "
        f"known empty; expected RANK-LOCAL, got {d.verdict.value} ({_locals(d)})")


_SIZED = """
import time
import torch.distributed as dist

def available(distributed=False, group=None):
    free = time.time()
    if distributed:
        t = [free]
        dist.all_reduce(t, group=group)
        free = t[0]
    return free

class S:
    def step(self):
        budget = {call}
        if budget > 3:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""


@pytest.mark.parametrize("call", [
    "available(distributed=self.tp_size > 1, group=self.tp_group)",
    "available(self.tp_size > 1, self.tp_group)",
    "available(distributed=not self.tp_size == 1, group=self.tp_group)",
])
def test_a_single_rank_test_passed_as_an_argument_excuses_the_unreduced_path(make_pkg, call):
    root = make_pkg({"s.py": _SIZED.format(call=call)}, CFG)
    d = _decision(root, "budget > 3")
    assert d.verdict in _EXCUSED, (
        f"`{call}`: the clock escapes unreduced only where `distributed` is false, i.e. "
        f"where the TP group has one rank; expected UNIFORM or TRIVIAL, got {d.verdict.value} with "
        f"{_locals(d)}: the parameter's single-rank test at the call site was not followed")


@pytest.mark.parametrize("call", [
    "available(group=self.tp_group)",                       # the default: never reduced
    "available(distributed=self.verbose, group=self.tp_group)",  # not a rank-count test
    "available(distributed=self.tp_size == 1, group=self.tp_group)",  # the wrong way round
])
def test_an_argument_that_is_no_single_rank_test_leaves_the_path_rank_local(make_pkg, call):
    root = make_pkg({"s.py": _SIZED.format(call=call)}, CFG)
    d = _decision(root, "budget > 3")
    assert d.verdict is Verdict.RANK_LOCAL and any("time.time" in n for n in _locals(d)), (
        f"`{call}` lets the clock escape unreduced on a multi-rank group; expected "
        f"RANK-LOCAL through time.time, got {d.verdict.value} with {_locals(d)}")


def test_each_call_site_binds_its_own_argument(make_pkg):
    source = _SIZED.format(call="available(distributed=self.tp_size > 1, group=self.tp_group)")
    source += ("\n        local = available(group=self.tp_group)\n"
               "        if local > 3:\n"
               "            dist.broadcast(self.y, src=0, group=self.tp_group)\n")
    root = make_pkg({"s.py": source}, CFG)
    reduced, plain = _decision(root, "budget > 3"), _decision(root, "local > 3")
    assert reduced.verdict in _EXCUSED, (
        f"the call passing `self.tp_size > 1` was given the other call's unreduced path: "
        f"{reduced.verdict.value} {_locals(reduced)}")
    assert plain.verdict is Verdict.RANK_LOCAL, (
        f"the call passing nothing (never reduced) borrowed the other call site's "
        f"single-rank test: {plain.verdict.value} {_locals(plain)}")


def test_a_single_rank_test_held_in_a_local_is_followed_to_its_assignment(make_pkg):
    root = make_pkg({"s.py": """
        import time
        import torch.distributed as dist

        class S:
            def step(self):
                free = time.time()
                distributed = self.tp_size > 1
                if distributed:
                    t = [free]
                    dist.all_reduce(t, group=self.tp_group)
                    free = t[0]
                if free > 3:
                    dist.broadcast(self.x, src=0, group=self.tp_group)
    """}, CFG)
    d = _decision(root, "free > 3")
    assert d.verdict in _EXCUSED, (
        f"`distributed = self.tp_size > 1` guards the reduction; the unreduced clock "
        f"reaches `free > 3` only on one rank; got {d.verdict.value} with {_locals(d)}")


# A default rule names a source by its call (``*get_available_gpu_memory*``); a helper of
# the project so named is read when its body shows where its value comes from.
_HELPER = """
import torch
import torch.distributed as dist

def get_available_gpu_memory(group=None):
    free, _total = torch.cuda.mem_get_info()
    {reduce}
    return free

class Pool:
    def __init__(self):
        self.free = [1, 2, 3]
    def available_size(self):
        return len(self.free)

class S:
    def __init__(self):
        self.pool = Pool()
    def get_num_allocatable_reqs(self):
        return self.pool.available_size()
    def step(self):
        if {test}:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""

_MIN_REDUCE = "t = [free]\n    dist.all_reduce(t, group=group)\n    free = t[0]"


def test_a_helper_named_like_a_source_whose_body_reduces_it_is_agreed(make_pkg):
    source = _HELPER.format(reduce=_MIN_REDUCE,
                            test="get_available_gpu_memory(self.tp_group) > 1")
    d = _decision(make_pkg({"s.py": source}, CFG),
                  "get_available_gpu_memory(self.tp_group) > 1")
    assert d.verdict is Verdict.UNIFORM, (
        f"get_available_gpu_memory is a helper of the project that all-reduces the probe "
        f"before returning it; the name rule should yield to its body: got "
        f"{d.verdict.value} with {_locals(d)}")


def test_a_helper_named_like_a_source_whose_body_does_not_reduce_names_the_probe(make_pkg):
    source = _HELPER.format(reduce="pass", test="get_available_gpu_memory() > 1")
    d = _decision(make_pkg({"s.py": source}, CFG), "get_available_gpu_memory() > 1")
    assert d.verdict is Verdict.RANK_LOCAL and any(
        "mem_get_info" in n for n in _locals(d)), (
        f"the helper returns this rank's own mem_get_info unreduced: expected RANK-LOCAL "
        f"through torch.cuda.mem_get_info, got {d.verdict.value} with {_locals(d)}")


def test_a_declared_replica_read_inside_a_helper_named_like_a_source_clears_it(make_pkg):
    cfg = CFG + """
[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_pools.py::test_pools_are_replicas"
"""
    source = _HELPER.format(reduce="pass", test="self.get_num_allocatable_reqs() > 0")
    d = _decision(make_pkg({"s.py": source}, cfg), "self.get_num_allocatable_reqs() > 0")
    assert d.verdict is Verdict.SANCTIONED, (
        f"get_num_allocatable_reqs only reads self.pool, declared a replica: the declaration "
        f"should decide, not the name rule on the helper; got {d.verdict.value} with "
        f"{_locals(d)}")


def test_a_name_rule_stands_where_the_body_shows_no_source(make_pkg):
    source = _HELPER.format(reduce="pass", test="self.pool.available_size() > 0")
    d = _decision(make_pkg({"s.py": source}, CFG), "self.pool.available_size() > 0")
    assert d.verdict is Verdict.RANK_LOCAL and any(
        "available_size" in n for n in _locals(d)), (
        f"Pool.available_size's body reads only its own list: the per-rank resource rule "
        f"must still classify it; got {d.verdict.value} with {_locals(d)}")


# --- the opposite cases of each rule (issue 33, session 14) ---------------------------------

_SELF_CHECK = "\ndef self_check(xs):\n    return True\n"


@pytest.mark.parametrize("guard", [
    "not flags",                      # an if alone: the value returned is empty there
    "len(flags) == 0",
    "len(flags) < 1",
    "len(flags) <= 0",
    "not len(flags) > 0",
    "flags is None",
    "not flags or len(flags) == 0",   # every disjunct empties it: still empty
    "not flags and self_check(flags)",  # an and adds: one emptying part is enough
])
def test_a_guard_that_empties_the_value_returned_is_trivial(make_pkg, guard):
    root = make_pkg({"s.py": _REDUCE_FLAGS.format(guard=guard) + _SELF_CHECK}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict in _EXCUSED, (
        f"under `{guard}` the poll list escapes unreduced only where it is empty (a falsy "
        f"value carries no source), so `done[0]` is agreed; got {d.verdict.value} with "
        f"rank-local inputs {_locals(d)}: the empty value was not recognised")


@pytest.mark.parametrize("guard", [
    "self_check(flags) or dist.get_world_size(group) == 1",  # one disjunct proves nothing
    "not (flags and self_check(flags))",  # a negated and is an or: non-empty passes too
    "flags is not None",                  # not None is not empty
    "not (flags is None)",
    "not (len(flags) == 0)",
    "len(flags) <= 1",                    # one element is not empty
    "len(flags) < 2",
    "not (len(flags) > 1)",
])
def test_a_guard_that_lets_a_non_empty_value_escape_stays_rank_local(make_pkg, guard):
    root = make_pkg({"s.py": _REDUCE_FLAGS.format(guard=guard) + _SELF_CHECK}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict is Verdict.RANK_LOCAL and any("poller.poll" in n for n in _locals(d)), (
        f"under `{guard}` a non-empty poll list escapes unreduced on a multi-rank group, "
        f"so `done[0]` must stay RANK-LOCAL through poller.poll; got {d.verdict.value} "
        f"with {_locals(d)}: the guard was read as proving more than it does")


def test_an_early_exit_guard_is_read_on_the_side_the_path_takes(make_pkg):
    root = make_pkg({"s.py": _REDUCE_FLAGS.replace(
        "    if {guard}:\n        return flags\n    t = list(flags)\n"
        "    dist.all_reduce(t, group=group)\n    return t",
        "    if flags and dist.get_world_size(group) > 1:\n        t = list(flags)\n"
        "        dist.all_reduce(t, group=group)\n        return t\n    return flags")}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict in _EXCUSED, (
        f"after `if flags and world_size > 1: return reduced` the list falls through "
        f"unreduced only where it is empty or the group has one rank; got "
        f"{d.verdict.value} with {_locals(d)}: the exit guard's negation was not read")


def test_a_value_rebound_inside_the_emptying_branch_is_not_empty(make_pkg):
    root = make_pkg({"s.py": _REDUCE_FLAGS.replace(
        "    if {guard}:\n        return flags",
        "    if not flags:\n        if group is None:\n            flags = [self_poll()]\n"
        "        return flags") + "\ndef self_poll():\n    import time\n    return time.time()\n"},
        CFG)
    d = _decision(root, "done[0]")
    assert d.verdict is Verdict.RANK_LOCAL and any("time.time" in n for n in _locals(d)), (
        f"the returned `flags` may be the clock bound after `not flags` was tested: only "
        f"the tested definition is empty, so `done[0]` stays RANK-LOCAL through time.time; "
        f"got {d.verdict.value} with {_locals(d)}")


def test_a_falsy_object_returned_still_has_attributes(make_pkg):
    root = make_pkg({"s.py": """
        import torch.distributed as dist

        class S:
            def stats(self):
                stats = self.poller.poll()
                if not stats:
                    return stats

            def step(self):
                if self.stats().total > 0:
                    dist.broadcast(self.y, src=0, group=self.tp_group)
    """}, CFG)
    d = _decision(root, "self.stats().total > 0")
    assert d.verdict is Verdict.RANK_LOCAL and any("poller.poll" in n for n in _locals(d)), (
        f"`stats` is returned where it tested falsy, but a falsy object still carries its "
        f"attributes: reading `.total` of it is not emptied; expected RANK-LOCAL through "
        f"poller.poll, got {d.verdict.value} with {_locals(d)}")


_CALLERS = """
import time
import torch.distributed as dist

class S:
    def run(self, distributed{default}):
        free = time.time()
        if distributed:
            t = [free]
            dist.all_reduce(t, group=self.tp_group)
            free = t[0]
        if free > 3:
            dist.broadcast(self.x, src=0, group=self.tp_group)

    def step(self):
        {calls}
"""


@pytest.mark.parametrize("default,calls", [
    ("", "self.run(self.tp_size > 1)\n        self.run(self.verbose)"),
    ("", "self.run(self.tp_size > 1)\n        self.run(self.dp_size > 1)"),
    ("=False", "self.run(self.tp_size > 1)\n        self.run()"),
])
def test_a_parameter_held_test_must_hold_at_every_caller(make_pkg, default, calls):
    root = make_pkg({"s.py": _CALLERS.format(default=default, calls=calls)}, CFG)
    d = _decision(root, "free > 3")
    assert d.verdict is Verdict.RANK_LOCAL and any("time.time" in n for n in _locals(d)), (
        f"callers `{calls.split()}` (default `{default}`): one of them lets the clock "
        f"escape unreduced on a multi-rank TP group, so `free > 3` stays RANK-LOCAL; got "
        f"{d.verdict.value} with {_locals(d)}: a single-rank test held by some callers only "
        f"was taken for all")


def test_a_parameter_held_test_that_every_caller_passes_is_followed(make_pkg):
    calls = "self.run(self.tp_size > 1)\n        self.run(distributed=self.tp_size != 1)"
    root = make_pkg({"s.py": _CALLERS.format(default="=True", calls=calls)}, CFG)
    d = _decision(root, "free > 3")
    assert d.verdict in _EXCUSED, (
        f"every caller passes a TP single-rank test, so the clock escapes unreduced only "
        f"where the TP group has one rank; got {d.verdict.value} with {_locals(d)}")


def test_a_caller_local_passed_as_the_argument_is_followed_in_the_caller(make_pkg):
    source = _SIZED.format(call="available(distributed=many, group=self.tp_group)").replace(
        "        budget = ", "        many = self.tp_size > 1\n        budget = ")
    d = _decision(make_pkg({"s.py": source}, CFG), "budget > 3")
    assert d.verdict in _EXCUSED, (
        f"the argument `many` is the caller's local `self.tp_size > 1`: it must be followed "
        f"where the call is, not inside the callee; got {d.verdict.value} with {_locals(d)}")


def test_a_local_holding_the_parameter_is_followed_through_both_names(make_pkg):
    source = _SIZED.format(call="available(distributed=self.tp_size > 1, group=self.tp_group)"
                           ).replace("    if distributed:", "    reduce_it = distributed\n"
                                     "    if reduce_it:")
    d = _decision(make_pkg({"s.py": source}, CFG), "budget > 3")
    assert d.verdict in _EXCUSED, (
        f"`reduce_it = distributed` holds the parameter bound to `self.tp_size > 1`: the "
        f"test is followed local -> parameter -> argument; got {d.verdict.value} with "
        f"{_locals(d)}")


def test_a_local_tested_both_ways_proves_each_side_on_its_own(make_pkg):
    root = make_pkg({"s.py": """
        import time
        import torch.distributed as dist

        class S:
            def step(self):
                distributed = self.tp_size > 1
                a = time.time()
                if not distributed:
                    t = [a]
                    dist.all_reduce(t, group=self.tp_group)
                    a = t[0]
                if a > 3:
                    dist.broadcast(self.x, src=0, group=self.tp_group)
                b = time.time()
                if distributed:
                    t = [b]
                    dist.all_reduce(t, group=self.tp_group)
                    b = t[0]
                if b > 3:
                    dist.broadcast(self.y, src=0, group=self.tp_group)
    """}, CFG)
    multi, single = _decision(root, "a > 3"), _decision(root, "b > 3")
    assert multi.verdict is Verdict.RANK_LOCAL, (
        f"the unreduced clock reaches `a > 3` where `distributed` holds (many TP ranks): "
        f"expected RANK-LOCAL, got {multi.verdict.value}: what the false side of the test "
        f"proved was reused for its true side")
    assert single.verdict in _EXCUSED, (
        f"the unreduced clock reaches `b > 3` only where `distributed` is false (one TP "
        f"rank); got {single.verdict.value} with {_locals(single)}: what the true side of "
        f"the test proved was reused for its false side")


def test_a_local_bound_otherwise_on_another_path_proves_nothing(make_pkg):
    root = make_pkg({"s.py": """
        import time
        import torch.distributed as dist

        class S:
            def step(self):
                distributed = self.tp_size > 1
                if self.sweep:
                    for distributed in self.modes:
                        self.log(distributed)
                free = time.time()
                if distributed:
                    t = [free]
                    dist.all_reduce(t, group=self.tp_group)
                    free = t[0]
                if free > 3:
                    dist.broadcast(self.x, src=0, group=self.tp_group)
    """}, CFG)
    d = _decision(root, "free > 3")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`distributed` may be a loop's value, not `self.tp_size > 1`: every definition "
        f"reaching the test must prove the single rank; got {d.verdict.value}")


def test_a_call_passing_nothing_gets_a_default_that_tests_the_rank_count(make_pkg):
    source = _SIZED.format(call="available(group=self.tp_group)").replace(
        "def available(distributed=False, group=None):",
        "world_size = int(os.environ.get('WORLD_SIZE', '1'))\n\n\n"
        "def available(distributed=world_size > 1, group=None):").replace(
        "import time\n", "import os\nimport time\n", 1)
    d = _decision(make_pkg({"s.py": source}, CFG), "budget > 3")
    assert d.verdict in _EXCUSED, (
        f"`available(group=...)` passes nothing: the default `world_size > 1` decides, so "
        f"the clock escapes unreduced only where the world has one rank; got "
        f"{d.verdict.value} with {_locals(d)}: the parameter's default was not read")


def test_an_early_exit_guard_before_a_read_in_the_same_function_is_read(make_pkg):
    root = make_pkg({"s.py": """
        import torch.distributed as dist

        class S:
            def step(self):
                flags = self.poller.poll()
                if flags and self.tp_size > 1:
                    return
                if flags:
                    dist.broadcast(self.y, src=0, group=self.tp_group)
    """}, CFG)
    d = _decision(root, "flags")
    assert d.verdict in _EXCUSED, (
        f"past `if flags and self.tp_size > 1: return` the poll list is read only where it "
        f"is empty or the TP group has one rank, so `if flags:` is TRIVIAL; got "
        f"{d.verdict.value} with {_locals(d)}: the exit guard a read passes was not read")


def test_an_exit_later_in_a_loop_body_says_nothing_of_the_next_passs_read(make_pkg):
    root = make_pkg({"s.py": """
        import torch.distributed as dist

        class S:
            def step(self):
                while True:
                    stop = self.poller.poll()
                    if len(stop) > 3:
                        dist.broadcast(self.y, src=0, group=self.tp_group)
                    if stop:
                        return
    """}, CFG)
    d = _decision(root, "len(stop) > 3")
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"the exit `if stop: return` comes after the read `if len(stop) > 3:` in the "
        f"loop body: it proves nothing of the next pass's fresh poll; expected RANK-LOCAL, "
        f"got {d.verdict.value} with {_locals(d)}")


def test_an_emptiness_test_on_another_value_does_not_empty_the_one_returned(make_pkg):
    """`len(x) == 0` empties only the very value it tests (set L, 02: an emptiness test on
    any name dropped the returned value's sources)."""
    source = _REDUCE_FLAGS.format(guard="len(group) == 0")
    root = make_pkg({"s.py": source}, CFG)
    d = _decision(root, "done[0]")
    assert d.verdict is Verdict.RANK_LOCAL and any("poller.poll" in n for n in _locals(d)), (
        f"`if len(group) == 0: return flags` says nothing of `flags`: the unreduced polls "
        f"escape there, so `done[0]` must stay RANK-LOCAL; got {d.verdict.value} with "
        f"{_locals(d)}")
