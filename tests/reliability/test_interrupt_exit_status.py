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


def test_a_signal_ignored_when_a_command_starts_stays_ignored() -> None:
    """deskcheck/interrupts.py (`signals_raise`): a signal ignored when it starts (SIGINT in a
    background job, SIGHUP under nohup) stays ignored, and is put back afterwards."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with signals_raise(extra=(signal.SIGINT,)):
            during = signal.getsignal(signal.SIGHUP)
        after = signal.getsignal(signal.SIGHUP)
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert during is signal.SIG_IGN and after is signal.SIG_IGN, (
        "SIGHUP ignored when the command started (nohup) must stay ignored while it runs and "
        f"after: it was {during!r} while it ran and {after!r} after")


def test_sigint_sigterm_and_sighup_are_all_held_while_a_child_is_forked() -> None:
    """docs/mutants.md:376: SIGINT/SIGTERM/SIGHUP are held (blocked, not lost) while a child
    is forked and registered; the mask is put back afterwards."""
    from deskcheck.interrupts import signals_held

    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with signals_held():
        held = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    after = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    missing = sorted(s.name for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
                     if s not in held)
    assert not missing, (
        f"SIGINT, SIGTERM and SIGHUP are held while a child is forked; not held: {missing}")
    assert after == before, f"the signal mask after the fork block is {after}, not {before}"


@pytest.mark.parametrize(("signum", "status"), [
    (signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_the_command_line_exits_128_plus_the_signal_that_interrupted_the_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        signum: int, status: int) -> None:
    """docs/mutants.md:364, docs/gate.md:178: a command stopped by SIGTERM exits 143 (130
    Ctrl-C, 129 SIGHUP): `deskcheck`'s own main() turns the interruption into that status."""
    import argparse

    import deskcheck.cli as cli

    def interrupted(_args: argparse.Namespace) -> int:
        raise Interrupted(signum)

    class _Parser:
        def parse_args(self, _argv: list[str]) -> argparse.Namespace:
            return argparse.Namespace(func=interrupted)

    monkeypatch.setattr(cli, "build_parser", lambda *_a: _Parser())
    got = cli.main(["sweep"])
    err = capsys.readouterr().err
    name = signal.Signals(signum).name
    assert got == status, (
        f"a command interrupted by {name} must exit {status} (128 + the signal); "
        f"deskcheck's main() returned {got}")
    assert f"interrupted ({name})" in err, f"it must say it was interrupted by {name}: {err!r}"
