"""Hypothesis strategies for per-rank inputs of a tensor-parallel scheduler decision.

The replicated part (the rid set) is drawn once; the rank-local parts are drawn per rank:
queue order (a permutation), which rids a rank holds, prefix-match lengths from its own
radix cache, its free request slots, whether it can price at all. Every draw shrinks toward
the replicated case (identity order, every rid present, equal numbers, all priced) and
toward fewer rids and smaller worlds, so a counterexample comes out minimal, rank by rank.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class RankInputs(Sequence[Any]):
    """One input per rank, printed rank by rank (also in hypothesis' falsifying example)."""

    ranks: tuple[Any, ...]

    def __len__(self) -> int:
        return len(self.ranks)

    def __getitem__(self, index: Any) -> Any:
        return self.ranks[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.ranks)

    def __repr__(self) -> str:
        body = "".join(f"\n  rank {r}: {value!r}," for r, value in enumerate(self.ranks))
        return f"RankInputs({body}\n)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        with printer.group(2, "RankInputs(", ""):
            for rank, value in enumerate(self.ranks):
                printer.break_()
                printer.text(f"rank {rank}: {value!r},")
        printer.break_()
        printer.text(")")


@dataclass(frozen=True)
class RankQueue:
    """What one TP rank sees when it forms a prefill batch.

    ``queue`` is this rank's waiting-queue order over the rids it holds; ``prefix`` maps each
    held rid to the prefix length this rank's own radix cache matched; ``free_slots`` is how
    many requests it can seat (None: the rank cannot price, e.g. no budget yet).
    """

    queue: tuple[str, ...]
    prefix: tuple[tuple[str, int], ...]
    free_slots: int | None

    @property
    def prefix_matches(self) -> dict[str, int]:
        return dict(self.prefix)

    @property
    def priced(self) -> bool:
        return self.free_slots is not None

    def __repr__(self) -> str:
        matches = ", ".join(f"{rid}:{n}" for rid, n in self.prefix)
        free = "unpriced" if self.free_slots is None else f"free={self.free_slots}"
        return f"queue=[{', '.join(self.queue)}] prefix={{{matches}}} {free}"


def world_sizes(min_world: int = 2, max_world: int = 3) -> st.SearchStrategy[int]:
    """World sizes, shrinking toward ``min_world``."""
    return st.integers(min_world, max_world)


def rid_sets(min_size: int = 1, max_size: int = 6) -> st.SearchStrategy[tuple[str, ...]]:
    """The replicated rid set, sorted; names shrink toward r0, r1, ..."""
    return st.lists(st.integers(0, 31), min_size=min_size, max_size=max_size, unique=True).map(
        lambda ids: tuple(f"r{i}" for i in sorted(ids)))


def per_rank_permutations(rids: Sequence[str], world: int
                          ) -> st.SearchStrategy[tuple[tuple[str, ...], ...]]:
    """Each rank's own order of the same rids (shrinks toward every rank in rid order)."""
    return st.tuples(*[st.permutations(list(rids)).map(tuple) for _ in range(world)])


def absent_on_some_ranks(rids: Sequence[str], world: int
                         ) -> st.SearchStrategy[tuple[frozenset[str], ...]]:
    """Which rids each rank holds; every rid is held by at least one rank (shrinks to all)."""
    def holdings(missing: list[list[bool]]) -> tuple[frozenset[str], ...]:
        held = [set(rids) for _ in range(world)]
        for i, rid in enumerate(rids):
            lacking = [r for r in range(world) if missing[r][i]]
            for r in lacking[: world - 1]:  # someone keeps it
                held[r].discard(rid)
        return tuple(frozenset(h) for h in held)

    row = st.lists(st.booleans(), min_size=len(rids), max_size=len(rids))
    return st.lists(row, min_size=world, max_size=world).map(holdings)


def prefix_match_lengths(rids: Sequence[str], world: int, max_len: int = 64
                         ) -> st.SearchStrategy[tuple[dict[str, int], ...]]:
    """Each rank's own prefix-match length per rid (shrinks toward 0 everywhere)."""
    one = st.fixed_dictionaries({rid: st.integers(0, max_len) for rid in rids})
    return st.tuples(*[one for _ in range(world)])


def free_pools(world: int, max_free: int = 8) -> st.SearchStrategy[tuple[int, ...]]:
    """Each rank's free request slots (shrinks toward 0)."""
    return st.tuples(*[st.integers(0, max_free) for _ in range(world)])


def unpriced_ranks(world: int) -> st.SearchStrategy[tuple[bool, ...]]:
    """Which ranks cannot price (shrinks toward every rank priced)."""
    return st.tuples(*[st.booleans() for _ in range(world)])


@st.composite
def rank_queues(draw: Callable[[st.SearchStrategy[Any]], Any], world: int | None = None, *,
                min_world: int = 2, max_world: int = 3, max_rids: int = 6, max_len: int = 64,
                max_free: int = 8, absent: bool = True, unpriced: bool = True) -> RankInputs:
    """Per-rank :class:`RankQueue` inputs over one shared rid set.

    ``world`` fixes the number of ranks (else drawn in [min_world, max_world]); ``absent``
    lets rids be missing on some ranks; ``unpriced`` lets ranks be unable to price.
    """
    n = world if world is not None else draw(world_sizes(min_world, max_world))
    rids = draw(rid_sets(1, max_rids))
    held = draw(absent_on_some_ranks(rids, n)) if absent else tuple(frozenset(rids)
                                                                     for _ in range(n))
    orders = draw(per_rank_permutations(rids, n))
    matches = draw(prefix_match_lengths(rids, n, max_len))
    free = draw(free_pools(n, max_free))
    no_price = draw(unpriced_ranks(n)) if unpriced else (False,) * n
    ranks = []
    for r in range(n):
        queue = tuple(rid for rid in orders[r] if rid in held[r])
        ranks.append(RankQueue(queue=queue,
                               prefix=tuple((rid, matches[r][rid]) for rid in queue),
                               free_slots=None if no_price[r] else free[r]))
    return RankInputs(tuple(ranks))


def per_rank(world: int, each: Callable[[int], st.SearchStrategy[Any]]
             ) -> st.SearchStrategy[RankInputs]:
    """Build RankInputs from one strategy per rank: ``each(rank)``."""
    return st.tuples(*[each(r) for r in range(world)]).map(RankInputs)
