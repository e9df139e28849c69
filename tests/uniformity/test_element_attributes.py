"""An attribute read of a container's element reads that attribute of what was put in
(docs/uniformity.md "Inputs": containers), and a local's attribute store is part of the
attribute's value. Found on vLLM's model runner (``gpu_model_runner.py``: ``for request in
reqs_to_add: self.input_batch.add_request(request)``, which reads ``request.req_id``): the
whole element was read, so the request's per-device RNG (``generator=torch.Generator(
device=self.device)``) reached the request ids and five decisions were UNKNOWN. Each shape
has a twin that must say RANK-LOCAL: the attribute that does hold the clock, a dict's keys,
a store after construction."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

REQ = """
    class Req:
        def __init__(self, rid, gen=None):
            self.rid = rid
            self.gen = gen

"""

# each builds `reqs` holding Req(rid=<configured>, gen=<clock>) its own way, then the
# decision reads one attribute of each element (ATTR)
FILLED = {
    "append in a loop": """
            reqs = []
            for r in self.server_args.incoming:
                reqs.append(Req(rid=r, gen=time.monotonic()))
            for req in reqs:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "a list display": """
            reqs = [Req(rid=self.server_args.x, gen=time.monotonic())]
            for req in reqs:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "a comprehension": """
            reqs = [Req(rid=r, gen=time.monotonic()) for r in self.server_args.incoming]
            for req in reqs:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "augmented assignment of a comprehension (vLLM's EPLB p2p_ops)": """
            reqs = []
            reqs += [Req(rid=r, gen=time.monotonic()) for r in self.server_args.incoming]
            for req in reqs:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "extend, then sorted()": """
            reqs = []
            reqs.extend([Req(rid=self.server_args.x, gen=time.monotonic())])
            for req in sorted(reqs):
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "an element by index": """
            reqs = [Req(rid=self.server_args.x, gen=time.monotonic())]
            req = reqs[0]
            if req.ATTR:
                dist.barrier(group=self.tp_cpu_group)
""",
    "a parameter of the callee (vLLM's add_request)": """
            reqs = []
            reqs.append(Req(rid=self.server_args.x, gen=time.monotonic()))
            for req in reqs:
                self._admit(req)

        def _admit(self, request):
            if request.ATTR:
                dist.barrier(group=self.tp_cpu_group)
""",
    "a field the class appends to": """
            self.add()
            for req in self.queue:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)

        def __init__(self):
            self.queue = []

        def add(self):
            self.queue.append(Req(rid=self.server_args.x, gen=time.monotonic()))
""",
    "a field the class extends": """
            self.add()
            for req in self.queue:
                if req.ATTR:
                    dist.barrier(group=self.tp_cpu_group)

        def __init__(self):
            self.queue = []

        def add(self):
            self.queue.extend([Req(rid=self.server_args.x, gen=time.monotonic())])
""",
    "a field dict read by key (vLLM's self.requests[req_id])": """
            self.add(self.server_args.x)
            req = self.requests[self.server_args.x]
            if req.ATTR:
                dist.barrier(group=self.tp_cpu_group)

        def __init__(self):
            self.requests = {}

        def add(self, key):
            self.requests[key] = Req(rid=self.server_args.x, gen=time.monotonic())
""",
}


def _ids(shapes: dict) -> list[str]:
    """Test ids: each shape's words, joined by underscores."""
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


def _decision(report, attr: str):
    found = [d for d in report.decisions if d.condition.endswith(f".{attr}")]
    assert found, (f"no decision reads .{attr}; got "
                   f"{[(d.condition, d.verdict.value) for d in report.decisions]}")
    return found[0]


@pytest.mark.parametrize("shape", sorted(FILLED), ids=_ids(FILLED))
def test_an_element_read_for_one_attribute_reads_only_what_sets_it(make_pkg, shape):
    src = REQ + "    class S:\n        def step(self):" + FILLED[shape].replace("ATTR", "rid")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = _decision(report, "rid")
    assert d.verdict is Verdict.UNIFORM, (
        f"{shape}: every element is Req(rid=<configured>, gen=time.monotonic()); the "
        f"decision reads only .rid, so it must be UNIFORM: the clock sets .gen, not .rid "
        f"(the whole element was read); got {d.verdict.value}: {d.why}")


