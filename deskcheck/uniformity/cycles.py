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

import heapq

from deskcheck.uniformity.leaves import (
    _MAX_LEAVES,
    _REFERENCES,
    Leaf,
    bucket,
    ranked_within_cap,
)

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
        self._witness: dict[tuple, tuple] = {}
        self._owner_index: dict[tuple[int, int, frozenset], list[tuple]] | None = None
        self._found_of: dict[int, tuple[list, list, dict | None]] = {}
        self._ref_flags = bytearray()
        self._condense(members, readers)
        self._propagate(readers)

    def _intern(self, leaf: Leaf) -> int:
        key = (leaf.name, leaf.category, leaf.dim)
        sig = self.sigs.get(key)
        if sig is None:
            sig = self.sigs[key] = len(self.sig_leaf)
            self.sig_leaf.append(leaf)
        return sig

    def _condense(self, members: list[tuple],
                  readers: dict[tuple, list[tuple[tuple, frozenset, tuple]]]) -> None:
        """Members that read each other on paths with no single-rank mark hold the same
        sources: each such group (a strongly connected component of the unmarked edges,
        found iteratively as in Tarjan's algorithm) is solved as one node, and every member
        of it shares that node's state."""
        reads: dict[tuple, list[tuple[tuple, tuple]]] = {}  # member -> (member it reads, hops)
        for target, edges in readers.items():
            for reader, single, hops in edges:
                if not single:
                    reads.setdefault(reader, []).append((target, hops))
        self.read_by: dict[tuple, list[tuple[tuple, tuple]]] = {}
        for reader, found in reads.items():
            for target, hops in found:
                self.read_by.setdefault(target, []).append((reader, hops))
        # (group, goals) -> (member -> the next member toward a goal and the hops there,
        # the goals, the walk's frontier and the members it has seen): walked as far as asked
        self._toward: dict[tuple, _Walk] = {}
        self._paths: dict[tuple, dict[int, tuple[list, int]]] = {}  # key -> member -> path
        self._goal_ids: dict[int, int] = {}  # id() of an owners list -> its number
        self._numbering: dict[int, tuple[dict[tuple, int], list]] = {}  # see _numbered
        self._interned: dict[tuple, int] = {}  # the members of an owners list -> its number
        comp: dict[tuple, int] = {}
        # group -> its place in the order groups closed: a group closes after every group
        # it reads, so in this order what a group reads is solved before it
        self.rank: dict[int, int] = {}
        index: dict[tuple, int] = {}
        low: dict[tuple, int] = {}
        stack: list[tuple] = []
        on: set[tuple] = set()
        counter = 0
        for start in members:
            if start in index:
                continue
            todo = [(start, 0)]
            while todo:
                node, i = todo.pop()
                if i == 0:
                    index[node] = low[node] = counter = counter + 1
                    stack.append(node)
                    on.add(node)
                nexts = reads.get(node, ())
                while i < len(nexts):
                    nxt = nexts[i][0]
                    i += 1
                    if nxt not in index:
                        todo += [(node, i), (nxt, 0)]
                        break
                    if nxt in on:
                        low[node] = min(low[node], index[nxt])
                else:
                    if low[node] == index[node]:
                        while True:
                            m = stack.pop()
                            on.discard(m)
                            comp[m] = index[node]
                            if m == node:
                                break
                        self.rank[index[node]] = len(self.rank)
                    if todo:
                        parent = todo[-1][0]
                        low[parent] = min(low[parent], low[node])
        self.comp = comp
        self.members_of: dict[int, list[tuple]] = {}
        states: dict[int, dict[frozenset, int]] = {}
        for m in members:
            c = comp[m]
            self.members_of.setdefault(c, []).append(m)
            into = states.setdefault(c, {})
            for dims, bits in self.state[m].items():
                into[dims] = into.get(dims, 0) | bits
        for m in members:
            self.state[m] = states[comp[m]]
        self.comp_state = states

    def _propagate(self, readers: dict[tuple, list[tuple[tuple, frozenset, tuple]]]) -> None:
        """The least fixpoint over the condensed groups: a group's sources flow to every
        group that reads one of its members, with the reading path's single-rank dimensions
        added, until nothing grows; only what a group gained since it was last pushed is
        pushed again. Each growth is recorded in order (what arrived, from which member, by
        which edge): the witnesses follow it back."""
        comp, states = self.comp, self.comp_state
        edges: dict[int, list[tuple[int, tuple, tuple, frozenset, tuple]]] = {}
        for target, found in readers.items():
            for reader, single, hops in found:
                if single or comp[reader] != comp[target]:
                    edges.setdefault(comp[target], []).append(
                        (comp[reader], reader, target, single, hops))
        arrived = self.arrived  # (group, dims) -> [(bits, reader, target, dims, hops)]
        delta = {c: dict(state) for c, state in states.items()}
        rank = self.rank
        # the group closed first goes first: a group's sources are pushed once they are
        # whole, except along the marked edges that close a loop between groups
        work = [(rank[c], c) for c in states]
        heapq.heapify(work)
        queued = set(states)
        while work:
            source_comp = heapq.heappop(work)[1]
            queued.discard(source_comp)
            source = delta.pop(source_comp, None)
            if not source:
                continue
            pushed = list(source.items())  # `source` left delta: nothing below changes it
            for into_comp, reader, target, single, hops in edges.get(source_comp, ()):
                into = states[into_comp]
                grew = False
                for dims, bits in pushed:
                    to = dims | single if single else dims
                    old = into.get(to, 0)
                    new = bits & ~old
                    if new and to:  # what the group holds on a path with fewer marks
                        for fewer, known in into.items():  # decides alone (see _found)
                            if fewer < to:
                                new &= ~known
                    if new:
                        into[to] = old | new
                        pending = delta.setdefault(into_comp, {})
                        pending[to] = pending.get(to, 0) | new
                        arrived.setdefault((into_comp, to), []).append(
                            (new, reader, target, dims, hops))
                        grew = True
                if grew and into_comp not in queued:
                    queued.add(into_comp)
                    heapq.heappush(work, (rank[into_comp], into_comp))

    def leaves(self, member: tuple) -> tuple[Leaf, ...]:
        """The member's sources: its own leaves as walked, the inherited ones with a witness
        expanded on demand."""
        own = self.own[member]
        found, refs, buckets = self._found(member)

        def build(entries: list[tuple[int, frozenset]]) -> list[Leaf]:
            out: list[Leaf] = []
            for sig, dims in entries:
                leaf = own.get((sig, dims))
                if leaf is None:
                    first = self.sig_leaf[sig]
                    leaf = Leaf(first.name, first.category, first.reason, first.dim,
                                (CycleWitness(self, member, sig, dims),), dims)
                out.append(leaf)
            return out

        if buckets is None:
            return tuple(build(found))  # under the cap: every source, as found
        return tuple(ranked_within_cap(buckets, build) + build(refs))

    def _found(self, member: tuple) -> tuple[list, list, dict | None]:
        """The (signature, dims) pairs in ``member``'s state, those that are references, and
        over the cap the rest grouped by :func:`bucket` (only the groups the cap keeps are
        built: = cap_leaves over every source). Members of one condensed group share one
        state: found once per group."""
        comp = self.comp[member]
        cached = self._found_of.get(comp)
        if cached is not None:
            return cached
        found: list[tuple[int, frozenset]] = []
        refs: list[tuple[int, frozenset]] = []
        is_ref = self._is_ref()
        state = self.state[member]
        for dims, bits in state.items():
            if dims:  # a source that also arrives with fewer marks: that path decides
                for fewer, known in state.items():
                    if fewer < dims:
                        bits &= ~known
            digits = bin(bits)[:1:-1]  # bit i at index i: one pass, not a shift per bit
            sig = digits.find("1")
            while sig >= 0:
                found.append((sig, dims))
                if is_ref[sig]:
                    refs.append((sig, dims))
                sig = digits.find("1", sig + 1)
        buckets: dict[tuple[int, int], list] | None = None
        if len(found) - len(refs) > _MAX_LEAVES:
            buckets = {}
            sig_leaf = self.sig_leaf
            of_dims: dict[frozenset, dict[str, tuple[int, int]]] = {}  # dims -> category -> bucket
            for sig, dims in found:
                if not is_ref[sig]:
                    category = sig_leaf[sig].category
                    known = of_dims.setdefault(dims, {})
                    place = known.get(category)
                    if place is None:
                        place = known[category] = bucket(category, dims)
                    buckets.setdefault(place, []).append((sig, dims))
        cached = self._found_of[comp] = (found, refs, buckets)
        return cached

    def _is_ref(self) -> bytearray:
        """Per signature, whether it is a reference (kept past the cap, never bucketed)."""
        if len(self._ref_flags) != len(self.sig_leaf):
            self._ref_flags = bytearray(leaf.category in _REFERENCES for leaf in self.sig_leaf)
        return self._ref_flags

    def witness(self, member: tuple, sig: int, single: frozenset) -> tuple[str, ...]:
        """How the source reached ``member``: inside its group, the shortest path of reads
        to a member that reads the source itself or where it first entered the group; from
        an entry, the edge it came by, back to the group it came from (each entry came
        after the one it copies, so the chain ends). Hops joined, at most 24."""
        bit = 1 << sig
        chain: list[tuple[tuple, list]] = []  # ((member, dims), hops to the next node)
        node = (member, single)
        while True:
            cached = self._witness.get((node, sig))
            if cached is not None:
                tail = list(cached)
                break
            at, dims = node
            group = self.comp[at]
            entry = next((a for a in self.arrived.get((group, dims), ()) if a[0] & bit), None)
            goal = self._owners().get((group, sig, dims), [])  # in member order
            goals_id = self._goals_id(goal) if goal else None
            if entry is not None and not goal:
                goal = [entry[1]]
            path, found = self._inside(at, goal, goals_id)
            if (found, dims) != node:
                chain.append((node, path))
                node = (found, dims)
                continue
            own = self.own[found].get((sig, dims))
            if own is not None:
                tail = expand_witness(own.witness)
                break
            assert entry is not None, "a source in a group's state is owned or arrived"
            _new, _reader, target, from_dims, hops = entry
            chain.append((node, list(hops)))
            node = (target, from_dims)
        for at, via in reversed(chain):  # an edge's hops may pass another solved cycle
            tail = [*expand_witness(tuple(via)), *tail][:24]
            self._witness[(at, sig)] = tuple(tail)
        return tuple(tail)

    def _owners(self) -> dict[tuple[int, int, frozenset], list[tuple]]:
        """(group, signature, dims) -> the members that read that source themselves."""
        if self._owner_index is None:
            index: dict[tuple[int, int, frozenset], list[tuple]] = {}
            for m, own in self.own.items():
                for sig, dims in own:
                    index.setdefault((self.comp[m], sig, dims), []).append(m)
            self._owner_index = index
        return self._owner_index

    def _goals_id(self, goals: list[tuple]) -> int:
        """A small number naming an owners list of the index (hashing its members' keys on
        every witness cost ~0.5 s on SGLang): one per distinct list of members."""
        found = self._goal_ids.get(id(goals))
        if found is None:
            found = self._goal_ids[id(goals)] = self._interned.setdefault(
                tuple(goals), len(self._interned))
        return found

    def _inside(self, start: tuple, goals: list[tuple], goals_id: int | None = None
                ) -> tuple[list, tuple]:
        """The hops from ``start`` to the nearest member of ``goals`` over reads inside
        ``start``'s group, and that member. One breadth-first walk back from each goal (a
        few dozen goals serve every witness), taken only as far as a start asked for needs,
        then each path is a walk along it. The walk
        starts from the goals in their order (the members' order), never a set's: a key
        holds ``id()`` values, so a set's order, and with it which of two equally short
        paths is the witness, would change from run to run."""
        group = self.comp[start]
        key = (group, goals_id if goals_id is not None else tuple(goals))
        number, readers, hops_of = self._numbered(group)
        walk = self._toward.get(key)
        if walk is None:
            walk = self._toward[key] = _Walk(len(number), [number[g] for g in goals])
        at = number[start]
        if walk.is_goal[at]:
            return [], start
        before = walk.before
        if before[at] < 0:  # the walk goes on from where the last one stopped
            seen, frontier, head = walk.seen, walk.frontier, walk.head
            while before[at] < 0:
                node = frontier[head]
                head += 1
                for reader in readers[node]:
                    if not seen[reader]:
                        seen[reader] = 1
                        before[reader] = node
                        frontier.append(reader)
            walk.head = head
        paths = self._paths.setdefault(key, {})
        chain: list[int] = []  # members walked whose path is not known yet
        is_goal = walk.is_goal
        while not is_goal[at] and at not in paths:
            chain.append(at)
            at = before[at]  # every member of a group reads every other
        tail, end = paths.get(at, ([], at))
        for node in reversed(chain):  # each path: its first hops, then its successor's
            nxt = before[node]  # one edge from a member to a reader: its hops
            tail = (list(hops_of[nxt][readers[nxt].index(node)]) + tail)[:24]
            paths[node] = (tail, end)
        return list(tail), self.members_of[group][end]

    def _numbered(self, group: int) -> tuple[dict[tuple, int], list[list[int]], list[list]]:
        """The group's members numbered in member order, and per member the members of the
        group that read it (``read_by`` in its order) and, in a list beside it, the hops of
        each read (the walk takes the first read from a member to a reader, and a path those
        hops): the witness walks run on small integers, not on member keys hashed at every
        edge."""
        found = self._numbering.get(group)
        if found is None:
            members = self.members_of[group]
            number = {m: i for i, m in enumerate(members)}
            readers: list[list[int]] = []
            hops_of: list[list] = []
            for m in members:
                edges = [(number[r], hops) for r, hops in self.read_by.get(m, ()) if r in number]
                readers.append([r for r, _hops in edges])
                hops_of.append([hops for _r, hops in edges])
            found = self._numbering[group] = (number, readers, hops_of)
        return found


class _Walk:
    """A breadth-first walk back from a list of goal members over a group's reads, kept as
    far as it went: per member, the next member toward a goal."""

    __slots__ = ("before", "is_goal", "seen", "frontier", "head")

    def __init__(self, size: int, goals: list[int]) -> None:
        self.before = [-1] * size  # the next member toward a goal; -1: not reached yet
        self.is_goal = bytearray(size)
        self.seen = bytearray(size)
        for g in goals:
            self.is_goal[g] = self.seen[g] = 1
        self.frontier = list(goals)  # in the goals' order: the witness never depends on a set
        self.head = 0


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
