"""Ctrl-C, SIGTERM and SIGHUP become one exception, and the exit status says which it was.

``Interrupted`` is a ``KeyboardInterrupt`` (so every ``finally`` runs and pytest treats it as
an interruption) that remembers its signal; the command line exits ``128 + signal``: 130 for
SIGINT, 143 for SIGTERM, 129 for SIGHUP, as shells report a process killed by that signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

TERMINATING_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s
)
_LAST: dict[str, int] = {}
_PENDING: dict[str, int] = {}


class Interrupted(KeyboardInterrupt):
    """An interruption by signal ``signum``."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(exc: BaseException) -> int:
    """``128 + signal`` for an interruption (130 for a plain ``KeyboardInterrupt``)."""
    return 128 + int(getattr(exc, "signum", 0) or _LAST.get("signum", signal.SIGINT))


def as_interrupted(exc: BaseException | None = None) -> Interrupted:
    """``exc`` as an :class:`Interrupted`, with the signal that arrived last (else SIGINT)."""
    if isinstance(exc, Interrupted):
        return exc
    return Interrupted(_LAST.get("signum", signal.SIGINT))


def _raise(signum: int, _frame: FrameType | None) -> None:
    _LAST["signum"] = signum
    _PENDING["signum"] = signum
    raise Interrupted(signum)


def raise_if_interrupted() -> None:
    """Raise again a signal whose exception was swallowed: a handler that runs while a
    finalizer (``__del__``, a weakref callback) runs raises into it, and Python only prints
    "Exception ignored". Long loops call this between steps, so no signal is ever lost."""
    signum = _PENDING.get("signum")
    if signum is not None:
        raise Interrupted(signum)


@contextlib.contextmanager
def handlers(signals: tuple[int, ...], handler: Any) -> Iterator[None]:
    """``handler`` for ``signals`` for the duration (main thread only: elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in signals
                if signal.getsignal(s) is not signal.SIG_IGN or handler is signal.SIG_IGN}
    try:
        yield
    finally:
        for s, previous_handler in previous.items():
            signal.signal(s, previous_handler)


def signals_raise(extra: tuple[int, ...] = ()) -> contextlib.AbstractContextManager[None]:
    """SIGTERM/SIGHUP (and ``extra``, e.g. SIGINT) raise :class:`Interrupted` meanwhile; a
    signal ignored when this starts (SIGINT in a background job) stays ignored."""
    _LAST.pop("signum", None)
    _PENDING.pop("signum", None)
    return handlers((*extra, *TERMINATING_SIGNALS), _raise)


HELD_DURING_FORK = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP wait (blocked, not lost) until the block ends: a fork and the
    at-fork callbacks it runs (logging's lock release in the parent) are never interrupted
    half-way, and a child forked inside starts with them blocked (``release_held`` there,
    after its own handlers are set)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_DURING_FORK)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def release_held() -> None:
    """In a child forked inside ``signals_held``: take the held signals again."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_DURING_FORK)