@pytest.mark.parametrize("shape", sorted(FILLED), ids=_ids(FILLED))
def test_the_attribute_that_holds_the_clock_is_still_rank_local(make_pkg, shape):
    src = REQ + "    class S:\n        def step(self):" + FILLED[shape].replace("ATTR", "gen")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = _decision(report, "gen")
    assert d.verdict is Verdict.RANK_LOCAL and "monotonic" in d.why, (
        f"{shape}: .gen of every element is time.monotonic(), so the decision must be "
        f"RANK-LOCAL naming the clock; got {d.verdict.value}: {d.why}")


CHAIN = """
    class S:
        def step(self):
            reqs = [Req(rid=self.server_args.x,
                        gen=Req(rid=time.monotonic(), gen=self.server_args.y))]
            for req in reqs:
                if req.CHAIN:
                    dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("chain, verdict", [("gen.rid", Verdict.RANK_LOCAL),
                                            ("rid.real", Verdict.UNIFORM)])
def test_an_attribute_chain_through_elements_reads_its_first_attribute(make_pkg, chain,
                                                                        verdict):
    src = REQ + CHAIN.replace("CHAIN", chain)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = _decision(report, chain.rsplit(".", 1)[-1])
    assert d.verdict is verdict, (
        f"`req.{chain}` of each element reads the element's {chain.split('.')[0]!r} "
        f"(the first attribute of the chain, wholly): .gen holds Req(rid=time.monotonic()), "
        f".rid the configured value, so the decision must be {verdict.value}; got "
        f"{d.verdict.value}: {d.why}")


def test_an_element_tested_for_its_truth_reads_its_value_not_the_containers_length(
        make_pkg):
    src = """
    class S:
        def step(self):
            flags = [time.monotonic() > 5]
            for flag in flags:
                if flag:
                    dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "flag"][0]
    assert d.verdict is Verdict.RANK_LOCAL and "monotonic" in d.why, (
        "`if flag:` tests an element's own value (time.monotonic() > 5), not how many "
        "elements the list holds: the loop variable must be read as the element's value, "
        f"RANK-LOCAL naming the clock; got {d.verdict.value}: {d.why}")


# shapes where the element's attribute cannot be told apart: the whole value is read
WHOLE = {
    "a dict iterated yields its keys": """
            pending = {}
            pending[Req(rid=time.monotonic())] = Req(rid=self.server_args.x)
            for req in pending:
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "a dict's keys in a display": """
            pending = {Req(rid=time.monotonic()): Req(rid=self.server_args.x)}
            for req in pending:
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "insert(i, v)": """
            reqs = []
            reqs.insert(0, Req(rid=time.monotonic()))
            for req in reqs:
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "enumerate": """
            reqs = [Req(rid=time.monotonic())]
            for i, req in enumerate(reqs):
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "dict.values()": """
            pending = {self.server_args.x: Req(rid=time.monotonic())}
            for req in pending.values():
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "a comprehension's test": """
            reqs = [Req(rid=r) for r in self.server_args.incoming if time.monotonic() > r]
            for req in reqs:
                if req.rid:
                    dist.barrier(group=self.tp_cpu_group)
""",
}


@pytest.mark.parametrize("shape", sorted(WHOLE), ids=_ids(WHOLE))
def test_where_elements_cannot_be_told_apart_the_clock_still_reaches(make_pkg, shape):
    src = REQ + "    class S:\n        def step(self):" + WHOLE[shape]
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = _decision(report, "rid")
    assert d.verdict is Verdict.RANK_LOCAL and "monotonic" in d.why, (
        f"{shape}: the clock reaches which elements exist or what they hold, so the "
        f"decision on .rid must be RANK-LOCAL naming the clock; got {d.verdict.value}: "
        f"{d.why}")


STORED = {
    "a store after construction": ("""
            req = Req(rid=self.server_args.x)
            req.gen = time.monotonic()
            if req.gen:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.RANK_LOCAL),
    "a store on a deeper attribute": ("""
            req = Req(rid=self.server_args.x, gen=Req(rid=self.server_args.y))
            req.gen.rid = time.monotonic()
            if req.gen.rid:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.RANK_LOCAL),
    "a store of the object the read goes into": ("""
            req = Req(rid=self.server_args.x)
            req.gen = Req(rid=time.monotonic())
            if req.gen.rid:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.RANK_LOCAL),
    "a store before the element is appended": ("""
            reqs = []
            req = Req(rid=self.server_args.x)
            req.gen = time.monotonic()
            reqs.append(req)
            for r in reqs:
                if r.gen:
                    dist.barrier(group=self.tp_cpu_group)
""", Verdict.RANK_LOCAL),
    "a store in a tuple target": ("""
            req = Req(rid=self.server_args.x)
            req.gen, other = time.monotonic(), 1
            if req.gen:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.RANK_LOCAL),
    "a store on another object the name held before": ("""
            req = Req(rid=self.server_args.x)
            req.gen = time.monotonic()
            req = Req(rid=self.server_args.x, gen=self.server_args.y)
            if req.gen:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.UNIFORM),
    "a store of another attribute": ("""
            req = Req(rid=self.server_args.x, gen=self.server_args.y)
            req.rid = time.monotonic()
            if req.gen:
                dist.barrier(group=self.tp_cpu_group)
""", Verdict.UNIFORM),
}


