"""Cycles of values (fields written under conditions that read each other): solved as a least
fixpoint, member by member. A mixin of :class:`~deskcheck.uniformity.trace.Tracer` (which
supplies ``trace``, ``_prefixed``, and the walk's state: ``_memo``, ``_partial``, ``_entry``,
``_fixing``, ``_where``)."""

from __future__ import annotations

import os
import sys
from collections import deque

from deskcheck.uniformity.leaves import Leaf, dedupe_leaves

_FIXPOINT_MEMBERS = 1000  # a larger cycle gets the union at once (re-walks would cost minutes)
_DEBUG = bool(os.environ.get("DESKCHECK_FIXPOINT_DEBUG"))


class CycleSolver:
    """Per-member input sets for a strongly connected component of the walk."""

    def _fixpoint(self, root: tuple, members: list[tuple]) -> tuple[Leaf, ...]:
        """The sources of every member of a cycle of values (fields written under conditions
        that read each other), each by its own paths: the least fixpoint of the hops, members
        re-walked from their first-pass sources until none grows. A single-rank path (or any
        other per-path fact) from one member is thus never lent to another. Over a budget of
        re-walks, the sound fallback: every member gets the cycle's union, single-rank paths
        dropped."""
        current = {m: self._partial.pop(m) for m in members}
        if len(members) > _FIXPOINT_MEMBERS:
            return self._cycle_union(root, members, current)
        self._memo.update(current)
        readers: dict[tuple, set[tuple]] = {}
        walking: list[tuple] = [root]
        self._fixing.append((set(members), readers, walking))
        walks = 0
        if _DEBUG and len(members) > 20:
            print(f"fixpoint start: {len(members)} members", file=sys.stderr, flush=True)
        work, queued = deque(members), set(members)  # deepest first: post-order
        budget = 4 * len(members) + 64
        try:
            while work and budget > 0:
                budget -= 1
                member = work.popleft()
                queued.discard(member)
                expr, ctx, mode, depth = self._entry[member]
                del self._memo[member]
                walking[0] = member
                walks += 1
                found = self.trace(expr, ctx, mode, depth)
                grew = _signature(found) != _signature(current[member])
                current[member] = found
                if grew:
                    for reader in readers.get(member, ()):
                        if reader not in queued:
                            queued.add(reader)
                            work.append(reader)
        finally:
            self._fixing.pop()
        if _DEBUG and len(members) > 20:
            print(f"fixpoint: {len(members)} members, {walks} walks, converged={not work}",
                  file=sys.stderr)
        if work:  # not converged within the budget
            return self._cycle_union(root, members, current)
        for member in members:
            self._entry.pop(member, None)
        return self._memo[root]

    def _cycle_union(self, root: tuple, members: list[tuple],
                     current: dict[tuple, tuple[Leaf, ...]]) -> tuple[Leaf, ...]:
        """The sound fallback for a cycle not solved member by member: the root keeps its own
        walk (complete: it reached every member); every other member gets the root's sources,
        single-rank paths dropped (the root's single-rank path is not another member's)."""
        union = dedupe_leaves([leaf._replace(single=frozenset()) for leaf in current[root]])
        for member in members:
            self._entry.pop(member, None)
            self._memo[member] = current[root] if member == root else tuple(self._prefixed(
                f"{self._where[root]} (same cycle of values)", union))
        return current[root]


def _signature(leaves: tuple[Leaf, ...]) -> frozenset[tuple]:
    return frozenset((leaf.name, leaf.category, leaf.dim, leaf.single) for leaf in leaves)
