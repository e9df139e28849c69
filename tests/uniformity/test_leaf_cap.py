"""An input set over the leaf cap (96 sources per value) keeps first the sources that can fail
the decision on a path where the group has more than one rank (docs/uniformity.md "Verdicts":
TRIVIAL only when every rank-local input reaches the decision where its group has one rank).
Measured on SGLang: ranking by category alone dropped unresolved inputs behind a hundred
single-rank rank-local ones and reported 74 UNKNOWN decisions TRIVIAL."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deskcheck.uniformity import Verdict, audit
from deskcheck.uniformity.leaves import Leaf, cap_leaves

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'


def _source(pools: int) -> str:
    summed = " + ".join(f"self.p{i}.available_size()" for i in range(pools))
    return f"""
    class S:
        def step(self):
            v = self.unresolved.poll_state()
            if self.tp_size == 1:
                v = v + {summed}
            if v:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_an_input_on_a_many_rank_path_survives_the_cap(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": _source(120)}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v"]
    assert found and found[0].verdict is Verdict.UNKNOWN and "unresolved" in found[0].why, (
        "v reaches the barrier from self.unresolved.poll_state() on every path (an unresolved "
        "receiver: UNKNOWN) and from 120 pool sizes only where tp_size == 1: over the cap the "
        "unresolved input must be kept, so the decision is UNKNOWN, not TRIVIAL; got "
        f"{found[0].verdict if found else None} ({found[0].why if found else report.decisions})")


def test_under_the_cap_the_same_shape_is_unknown_too(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": _source(3)}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v"]
    assert found and found[0].verdict is Verdict.UNKNOWN, (
        "with three pools (under the cap) the decision is UNKNOWN; the cap must not change "
        f"it; got {found}")


