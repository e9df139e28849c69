"""docs/suites.md, `deskcheck suites doctor --hang`: "the last rank skips the all_reduce, and
the pool must name it within the arm's process-group timeout (3 s by default; the timeout + 1 s
grace + 5 s slack at most)". The pool and the clock are stood in for: no rank is started."""

from __future__ import annotations

import argparse
from types import SimpleNamespace
from typing import Any

import pytest

import deskcheck.suites._rank_main as rank_main
import deskcheck.suites.commands as suites_commands
import deskcheck.suites.pool as pool_module
from deskcheck.cli import main
from deskcheck.errors import RankTimeoutError


def test_only_the_skipping_rank_stays_out_of_the_all_reduce(monkeypatch):
    entered: list[int] = []
    monkeypatch.setattr(suites_commands, "probe_all_reduce",
                        lambda value: entered.append(value) or 3)
    ways = {}
    for rank in range(3):
        monkeypatch.setattr(rank_main, "rank_context", lambda rank=rank: SimpleNamespace(rank=rank))
        ways[rank] = suites_commands.skip_all_reduce_on(2)
    assert ways == {0: 3, 1: 3, 2: -1} and len(entered) == 2, (
        "in the hang probe only the skipper (rank 2 of 3) returns -1 without the all_reduce and "
        f"ranks 0 and 1 enter it; the ranks returned {ways} and {len(entered)} entered it")


class _Clock:
    """perf_counter stand-in: the arm's start, then its end ``seconds`` later."""

    def __init__(self, seconds: float):
        self.ticks = iter([100.0, 100.0 + seconds])

    def perf_counter(self) -> float:
        return next(self.ticks)


def _pool_naming(rank: int, calls: list[Any]) -> type:
    class Pool:
        def __init__(self, world: int, backend: str, timeout_s: float):
            calls.append(("new", world, backend, timeout_s))

        def start(self) -> None:
            pass

        def run(self, task, *args, per_rank):
            calls.append(("run", per_rank))
            raise RankTimeoutError(f"rank {rank} skipped all_reduce #1: returned after 0 "
                                   "collectives while ranks 0 and 1 waited in it")

        def close(self) -> None:
            calls.append(("close",))

    return Pool


def _arm(monkeypatch, named: int, seconds: float, world: int = 3,
         timeout_s: float = 3.0) -> tuple[dict[str, Any], list[Any]]:
    calls: list[Any] = []
    monkeypatch.setattr(pool_module, "RankPool", _pool_naming(named, calls))
    monkeypatch.setattr(suites_commands, "time", _Clock(seconds))
    monkeypatch.setenv("DESKCHECK_RECORD", "off")
    return suites_commands.hang_arm("gloo", world, timeout_s), calls


def test_the_last_rank_named_in_time_holds_the_arm(monkeypatch):
    row, calls = _arm(monkeypatch, named=2, seconds=3.1)
    assert row["ok"] is True and row["message"].startswith("rank 2 skipped all_reduce #1"), (
        "at world 3 the last rank (2) skips: a pool naming rank 2 within the limit must hold the "
        f"arm and report its message; the arm answered {row}")
    assert ("run", [2, 2, 2]) in calls and ("new", 3, "gloo", 3.0) in calls \
        and calls[-1] == ("close",), (
            "the arm must start a world-3 pool with its own timeout, tell every rank that rank 2 "
            f"skips, and close the pool; the pool saw {calls}")


@pytest.mark.parametrize(("seconds", "ok"), [(9.0, True), (9.01, False)],
                         ids=["at-the-limit", "past-the-limit"])
def test_the_arm_allows_the_timeout_plus_1_s_grace_plus_5_s_slack(monkeypatch, seconds, ok):
    row, _ = _arm(monkeypatch, named=2, seconds=seconds)
    assert row["limit_seconds"] == 9.0, (
        f"the limit of a 3 s hang arm is 3 + 1 s grace + 5 s slack = 9 s; it is {row['limit_seconds']}")
    assert row["ok"] is ok, (
        f"a hang named after {seconds} s with a 9 s limit (at most) must "
        f"{'hold' if ok else 'fail'}; the arm answered {row}")
    if not ok:
        assert "past the 3 s timeout + 6 s" in row["reason"], (
            f"a late naming must say it came past the timeout and by how much: {row['reason']}")


