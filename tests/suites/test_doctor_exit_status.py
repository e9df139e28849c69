"""docs/suites.md, `deskcheck suites doctor`: "Exit 0 all ran (and every arm held), 1 one
could not". The probes are stood in for (no rank is started): only the exit rule is read."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from deskcheck.suites import commands


def _args() -> argparse.Namespace:
    return argparse.Namespace(backend=["gloo"], world=[2, 3], pg_timeout=None, hang=False,
                              hang_timeout=5.0, json=False)


@pytest.mark.parametrize(("unable", "status"), [((), 0), ((3,), 1), ((2, 3), 1)],
                         ids=["all-ran", "one-could-not", "none-could"])
def test_doctor_exits_0_only_when_every_group_ran(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        unable: tuple[int, ...], status: int) -> None:
    def probe(backend: str, world: int, _timeout_s: float | None) -> dict[str, Any]:
        row = {"backend": backend, "tier": "DESK", "world": world}
        if world in unable:
            return {**row, "ok": False, "reason": "stood-in failure"}
        return {**row, "ok": True, "start_method": "fork", "start_seconds": 0.1,
                "round_trip_seconds": 0.001, "pg_timeout_seconds": 30.0}

    monkeypatch.setattr(commands, "_probe", probe)
    code = commands.doctor(_args())
    out = capsys.readouterr().out
    assert code == status, (
        f"doctor exited {code}, not {status}, when world(s) {list(unable) or 'none'} of 2 and 3 "
        f"could not run: exit 0 only when all ran, 1 when one could not:\n{out}")
