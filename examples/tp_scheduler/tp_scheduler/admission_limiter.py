"""Adaptive admission limiter: how many running requests this rank currently allows.

Additive increase on success, multiplicative decrease on an out-of-memory retract. Its
``current`` is rank-local floating state: two ranks that saw different OOM histories allow
different numbers, which is why the count vote carries its own slot in the uniform reduce
rather than being derived from the pool floors.
"""

from __future__ import annotations


class AdmissionLimiter:
    """AIMD bound on concurrently running requests."""

    def __init__(self, initial: int, minimum: int = 1, maximum: int | None = None) -> None:
        maximum = initial if maximum is None else maximum
        if not 1 <= minimum <= initial <= maximum:
            raise ValueError(
                f"need 1 <= minimum <= initial <= maximum, got {minimum}, {initial}, {maximum}"
            )
        self.minimum = minimum
        self.maximum = maximum
        self.current = initial

    def on_success(self) -> None:
        """A pass ran without memory trouble: allow one more."""
        self.current = min(self.maximum, self.current + 1)

    def on_oom(self) -> None:
        """A retract for lack of memory: halve, never below the minimum."""
        self.current = max(self.minimum, self.current // 2)
