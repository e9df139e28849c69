"""``deskcheck suites doctor``: exit codes, JSON keys, and the reason a backend cannot run."""

from __future__ import annotations

import json

import pytest

from deskcheck.cli import main
from tests.suites._procs import child_pids

pytestmark = pytest.mark.xdist_group("deskcheck-suites")


def test_doctor_starts_a_gloo_group_and_reports_its_timings(capsys, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    before = child_pids()
    assert main(["suites", "doctor", "--world", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (row,) = report["groups"]
    assert report["ok"] is True
    assert {k: row[k] for k in ("backend", "tier", "world", "ok", "start_method")} == {
        "backend": "gloo", "tier": "DESK", "world": 2, "ok": True, "start_method": "fork"}
    assert row["start_seconds"] > 0 and row["round_trip_seconds"] > 0
    assert child_pids() == before


def test_doctor_falls_short_with_the_reason_nccl_cannot_run(capsys, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert main(["suites", "doctor", "--backend", "nccl", "--world", "2"]) == 1
    assert capsys.readouterr().out.strip() == (
        "METAL nccl world=2: cannot run: nccl needs CUDA and this machine shows no GPU "
        "(CUDA_VISIBLE_DEVICES='')")


def test_doctor_rejects_a_world_of_zero(capsys):
    assert main(["suites", "doctor", "--world", "0"]) == 2
    assert "--world: world sizes must be >= 1" in capsys.readouterr().err


def test_importing_the_suites_part_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, deskcheck.suites, deskcheck.suites.pytest_hooks, "
            "deskcheck.suites.commands, deskcheck.suites.strategies; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