@pytest.mark.parametrize("shape", sorted(STORED), ids=_ids(STORED))
def test_an_attribute_stored_on_a_local_is_part_of_its_value(make_pkg, shape):
    body, verdict = STORED[shape]
    src = REQ + "    class S:\n        def step(self):" + body
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"{shape}: the decision `{d.condition}` must be {verdict.value} "
        + ("(the stored clock is what the read finds, whatever the constructor passed)"
           if verdict is Verdict.RANK_LOCAL else
           "(the clock is stored on another object, or on another attribute)")
        + f"; got {d.verdict.value}: {d.why}")


BROADCAST_ROOT = """
    class S:
        def step(self):
            if self.tp_rank == 0:
                objs = [self.server_args.x]
                dist.broadcast_object_list(objs, src=0, group=self.tp_cpu_group)
                result = objs[0]
            else:
                OTHER
            if result:
                dist.barrier(group=self.tp_cpu_group)
"""

# the non-root side's definition of `result`, and whether `if result` may be judged uniform
OTHER_SIDES = {
    "the same broadcast": ("""objs = [None]
                dist.broadcast_object_list(objs, src=0, group=self.tp_cpu_group)
                result = objs[0]""", True),
    "a value of its own": ("result = self.server_args.x", False),
    "a constant": ("result = None", False),
    "another collective": ("""objs = [None]
                dist.broadcast_object_list(objs, src=0, group=self.tp_cpu_group)
                other = [None]
                dist.all_gather_object(other, objs[0], group=self.tp_cpu_group)
                result = other[0]""", False),
}


@pytest.mark.parametrize("shape", sorted(OTHER_SIDES), ids=_ids(OTHER_SIDES))
def test_which_side_of_one_broadcast_reaches_does_not_decide_the_value(make_pkg, shape):
    other, uniform = OTHER_SIDES[shape]
    src = BROADCAST_ROOT.replace("OTHER", other)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "result"][0]
    if uniform:
        assert d.verdict is Verdict.UNIFORM, (
            "rank 0 and the other ranks each read `result` from the same "
            "broadcast_object_list (src=0): which branch's definition reaches `if result` "
            f"does not change the value, so the rank id that picks the branch is no input; "
            f"got {d.verdict.value}: {d.why}")
    else:
        assert d.verdict is Verdict.RANK_LOCAL and "rank" in d.why, (
            f"{shape}: the non-root ranks' `result` is not what rank 0's broadcast made, so "
            f"the rank id that picks the branch decides the value: RANK-LOCAL naming the "
            f"rank id; got {d.verdict.value}: {d.why}")


def test_a_position_of_a_loop_variable_is_not_a_position_of_the_container(make_pkg):
    """``for pair in self.make(): a, b = pair``: ``b`` is position 1 of each pair, not
    position 1 of the list ``make()`` returns (whose second pair is configuration): with no
    mode for "position 1 of every element" the pairs are read whole."""
    src = """
    class S:
        def make(self):
            return [(time.monotonic(), 1), (2, 3)]

        def step(self):
            for pair in self.make():
                a, b = pair
                if b:
                    dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "b"][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`b` is position 1 of each pair (the first pair holds a clock), not a position of "
        "the container: the list's second pair (2, 3) alone must not decide it; read whole, "
        f"it is RANK-LOCAL; got {d.verdict.value}: {d.why}")
