"""Children that a test interrupts must start with SIGINT's default action."""

from __future__ import annotations

import signal


def sigint_default() -> None:
    """``preexec_fn`` for a child the test will SIGINT: a shell that runs the test run in the
    background (``make test &``, some CI runners) hands every child SIGINT *ignored*, and a
    Python started so never installs its KeyboardInterrupt handler; Ctrl-C tests would then
    test the shell, not deskcheck."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
