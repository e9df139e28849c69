"""A witness through a solved cycle, read by an edge that itself passed another solved cycle:
every hop of the expanded witness is text (``file:line hop``), never an unexpanded
reference (found on SGLang once single-rank marks reached cycle edges: the JSON report
could not be written)."""

from __future__ import annotations

from deskcheck.uniformity.cycles import CycleWitness, _Solution, expand_witness
from deskcheck.uniformity.leaves import Leaf


def _inner_reference() -> CycleWitness:
    """A solved two-member cycle; the source reaches its second member by inheritance."""
    source = Leaf("clock", "rank_local", "clock", witness=("a.py:1 time.time",))
    ref = Leaf("\x00cycle:1", "cycle", "", witness=("a.py:2 a2 reads a1",))
    inner = _Solution(["a1", "a2"], {"a1": (source,), "a2": (ref,)}, {"\x00cycle:1": "a1"})
    (inherited,) = inner.leaves("a2")
    (hop,) = inherited.witness
    assert isinstance(hop, CycleWitness), "the inner cycle gave no inherited witness to test"
    return hop


def test_an_edge_whose_hops_pass_another_cycle_expands_to_text():
    through_inner = _inner_reference()
    source = Leaf("pool", "rank_local", "pool size", witness=("b.py:1 pool.available_size",))
    marked_edge = Leaf("\x00cycle:7", "cycle", "", witness=("b.py:3 b2 reads b1", through_inner),
                       single=frozenset({"pp"}))
    outer = _Solution(["b1", "b2"], {"b1": (source,), "b2": (marked_edge,)},
                      {"\x00cycle:7": "b1"})
    (leaf,) = [x for x in outer.leaves("b2") if x.name == "pool"]
    hops = expand_witness(leaf.witness)
    odd = [h for h in hops if not isinstance(h, str)]
    assert not odd, (f"the witness of a source read across a marked cycle edge kept "
                     f"unexpanded references {odd!r}: a report holding it cannot be "
                     f"printed or written as JSON")
    assert hops[0] == "b.py:3 b2 reads b1" and "a.py:1 time.time" in hops, (
        f"the edge's own hops, and the inner cycle's path, should lead the witness: {hops}")