def test_a_world_of_one_skips_the_arm_and_the_doctor_still_passes(monkeypatch, capsys):
    row = suites_commands.hang_arm("gloo", 1, 3.0)
    assert row.get("skipped") is True and "world >= 2" in row["reason"], (
        f"a world of 1 has no rank to wait for the skipper: the arm must be skipped; got {row}")
    monkeypatch.setattr(suites_commands, "_probe", lambda backend, world, timeout_s: {
        "backend": backend, "tier": "DESK", "world": world, "ok": True, "start_method": "fork",
        "start_seconds": 0.1, "round_trip_seconds": 0.001, "pg_timeout_seconds": 10.0})
    code = main(["suites", "doctor", "--world", "1", "--hang"])
    out = capsys.readouterr().out
    assert code == 0 and "hang arm skipped: the hang arm needs world >= 2" in out, (
        "a skipped hang arm (world 1) is not a failure: doctor must exit 0 and say why it was "
        f"skipped; it exited {code}:\n{out}")


def test_doctor_defaults_gloo_worlds_2_and_3_and_a_3_s_hang_arm(monkeypatch, capsys):
    probes: list[tuple[str, int, float | None]] = []
    hangs: list[tuple[str, int, float]] = []

    def probe(backend: str, world: int, timeout_s: float | None) -> dict[str, Any]:
        probes.append((backend, world, timeout_s))
        return {"backend": backend, "world": world, "ok": world == 2}

    monkeypatch.setattr(suites_commands, "_probe", probe)
    monkeypatch.setattr(suites_commands, "hang_arm", lambda backend, world, timeout_s: (
        hangs.append((backend, world, timeout_s)) or {"ok": True}))
    code = main(["suites", "doctor", "--hang", "--json"])
    capsys.readouterr()
    assert probes == [("gloo", 2, None), ("gloo", 3, None)], (
        "doctor without --backend/--world/--pg-timeout must probe gloo at worlds 2 and 3 with "
        f"the default timeout (None: DESKCHECK_PG_TIMEOUT or 10 s); it probed {probes}")
    assert hangs == [("gloo", 2, 3.0)], (
        "the hang arm runs with a 3 s timeout by default, and only on the groups that ran "
        f"(world 3 could not); it ran {hangs}")
    assert code == 1, f"a group that could not run makes the doctor exit 1; it exited {code}"


def test_a_failed_hang_arm_fails_the_doctor(monkeypatch, capsys):
    monkeypatch.setattr(suites_commands, "_probe", lambda backend, world, timeout_s: {
        "backend": backend, "tier": "DESK", "world": world, "ok": True, "start_method": "fork",
        "start_seconds": 0.1, "round_trip_seconds": 0.001, "pg_timeout_seconds": 10.0})
    monkeypatch.setattr(suites_commands, "hang_arm", lambda backend, world, timeout_s: {
        "ok": False, "reason": "the error does not say 'rank 1 skipped all_reduce'"})
    args = argparse.Namespace(backend=None, world=[2], pg_timeout=None, hang=True,
                              hang_timeout=3.0, json=False)
    code = suites_commands.doctor(args)
    out = capsys.readouterr().out
    assert code == 1 and "hang arm FAILED: the error does not say" in out, (
        "exit 0 only when every arm held: a failed hang arm must make doctor exit 1 and print "
        f"'hang arm FAILED: <reason>'; it exited {code}:\n{out}")


def test_a_held_hang_arm_prints_when_it_was_named_and_the_message(monkeypatch, capsys):
    monkeypatch.setattr(suites_commands, "_probe", lambda backend, world, timeout_s: {
        "backend": backend, "tier": "DESK", "world": world, "ok": True, "start_method": "fork",
        "start_seconds": 0.14, "round_trip_seconds": 0.0212, "pg_timeout_seconds": 10.0})
    message = ("t.py:1: rank 2 skipped all_reduce #1: returned after 0 collectives while ranks "
               "0 and 1 waited in it until the 3 s process-group timeout")
    monkeypatch.setattr(suites_commands, "hang_arm", lambda backend, world, timeout_s: {
        "ok": True, "message": message, "seconds": 3.1, "limit_seconds": 9.0, "split": None})
    code = main(["suites", "doctor", "--world", "3", "--hang"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out == [
        "DESK  gloo world=3: ok (fork: group start 0.140 s, all_reduce round trip 21.2 ms, "
        "pg timeout 10 s)",
        f"      hang arm named in 3.1 s: {message}"], (
        "doctor --hang must print the group line and, under it, 'hang arm named in <s> s: "
        f"<the pool's message>' as docs/suites.md shows, and exit 0; it exited {code}:\n"
        + "\n".join(out))
