"""The cycle solver condenses members that read each other on unmarked paths into one
group (they hold the same sources), and still names, for every member, a witness that is a
real path of reads: the hops in order, ending at the member that reads the source itself."""

from __future__ import annotations

from deskcheck.uniformity.cycles import _Solution, expand_witness
from deskcheck.uniformity.leaves import Leaf

A, B, C, D = ("A",), ("B",), ("C",), ("D",)
TP = frozenset({"tp"})


def _ref(name: str, hops: tuple[str, ...], single: frozenset = frozenset()) -> Leaf:
    return Leaf(name, "cycle", "", "", hops, single)


def _solve() -> _Solution:
    """A, B and C read each other in a ring (one group); C reads D only where tp_size == 1;
    D reads A. A reads the clock itself; D reads a poll itself."""
    refs = {"\x00cycle:A": A, "\x00cycle:B": B, "\x00cycle:C": C, "\x00cycle:D": D}
    partial = {
        A: (_ref("\x00cycle:B", ("A reads B",)),
            Leaf("time.monotonic", "rank_local", "clock", "", ("A: time.monotonic",))),
        B: (_ref("\x00cycle:C", ("B reads C",)),),
        C: (_ref("\x00cycle:A", ("C reads A",)),
            _ref("\x00cycle:D", ("C reads D where tp_size == 1",), TP)),
        D: (Leaf("p.poll", "rank_local", "IPC poll", "", ("D: p.poll",)),
            _ref("\x00cycle:A", ("D reads A",))),
    }
    return _Solution([A, B, C, D], partial, refs)


def _sources(solution: _Solution, member: tuple) -> dict[tuple[str, frozenset], list[str]]:
    return {(leaf.name, leaf.single): expand_witness(leaf.witness)
            for leaf in solution.leaves(member)}


def test_every_member_of_a_ring_holds_every_source_with_its_fewest_marks():
    solution = _solve()
    for member in (A, B, C):
        found = set(_sources(solution, member))
        assert found == {("time.monotonic", frozenset()), ("p.poll", TP)}, (
            f"{member[0]} is in the ring A-B-C: it must hold the clock unmarked (its marked "
            f"path back through D has more marks, so it decides nothing) and the poll only "
            f"with the tp single-rank mark of C's read of D, got {sorted(found)}")
    found = set(_sources(solution, D))
    assert found == {("p.poll", frozenset()), ("time.monotonic", frozenset())}, (
        f"D reads the poll itself and the clock through A, both unmarked (the paths back "
        f"through C's read of D, marked tp, are dropped), got {sorted(found)}")


def test_a_witness_through_a_group_is_the_path_of_reads_in_order():
    solution = _solve()
    assert _sources(solution, B)[("p.poll", TP)] == [
        "B reads C", "C reads D where tp_size == 1", "D: p.poll"], (
        f"B's poll must be witnessed by the reads B -> C -> D and D's own read, got "
        f"{_sources(solution, B)[('p.poll', TP)]}")
    assert _sources(solution, C)[("time.monotonic", frozenset())] == [
        "C reads A", "A: time.monotonic"], (
        f"C's clock must be witnessed by C's read of A, got "
        f"{_sources(solution, C)[('time.monotonic', frozenset())]}")
    assert _sources(solution, D)[("time.monotonic", frozenset())] == [
        "D reads A", "A: time.monotonic"], (
        f"D's clock must come through D's read of A, got "
        f"{_sources(solution, D)[('time.monotonic', frozenset())]}")


def test_a_witness_through_two_reads_inside_a_group_keeps_them_in_reading_order():
    """B reaches A's clock by reading C, which reads A: the witness is B's read, then C's,
    then A's own read (the walk from B is kept, member by member, in the order it is read;
    a path cached for C is extended at its front for B, never at its end)."""
    solution = _solve()
    assert _sources(solution, C)[("time.monotonic", frozenset())] == [
        "C reads A", "A: time.monotonic"]
    found = _sources(solution, B)[("time.monotonic", frozenset())]
    assert found == ["B reads C", "C reads A", "A: time.monotonic"], (
        "B's clock must be witnessed by B's read of C, then C's read of A, then A's own "
        f"read, in that order; got {found}")
