"""docs/gate.md: the owner marker holds "pid and process start time", and the next gate
removes what every owner that is gone left behind. A pid can be reused after its owner died:
a live process with the owner's pid but another start time is not the owner."""

from __future__ import annotations

import os

from deskcheck.liveness import process_alive, process_token


def test_a_live_pid_with_another_start_time_is_an_owner_that_is_gone() -> None:
    pid = os.getpid()
    token = process_token(pid)
    assert token, f"no start time is read for the running pid {pid} from /proc"
    assert process_alive(pid, token), (
        f"pid {pid} with its own start time {token} is not taken for alive")
    reused = str(int(token) + 1)
    assert not process_alive(pid, reused), (
        f"pid {pid} runs but started at {token}, not at the marker's {reused}: a reused pid was "
        f"taken for the marker's owner, so what a SIGKILLed owner left is never removed")
