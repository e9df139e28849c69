"""N in-process harness instances with per-rank divergent state, and a stand-in collective
that makes them meet: each rank runs in its own thread and the collective is a barrier."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from deskcheck.errors import RankError, RankTimeoutError

H = TypeVar("H")


class InProcessGroup:
    """A stand-in process group for ``world`` in-process ranks (threads).

    ``all_reduce(rank, values, op=min)`` reduces elementwise across every rank and returns the
    group's values to each; a rank that never arrives makes the others raise
    :class:`RankTimeoutError` naming the ranks that did arrive, instead of hanging.
    """

    def __init__(self, world: int, timeout_s: float = 10.0) -> None:
        if world < 1:
            raise ValueError("world must be >= 1")
        self.world = world
        self.timeout_s = timeout_s
        self._barrier = threading.Barrier(world)
        self._lock = threading.Lock()
        self._slots: dict[tuple[int, int], Any] = {}
        self._count = [0] * world
        self.calls = 0

    def size(self) -> int:
        return self.world

    def _exchange(self, rank: int, value: Any) -> list[Any]:
        with self._lock:
            call = self._count[rank]
            self._count[rank] += 1
            self._slots[(call, rank)] = value
            self._slots.pop((call - 2, rank), None)  # every peer has read it by now
        try:
            self._barrier.wait(self.timeout_s)
        except threading.BrokenBarrierError as exc:
            arrived = sorted(r for (c, r) in list(self._slots) if c == call)
            raise RankTimeoutError(
                f"collective #{call} did not complete: ranks {arrived} arrived, "
                f"{sorted(set(range(self.world)) - set(arrived))} did not",
                fix="every rank must enter the same collectives in the same order") from exc
        self.calls = max(self.calls, call + 1)
        return [self._slots[(call, r)] for r in range(self.world)]

    def all_gather(self, rank: int, value: Any) -> list[Any]:
        return self._exchange(rank, value)

    def all_reduce(self, rank: int, values: Sequence[Any], op: Callable[..., Any] = min) -> list[Any]:
        gathered = self._exchange(rank, list(values))
        widths = {len(v) for v in gathered}
        if len(widths) != 1:
            raise RankError(f"all_reduce payload widths differ across ranks: "
                            f"{[len(v) for v in gathered]}",
                            fix="every rank must reduce a payload of the same layout")
        return [op(column) for column in zip(*gathered, strict=True)]


class RankSet(list, Generic[H]):
    """The per-rank harness instances (``rankset[r]``), their group, and :meth:`run`."""

    def __init__(self, members: Sequence[H], group: InProcessGroup) -> None:
        super().__init__(members)
        self.group = group

    def run(self, fn: Callable[[H], Any], timeout_s: float | None = None) -> list[Any]:
        """Call ``fn(rank_harness)`` on every rank at once (one thread each); results by rank."""
        results: list[Any] = [None] * len(self)
        errors: dict[int, str] = {}
        collateral: set[int] = set()  # ranks that only failed because a peer broke the barrier

        def body(rank: int) -> None:
            try:
                results[rank] = fn(self[rank])
            except BaseException as exc:  # noqa: BLE001 - reported per rank below
                errors[rank] = traceback.format_exc()
                if isinstance(exc, RankTimeoutError):
                    collateral.add(rank)
                self.group._barrier.abort()

        threads = [threading.Thread(target=body, args=(r,), daemon=True) for r in range(len(self))]
        for t in threads:
            t.start()
        limit = timeout_s if timeout_s is not None else self.group.timeout_s * 3
        for t in threads:
            t.join(limit)
        alive = [r for r, t in enumerate(threads) if t.is_alive()]
        if alive:
            self.group._barrier.abort()
            raise RankTimeoutError(f"ranks {alive} did not finish within {limit}s")
        if errors:
            first = min(set(errors) - collateral, default=min(errors))
            raise RankError(f"ranks {sorted(errors)} failed; rank {first} first:\n{errors[first]}")
        return results


def ranks(harness_cls: Callable[..., H], world: int,
          per_rank: Callable[[int, InProcessGroup], Mapping[str, Any]] | None = None,
          timeout_s: float = 10.0, **shared: Any) -> RankSet[H]:
    """Build ``world`` harness instances: ``shared`` state for all, ``per_rank(rank, group)``
    for the state that diverges between ranks (rank id, queue order, pool sizes...)."""
    group = InProcessGroup(world, timeout_s)
    members = [harness_cls(**{**shared, **(per_rank(r, group) if per_rank else {})})
               for r in range(world)]
    return RankSet(members, group)
