"""Single-rank marks along the paths a source takes (docs/uniformity.md "Verdicts" and "Of one
source, the paths with the fewest single-rank marks count"): a path's marks are added to the
marks the source already carries (through a cycle edge too), a single-rank test passed as an
argument proves its group in the callee, and of two paths whose marks neither contains the
other's, both count. Written for the survivors of outsider set SP34."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit
from deskcheck.uniformity.cycles import _Solution
from deskcheck.uniformity.leaves import Leaf, dedupe_leaves

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'


def _decision(make_pkg, source: str, condition: str):
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"no decision `{condition}` in {[d.condition for d in report.decisions]}"
    return found[0]


def test_two_paths_whose_marks_neither_contains_both_count(make_pkg):
    decision = _decision(make_pkg, """
    class S:
        def step(self):
            x = 0
            if self.tp_size == 1:
                x = time.monotonic()
            if self.pp_size == 1 and self.dp_size == 1:
                x = time.monotonic()
            if x > 5:
                dist.barrier(group=self.tp_group)
""", "x > 5")
    assert decision.verdict is Verdict.RANK_LOCAL, (
        "the clock reaches `x > 5` where tp has one rank and, apart, where pp and dp have one "
        "rank: the second path ({dp, pp}) has fewer marks by count but does not contain {tp}, "
        "so it must count, and the tp barrier is RANK-LOCAL through it; got "
        f"{decision.verdict.value} ({decision.why})")
    kept = dedupe_leaves([Leaf("clock", "rank_local", "clock", "", ("a",), frozenset({"tp"})),
                          Leaf("clock", "rank_local", "clock", "", ("b",),
                               frozenset({"pp", "dp"}))])
    assert {leaf.single for leaf in kept} == {frozenset({"tp"}), frozenset({"pp", "dp"})}, (
        "marks {tp} and {dp, pp} are not one inside the other: both paths must be kept, not "
        f"the one with fewer marks by count; got {[sorted(leaf.single) for leaf in kept]}")


def test_a_cycle_edge_adds_its_marks_to_the_marks_a_source_carries():
    a, b = ("A",), ("B",)
    partial = {
        a: (Leaf("time.time", "rank_local", "clock", "", ("A: time.time",), frozenset({"pp"})),
            Leaf("\x00cycle:B", "cycle", "", "", ("A reads B",))),
        b: (Leaf("\x00cycle:A", "cycle", "", "", ("B reads A where tp_size == 1",),
                 frozenset({"tp"})),),
    }
    solution = _Solution([a, b], partial, {"\x00cycle:A": a, "\x00cycle:B": b})
    found = {(leaf.name, leaf.single) for leaf in solution.leaves(b)}
    assert found == {("time.time", frozenset({"pp", "tp"}))}, (
        "B reads A only where tp has one rank, and A holds the clock only where pp has one: "
        "B must hold the clock with both marks {pp, tp} (the edge's marks added to the "
        f"source's, not put in their place); got {sorted(found, key=str)}")


def test_a_cycle_of_fields_keeps_both_marks_to_a_pp_collective(make_pkg):
    decision = _decision(make_pkg, """
    class S:
        def stamp(self):
            if self.pp_size == 1:
                self.a = time.time()
            if self.b > 3:
                self.a = self.b

        def copy(self):
            if self.tp_size == 1:
                self.b = self.a

        def step(self):
            self.stamp()
            self.copy()
            if self.b > 5:
                dist.barrier(group=self.pp_group)
""", "self.b > 5")
    assert decision.verdict is Verdict.TRIVIAL, (
        "self.a holds a clock only where pp has one rank and self.b copies it only where tp "
        "has one; through the cycle a <- b the clock keeps its pp mark, so the pp barrier is "
        f"TRIVIAL (a cycle edge's marks added, not replacing); got {decision.verdict.value} "
        f"({decision.why})")


def test_a_single_rank_test_passed_as_an_argument_proves_its_group(make_pkg):
    decision = _decision(make_pkg, """
    class S:
        def probe(self, single):
            if single:
                return time.monotonic()
            return 0

        def step(self):
            if self.probe(self.tp_size == 1) > 5:
                dist.barrier(group=self.tp_group)
""", "self.probe(self.tp_size == 1) > 5")
    assert decision.verdict is Verdict.TRIVIAL, (
        "probe returns the clock only where its parameter holds, and the caller passes "
        "`self.tp_size == 1` (not negated): the clock reaches the tp barrier only where tp has "
        f"one rank, so the decision is TRIVIAL; got {decision.verdict.value} ({decision.why})")


def test_a_source_arriving_with_fewer_marks_after_more_is_kept_with_the_fewer():
    x, a, b, c = ("X",), ("A",), ("B",), ("C",)

    def ref(name: str, hop: str, marks: frozenset = frozenset()) -> Leaf:
        return Leaf(f"\x00cycle:{name}", "cycle", "", "", (hop,), marks)

    refs = {f"\x00cycle:{m[0]}": m for m in (x, a, b, c)}
    for order in ([x, a, b, c], [x, b, a, c], [c, b, a, x], [c, a, b, x]):
        partial = {
            x: (Leaf("time.time", "rank_local", "clock", "", ("X: time.time",)),
                ref("C", "X reads C")),
            a: (ref("X", "A reads X where pp and tp have one rank", frozenset({"pp", "tp"})),),
            b: (ref("X", "B reads X where tp has one rank", frozenset({"tp"})),),
            c: (ref("A", "C reads A"), ref("B", "C reads B")),
        }
        found = {(leaf.name, leaf.single) for leaf in _Solution(order, partial, refs).leaves(c)}
        assert found == {("time.time", frozenset({"tp"}))}, (
            f"(members in the order {[m[0] for m in order]}) C reads the clock through B, where "
            "tp has one rank, and through A, where pp and tp have one: the path with fewer "
            "marks, {tp}, must be kept whichever arrives first (a pp collective it gates is "
            f"not TRIVIAL); got {sorted(found, key=str)}")
