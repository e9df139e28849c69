"""A process group that dies with the process that started it, even on SIGKILL.

``GroupWatchdog(pgid)`` starts a tiny Python process (``-I -S``: no site, ~15 ms) in its own
session that blocks reading a pipe from this process. When this process dies, however it dies,
the kernel closes the pipe; the watchdog then kills the whole process group with SIGKILL (the
child, its xdist workers and anything the tests started without a session of their own).
``release()`` tells it the group ended normally. Together with ``PR_SET_PDEATHSIG`` in the
child (which covers the moment before the watchdog runs) nothing outlives its gate.
"""

from __future__ import annotations

import subprocess
import sys

DIE_WITH_ENV = "DESKCHECK_DIE_WITH"  # the direct child sets PR_SET_PDEATHSIG when it names its parent

_WATCH = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
told = sys.stdin.buffer.read()
if told != b"done":
    try:
        os.killpg(int(sys.argv[1]), signal.SIGKILL)
    except OSError:
        pass
"""


class GroupWatchdog:
    """Kills process group ``pgid`` when this process dies before :meth:`release`."""

    def __init__(self, pgid: int):
        self.pgid = pgid
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCH, str(pgid)], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def release(self) -> None:
        """The group ended (or was killed) here: the watchdog leaves without killing."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"done")
            proc.stdin.close()
        except OSError:
            pass
        proc.wait()

    def __enter__(self) -> GroupWatchdog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


SET_DEATH_SIGNAL = f"""\
_parent = _os.environ.pop("{DIE_WITH_ENV}", "")
if _parent:  # the direct child of a gate: die with it (its children are killed by group)
    try:
        import ctypes as _ctypes
        _ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass
    if _os.getppid() != int(_parent):  # the gate died before the death signal was set
        _os._exit(1)
"""
