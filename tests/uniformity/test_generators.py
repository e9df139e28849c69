"""A generator function's value is what it yields (docs/uniformity.md "Inputs"). Found on
torchtitan's trainer (``batch_generator`` yields each batch of the rank's own data shard):
a generator was read as a function returning nothing, so ``for x in self._gen(): if x > 5:``
over yielded clock readings was UNIFORM (a silent miss), and how often a generator yields
was never an input of the loop that iterates it."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

CONSUMERS = {
    "next": """
            x = next(self.VIA())
            if x > 5:
                dist.barrier(group=self.tp_cpu_group)
""",
    "a comprehension": """
            x = [v for v in self.VIA()][0]
            if x > 5:
                dist.barrier(group=self.tp_cpu_group)
""",
    "a for loop": """
            for x in self.VIA():
                if x > 5:
                    dist.barrier(group=self.tp_cpu_group)
""",
}

GEN = """
    class S:
        def _gen(self):
            while True:
                yield VALUE

        def _outer(self):
            yield from self._gen()

        def step(self):"""


@pytest.mark.parametrize("via", ["_gen", "_outer"], ids=["yield", "yield_from"])
@pytest.mark.parametrize("consumer", sorted(CONSUMERS), ids=["comprehension", "for", "next"])
@pytest.mark.parametrize("value, verdict", [("time.monotonic()", Verdict.RANK_LOCAL),
                                            ("self.server_args.x", Verdict.UNIFORM)],
                         ids=["clock", "configured"])
def test_what_a_generator_yields_is_its_value(make_pkg, via, consumer, value, verdict):
    src = GEN.replace("VALUE", value) + CONSUMERS[consumer].replace("VIA", via)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "x > 5"][0]
    assert d.verdict is verdict, (
        f"{via}() yields {value} (read by {consumer}): `if x > 5` reads what it yields, so it "
        f"must be {verdict.value}; got {d.verdict.value}: {d.why}")


COUNTED = """
    class S:
        def _gen(self):
            for i in range(COUNT):
                yield i

        def step(self):
            for x in self._gen():
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("count, verdict", [("int(time.monotonic())", Verdict.RANK_LOCAL),
                                            ("self.server_args.n", Verdict.UNIFORM)],
                         ids=["clock", "configured"])
def test_how_often_a_generator_yields_decides_the_loop(make_pkg, count, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": COUNTED.replace("COUNT", count)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "for" and "_gen" in d.condition][0]
    assert d.verdict is verdict, (
        f"_gen() yields once per i in range({count}): the consumer's trip count follows it, "
        f"so the loop must be {verdict.value}; got {d.verdict.value}: {d.why}")


OBJECTS = """
    class Req:
        def __init__(self, rid, gen=None):
            self.rid = rid
            self.gen = gen

    class S:
        def _gen(self):
            yield Req(rid=self.server_args.x, gen=time.monotonic())

        def step(self):
            for r in self._gen():
                if r.ATTR:
                    dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("attr, verdict", [("rid", Verdict.UNIFORM),
                                           ("gen", Verdict.RANK_LOCAL)])
def test_a_yielded_element_is_read_for_the_attribute_read(make_pkg, attr, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": OBJECTS.replace("ATTR", attr)}, ROOTS))
    d = [d for d in report.decisions if d.condition == f"r.{attr}"][0]
    assert d.verdict is verdict, (
        f"_gen() yields Req(rid=<configured>, gen=time.monotonic()); `if r.{attr}` reads "
        f"only .{attr} of each element: {verdict.value}; got {d.verdict.value}: {d.why}")


def test_a_yield_in_a_nested_function_does_not_make_a_generator(make_pkg):
    src = """
    class S:
        def _values(self):
            def inner():
                yield time.monotonic()
            return [self.server_args.x]

        def step(self):
            for x in self._values():
                if x > 5:
                    dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "x > 5"][0]
    assert d.verdict is Verdict.UNIFORM, (
        "_values returns [<configured>]; the clock is yielded by a function defined inside "
        "it and never called, so `if x > 5` is UNIFORM; got "
        f"{d.verdict.value}: {d.why}")


NEIGHBOURS = {
    "a yield inside an except handler": """
    class S:
        def _gen(self):
            try:
                self.load()
            except ValueError:
                yield time.monotonic()

        def load(self):
            return self.server_args.x

        def step(self):
            for x in self._gen():
                if x > 5:
                    dist.barrier(group=self.tp_cpu_group)
""",
    "a yield from a clock-sized list, counted": """
    class S:
        def _local(self):
            return list(range(int(time.monotonic())))

        def _gen(self):
            yield from self._local()

        def step(self):
            for x in self._gen():
                dist.barrier(group=self.tp_cpu_group)
""",
}


@pytest.mark.parametrize("shape", sorted(NEIGHBOURS),
                         ids=["yield_from_counted", "yield_in_except"])
def test_neighbouring_generator_shapes_still_reach_the_clock(make_pkg, shape):
    report = audit("pkg.s:S", root=make_pkg({"s.py": NEIGHBOURS[shape]}, ROOTS))
    found = [d for d in report.decisions if d.verdict is Verdict.RANK_LOCAL
             and "monotonic" in d.why]
    assert found, (
        f"{shape}: the loop over _gen() runs as often as, or reads what, a clock decides, so "
        f"a decision must be RANK-LOCAL naming time.monotonic; got "
        f"{[(d.condition, d.verdict.value, d.why) for d in report.decisions]}")
