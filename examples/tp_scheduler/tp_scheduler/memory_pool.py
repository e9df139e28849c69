"""Rank-local pools: request slots, device KV tokens and host KV tokens.

Capacities are rank-local by design; only the admission DECISION is made uniform. Each pool
exposes ``available_size()``, the number the uniform reduce and the candidate loop read.
"""

from __future__ import annotations


class _IndexPool:
    """A fixed set of integer indices handed out and returned (free-list allocator)."""

    def __init__(self, size: int, what: str) -> None:
        if size < 0:
            raise ValueError(f"{what} size must be >= 0, got {size}")
        self.size = size
        self._what = what
        self._free: list[int] = list(range(size))
        self._free_set: set[int] = set(self._free)

    def available_size(self) -> int:
        return len(self._free)

    def alloc(self, need: int) -> list[int] | None:
        """``need`` indices, or None (nothing taken) when fewer are free."""
        if need < 0:
            raise ValueError(f"cannot allocate {need} {self._what} entries")
        if need > len(self._free):
            return None
        taken, self._free = self._free[:need], self._free[need:]
        self._free_set.difference_update(taken)
        return taken

    def free(self, indices: list[int]) -> None:
        for index in indices:
            if not 0 <= index < self.size:
                raise ValueError(f"{self._what} index {index} out of range [0, {self.size})")
            if index in self._free_set:
                raise ValueError(f"{self._what} index {index} freed twice")
            self._free_set.add(index)
            self._free.append(index)


class ReqToTokenPool(_IndexPool):
    """Request slots: one per admitted request (rows of the req->token map)."""

    def __init__(self, size: int) -> None:
        super().__init__(size, "request slot")


class TokenToKVPool(_IndexPool):
    """Device KV-cache token slots."""

    def __init__(self, size: int) -> None:
        super().__init__(size, "device KV token")


class HostKVPool(_IndexPool):
    """Host (CPU) KV-cache token slots that back up evicted device tokens."""

    def __init__(self, size: int) -> None:
        super().__init__(size, "host KV token")


def occupy(pool: _IndexPool, count: int) -> list[int]:
    """Take ``count`` entries out of ``pool`` (e.g. to model residency from earlier work)."""
    taken = pool.alloc(count)
    if taken is None:
        raise ValueError(f"pool has {pool.available_size()} free entries, cannot occupy {count}")
    return taken