TWO_PATHS = """
    class S:
        def _direct(self):
            if self.tp_size == 1:
                return time.monotonic()
            return 0

        def _deep(self):
            return self._deeper()

        def _deeper(self):
            return self._deepest()

        def _deepest(self):
            return time.monotonic()

        def step(self):
            v = self._direct() + self._deep()
            if v > 0:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_one_source_on_a_single_rank_and_a_many_rank_path_keeps_both(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": TWO_PATHS}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v > 0"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "time.monotonic reaches v where tp_size == 1 (a short path) and through _deep on "
        "every path (a longer one): the source is one, its paths two, and the unmarked one "
        "makes the decision RANK-LOCAL, not TRIVIAL; got "
        f"{found[0].verdict if found else None} ({found[0].why if found else report.decisions})")


# -- which sources the cap keeps: exactly the first 96 of the documented order ---------------

_CATEGORIES = ["rank_local", "rank_id", "unknown", "agreed", "sanctioned", "config", "cycle"]
_ORDER = {"rank_local": 0, "rank_id": 1, "unknown": 2, "agreed": 3, "sanctioned": 4,
          "config": 5}


def _documented_order(leaf: Leaf) -> tuple:
    """docs: can-fail sources on paths with no single-rank mark first, then those on marked
    paths, then the rest; by category, fewest marks, name, dimension, marks, shortest path."""
    can_fail = leaf.category in ("rank_local", "rank_id", "unknown")
    return ((1 if leaf.single else 0) if can_fail else 2, _ORDER.get(leaf.category, 9),
            len(leaf.single), leaf.name, leaf.dim, sorted(leaf.single), len(leaf.witness))


_leaves = st.lists(st.builds(
    Leaf, name=st.sampled_from([f"src{i:02d}" for i in range(40)]),
    category=st.sampled_from(_CATEGORIES), reason=st.just("r"),
    dim=st.sampled_from(["", "tp", "pp"]),
    witness=st.lists(st.just("hop"), max_size=3).map(tuple),
    single=st.frozensets(st.sampled_from(["tp", "pp"]), max_size=2)), min_size=90,
    max_size=260)


@settings(max_examples=60, deadline=None)
@given(_leaves)
def test_over_the_cap_the_first_96_sources_of_the_documented_order_are_kept(leaves):
    refs = [x for x in leaves if x.category == "cycle"]
    rest = [x for x in leaves if x.category != "cycle"]
    kept = cap_leaves(leaves)
    expected = tuple(leaves) if len(rest) <= 96 else tuple(
        sorted(rest, key=_documented_order)[:96] + refs)
    differ = [i for i, (a, b) in enumerate(zip(kept, expected, strict=False)) if a != b]
    assert kept == expected, (
        f"over the cap ({len(rest)} sources) the kept sources must be the first 96 of the "
        f"documented order, then every cycle reference; {len(kept)} kept, first difference "
        f"at {differ[:1]}")


def test_within_one_category_the_cap_keeps_names_in_order_not_as_found():
    leaves = [Leaf(f"src{i:02d}", "rank_local", "r") for i in range(99, -1, -1)]
    kept = [x.name for x in cap_leaves(leaves)]
    assert kept == [f"src{i:02d}" for i in range(96)], (
        f"100 rank-local sources named src99..src00 as found: the cap keeps src00..src95 "
        f"(by name), not the first 96 found; kept {kept[:3]}...{kept[-3:]}")


def test_a_cycle_of_fields_over_the_cap_keeps_96_sources(make_pkg):
    """Two fields written from each other (a cycle the walk solves as a fixpoint) and from
    120 per-rank pool sizes: the cycle's members are capped like any value."""
    summed = " + ".join(f"self.p{i:03d}.available_size()" for i in range(120))
    src = f"""
    class S:
        def step(self):
            self.a = self.b + {summed}
            self.b = self.a
            if self.b:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition == "self.b"][0]
    names = [i.name for i in d.inputs]
    assert len(names) == 96 and names == sorted(names), (
        f"`self.b` reads a cycle (self.a <-> self.b) holding 120 pool sizes: its sources "
        f"must be capped at 96, the first by name; got {len(names)}: {names[:2]}...")


def test_of_one_source_only_the_paths_with_the_fewest_marks_are_kept():
    """docs/uniformity.md: of one source, the paths with the fewest single-rank marks count."""
    from deskcheck.uniformity.leaves import dedupe_leaves

    tp, tp_pp = frozenset({"tp"}), frozenset({"tp", "pp"})
    kept = dedupe_leaves([Leaf("poll", "rank_local", "IPC poll", "", ("a",), tp_pp),
                          Leaf("poll", "rank_local", "IPC poll", "", ("b",), tp),
                          Leaf("clock", "rank_local", "clock", "", ("c",), tp_pp),
                          Leaf("poll", "rank_local", "IPC poll", "", ("d",), frozenset({"pp"}))])
    found = {(leaf.name, leaf.single) for leaf in kept}
    assert found == {("poll", tp), ("poll", frozenset({"pp"})), ("clock", tp_pp)}, (
        "the poll reached with marks {tp, pp} must be dropped (its {tp} and {pp} paths have "
        "fewer marks), the {tp} and {pp} paths kept (neither holds the other), and the clock "
        f"kept with the only marks it has; got {sorted(found, key=str)}")


def test_a_source_also_reached_unmarked_is_not_listed_trivial(make_pkg):
    source = """
    class S:
        def step(self):
            v = self.pool.available_size()
            if self.tp_size == 1:
                v = v + self.pool.available_size()
            if v:
                dist.barrier(group=self.tp_cpu_group)
"""
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    found = [d for d in report.decisions if d.condition == "v"]
    classes = {i.klass.value for i in found[0].inputs if i.name.endswith("available_size")} \
        if found else set()
    assert found and found[0].verdict is Verdict.RANK_LOCAL and classes == {"RANK-LOCAL"}, (
        "v reads the pool's size on a path with no single-rank mark and again where "
        "tp_size == 1: the source must be listed once, RANK-LOCAL, without a TRIVIAL entry "
        f"for its marked path; got {found[0].verdict if found else None} with classes "
        f"{sorted(classes)}")
