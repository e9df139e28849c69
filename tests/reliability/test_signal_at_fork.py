"""Item 9: a signal that arrives while the sweep forks a child must not land inside the
at-fork callbacks: logging's after-fork lock release in the parent would raise instead of
releasing (``Exception ignored in: <function _releaseLock>``, a
PytestUnraisableExceptionWarning) and the lock would stay held in the sweep process.

The signal is sent from an at-fork callback registered before logging's, when the runner
forks a child; its Python handler runs at the first function entered after that callback
returns: logging's release. Nothing is timed: the signal is tied to the fork itself."""

from __future__ import annotations

import sys

import pytest

from tests.reliability.battery import Bench

pytestmark = pytest.mark.xdist_group("reliability-signals")

SCRIPT = """
import os, signal, sys, threading

assert "logging" not in sys.modules, "precondition: logging imported before the script ran"
fired = []


def interrupt_the_runners_fork():
    # registered before logging's callback: the SIGINT handler runs at the first Python
    # function entered after this one returns, logging's _releaseLock
    if not fired and sys._getframe(1).f_code.co_name == "_start":
        fired.append(True)
        os.kill(os.getpid(), signal.SIGINT)


os.register_at_fork(after_in_parent=interrupt_the_runners_fork)
import logging

from deskcheck.cli import main

code = main(sys.argv[1:])
free = []


def probe_lock():
    free.append(logging._lock.acquire(blocking=False))
    if free[0]:
        logging._lock.release()


probe = threading.Thread(target=probe_lock)
probe.start()
probe.join()
print("LOGGING-LOCK", "free" if free[0] else "held", flush=True)
sys.exit(code)
"""


def test_a_signal_at_fork_does_not_land_in_loggings_lock_release(bench: Bench) -> None:
    done = bench.run_python(SCRIPT, "sweep", "--workers", "1", "--no-store")
    out = done.stdout + done.stderr
    assert done.returncode == 130, f"the interrupted sweep exited {done.returncode}:\n{out}"
    assert "Exception ignored" not in out and "PytestUnraisableExceptionWarning" not in out, (
        f"the signal landed inside an at-fork callback:\n{out}")
    assert "LOGGING-LOCK free" in done.stdout, (
        f"logging's lock is still held in the sweep process after the interrupt:\n{out}")


def test_the_script_can_see_a_held_lock() -> None:
    """The probe itself can fail: a lock held by another thread reads ``held``."""
    import logging
    import threading

    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with logging._lock:  # type: ignore[attr-defined]
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    free: list[bool] = []
    probe = threading.Thread(target=lambda: free.append(
        logging._lock.acquire(blocking=False)))  # type: ignore[attr-defined]
    # (held by the holder: the probe cannot take it, so it has nothing to release)
    probe.start()
    probe.join()
    release.set()
    holder.join()
    assert free == [False], "the probe read a lock held by another thread as free"
    assert sys.version_info >= (3, 11), (
        f"this test relies on Python 3.11 or later; it runs on {sys.version}"
    )
