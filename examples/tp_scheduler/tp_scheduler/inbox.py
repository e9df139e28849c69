"""What the tokenizer delivered to this rank: one entry per poll, taken in order.

In a real server the leader rank polls an IPC socket each pass and broadcasts what it found
to the TP group; a poll is the textbook rank-local read (what arrived on THIS rank's socket
by now). Each ``deliver`` call is what one poll finds, so a test scripts arrivals pass by
pass: ``deliver([a, b])``, ``deliver([])``, ``deliver([SHUTDOWN])``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from tp_scheduler.req import Req


@dataclass(frozen=True)
class Shutdown:
    """A control message: the event loop returns after the pass that receives it."""

    reason: str = "requested"


SHUTDOWN = Shutdown()

Message = Req | Shutdown


class RequestInbox:
    """Deliveries waiting to be polled, oldest first."""

    def __init__(self) -> None:
        self._deliveries: deque[list[Message]] = deque()

    def deliver(self, messages: Iterable[Message]) -> None:
        """Queue what one poll will find (an empty delivery is a poll that finds nothing)."""
        batch = list(messages)
        for message in batch:
            if not isinstance(message, Req | Shutdown):
                raise TypeError(f"an inbox carries Req or Shutdown, got {message!r}")
        self._deliveries.append(batch)

    def poll(self) -> list[Message]:
        """The next delivery, or nothing when none is waiting."""
        return self._deliveries.popleft() if self._deliveries else []

    def __len__(self) -> int:
        return len(self._deliveries)
