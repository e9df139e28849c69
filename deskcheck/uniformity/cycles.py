"""Cycles of values (fields written under conditions that read each other): solved as a least
fixpoint over the edges the walk recorded, member by member. A mixin of
:class:`~deskcheck.uniformity.trace.Tracer` (which calls ``_cycle_ref`` when the walk reads a
key still open on its stack, and ``_solve`` when a strongly connected component closes).

The first walk of a cycle's members leaves, where one member reads another, a *reference*
leaf (category ``cycle``) carrying the hops between them and the single-rank dimensions of
that path. The references are the cycle's edges: each member's sources are its own leaves
plus, for each reference, the target's sources with the reference's single-rank dimensions
added — a monotone system solved on interned source signatures held as bitsets (one integer
per single-rank set), so a cycle of thousands of values costs a few integer ORs per edge.
Each member's leaves are built only when something reads it, and a witness through the cycle
is found only when a report shows it (shortest path over the edges)."""

from __future__ import annotations

from collections import deque

from deskcheck.uniformity.leaves import Leaf, cap_leaves

_CYCLE = "cycle"  # the category of a reference leaf (never reaches a decision)


class CycleWitness:
    """The tail of a witness through a cycle: expanded into ``file:line hop`` strings when a
    report shows it (see :func:`expand_witness`)."""

    __slots__ = ("_solution", "_member", "_sig", "_single")

    def __init__(self, solution: _Solution, member: tuple, sig: int, single: frozenset) -> None:
        self._solution, self._member, self._sig, self._single = solution, member, sig, single

    def expand(self) -> tuple[str, ...]:
        return self._solution.witness(self._member, self._sig, self._single)


def expand_witness(witness: tuple) -> list[str]:
    out: list[str] = []
    for hop in witness:
        if isinstance(hop, CycleWitness):
            out += hop.expand()
        else:
            out.append(hop)
    return out[:24]


class _Solution:
    """A solved cycle: per member, its sources as ``{single-rank dims: bitset of signatures}``."""

    def __init__(self, members: list[tuple], partial: dict[tuple, tuple[Leaf, ...]],
                 ref_key: dict[str, tuple]) -> None:
        self.sigs: dict[tuple, int] = {}
        self.sig_leaf: list[Leaf] = []
        self.own: dict[tuple, dict[tuple[int, frozenset], Leaf]] = {}
        self.state: dict[tuple, dict[frozenset, int]] = {}
        self.arrived: dict[tuple, list[tuple]] = {}  # (member, dims) -> growths, in order
        readers: dict[tuple, list[tuple[tuple, frozenset, tuple]]] = {}
        for m in members:
            own: dict[tuple[int, frozenset], Leaf] = {}
            bits: dict[frozenset, int] = {}
            for leaf in partial[m]:
                if leaf.category == _CYCLE:
                    target = ref_key[leaf.name]
                    readers.setdefault(target, []).append((m, leaf.single, leaf.witness))
                    continue
                sig = self._intern(leaf)
                if (sig, leaf.single) not in own:
                    own[(sig, leaf.single)] = leaf
                    bits[leaf.single] = bits.get(leaf.single, 0) | (1 << sig)
            self.own[m], self.state[m] = own, bits
        self._propagate(members, readers)
        self._witness: dict[tuple, tuple] = {}

    def _intern(self, leaf: Leaf) -> int:
        key = (leaf.name, leaf.category, leaf.dim)
        sig = self.sigs.get(key)
        if sig is None:
            sig = self.sigs[key] = len(self.sig_leaf)
            self.sig_leaf.append(leaf)
        return sig

    def _propagate(self, members: list[tuple],
                   readers: dict[tuple, list[tuple[tuple, frozenset, tuple]]]) -> None:
        """The least fixpoint: a member's sources flow to every member that reads it, with
        the reading path's single-rank dimensions added, until nothing grows. Each growth is
        recorded (what arrived, from where, by which hops): the witnesses follow it back."""
        work, queued = deque(members), set(members)
        arrived = self.arrived
        while work:
            target = work.popleft()
            queued.discard(target)
            source = self.state[target]
            for reader, single, hops in readers.get(target, ()):
                into = self.state[reader]
                grew = False
                for dims, bits in list(source.items()):
                    to = dims | single if single else dims
                    old = into.get(to, 0)
                    new = bits & ~old
                    if new:
                        into[to] = old | new
                        arrived.setdefault((reader, to), []).append((new, target, dims, hops))
                        grew = True
                if grew and reader not in queued:
                    queued.add(reader)
                    work.append(reader)

    def leaves(self, member: tuple) -> tuple[Leaf, ...]:
        """The member's sources: its own leaves as walked, the inherited ones with a witness
        expanded on demand."""
        own = self.own[member]
        out: list[Leaf] = []
        for dims, bits in self.state[member].items():
            sig = 0
            while bits:
                if bits & 1:
                    leaf = own.get((sig, dims))
                    if leaf is None:
                        first = self.sig_leaf[sig]
                        leaf = Leaf(first.name, first.category, first.reason, first.dim,
                                    (CycleWitness(self, member, sig, dims),), dims)
                    out.append(leaf)
                bits >>= 1
                sig += 1
        return cap_leaves(out)

    def witness(self, member: tuple, sig: int, single: frozenset) -> tuple[str, ...]:
        """How the source reached ``member``: the recorded arrivals followed back to the
        member that reads the source itself (each arrival came after the one it copies, so
        the chain ends), hops joined, at most 24."""
        bit = 1 << sig
        chain: list[tuple] = []
        node = (member, single)
        while True:
            cached = self._witness.get((node, sig))
            if cached is not None:
                tail = list(cached)
                break
            own = self.own[node[0]].get((sig, node[1]))
            if own is not None:
                tail = expand_witness(own.witness)
                break
            _new, target, dims, via = next(a for a in self.arrived[node] if a[0] & bit)
            chain.append((node, via))
            node = (target, dims)
        for at, via in reversed(chain):
            tail = [*via, *tail][:24]
            self._witness[(at, sig)] = tuple(tail)
        return tuple(tail)


class CycleSolver:
    """Per-member input sets for a strongly connected component of the walk."""

    def _cycle_ref(self, key: tuple) -> Leaf:
        """A read of ``key`` while it is still open on the walk's stack: an edge of its cycle."""
        name = f"\x00cycle:{self._index[key]}"
        self._ref_key[name] = key
        return Leaf(name, _CYCLE, "")

    def _solve(self, root: tuple, members: list[tuple]) -> tuple[Leaf, ...]:
        """Close a component: members without a reference keep their walk; the others get
        the least fixpoint of the recorded edges. Each member's leaves are built when read."""
        partial = {m: self._partial.pop(m) for m in members}
        if not any(leaf.category == _CYCLE for m in members for leaf in partial[m]):
            self._memo.update(partial)
            return partial[root]
        solution = _Solution(members, partial, self._ref_key)
        for m in members:
            if m != root:
                self._pending[m] = solution
        found = self._memo[root] = solution.leaves(root)
        return found

    def _pending_leaves(self, key: tuple) -> tuple[Leaf, ...]:
        solution = self._pending.pop(key)
        found = self._memo[key] = solution.leaves(key)
        return found
