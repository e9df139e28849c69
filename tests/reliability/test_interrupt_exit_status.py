"""docs/gate.md: the exit status is "128 + the signal when interrupted (130 Ctrl-C, 143 SIGTERM,
129 SIGHUP)". While a command runs (``signals_raise``), each of those signals must be handled
by deskcheck (not left to its default action, which kills the process with no ``finally`` run)
and become an interruption whose exit status is 128 + the signal.

No signal is sent: the handler in place is read and called, so a missing handler fails the
test instead of killing the worker."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from deskcheck.interrupts import Interrupted, exit_status, signals_raise


@pytest.fixture
def sentinel_handlers() -> Iterator[object]:
    """A handler of the test's own for SIGINT/SIGTERM/SIGHUP (put back afterwards), so that
    ``signals_raise`` replacing it, or not, is visible."""
    def sentinel(_signum: int, _frame: object) -> None:
        raise AssertionError("the test's own handler ran: deskcheck did not take the signal")
    wanted = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {s: signal.signal(s, sentinel) for s in wanted}
    try:
        yield sentinel
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@pytest.mark.parametrize(("signum", "status"), [
    (signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_an_interrupting_signal_exits_128_plus_the_signal(
        sentinel_handlers: object, signum: int, status: int) -> None:
    name = signal.Signals(signum).name
    with signals_raise(extra=(signal.SIGINT,)):
        handler = signal.getsignal(signum)
        assert handler is not sentinel_handlers and callable(handler), (
            f"{name} is not handled while a deskcheck command runs: it would end the process "
            f"by its default action, not exit {status} (docs/gate.md: 128 + the signal)")
        with pytest.raises(KeyboardInterrupt) as caught:
            handler(signum, None)
    assert isinstance(caught.value, Interrupted), (
        f"{name} raised {type(caught.value).__name__}, not an Interrupted that remembers it")
    assert exit_status(caught.value) == status, (
        f"interrupted by {name}, the exit status is {exit_status(caught.value)}, not {status} "
        f"(docs/gate.md: 128 + the signal)")
