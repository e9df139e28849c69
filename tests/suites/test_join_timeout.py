"""docs/suites.md: "ranks may wait for each other to join for the process-group timeout or
30 s, whichever is longer (30 s more for spawned ranks, which start python and import torch
first)". The pool's join wait is read without starting a rank."""

from __future__ import annotations

import pytest

from deskcheck.suites.pool import RankPool


@pytest.mark.parametrize(("timeout_s", "start_method", "join_s"), [
    (5.0, "fork", 30.0), (120.0, "fork", 120.0), (5.0, "spawn", 60.0), (120.0, "spawn", 150.0)])
def test_joining_waits_for_the_longer_of_the_timeout_and_30_s(
        timeout_s: float, start_method: str, join_s: float) -> None:
    pool = RankPool(2, "gloo", timeout_s=timeout_s)
    pool.start_method = start_method  # what start() settles on; no rank is started
    assert pool.join_timeout_s == join_s, (
        f"with a process-group timeout of {timeout_s:g} s and {start_method}ed ranks, ranks "
        f"may wait {pool.join_timeout_s:g} s to join, not {join_s:g} s: the longer of the "
        f"timeout and 30 s (30 s more when spawned), so a late rank is not taken for a hang")
