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
    assert main(["suites", "doctor", "--world", "2", "--json"]) == 0, (
        "`deskcheck suites doctor --world 2 --json` must exit 0 when the gloo group starts; it "
        f"said:\n{capsys.readouterr()}"
    )
    report = json.loads(capsys.readouterr().out)
    (row,) = report["groups"]
    assert report["ok"] is True, f"doctor must say ok: true when every group ran; it says {report}"
    assert {k: row[k] for k in ("backend", "tier", "world", "ok", "start_method")} == {
        "backend": "gloo", "tier": "DESK", "world": 2, "ok": True, "start_method": "fork"}, (
        f"doctor must report a gloo DESK world=2 group that ran under fork; it reports {row}"
    )
    assert row["start_seconds"] > 0 and row["round_trip_seconds"] > 0, (
        "doctor must report positive start and round-trip timings; it reports "
        f"{row['start_seconds']}, {row['round_trip_seconds']}"
    )
    assert child_pids() == before, (
        f"doctor left child processes behind: {sorted(set(child_pids()) - set(before))}"
    )


def test_doctor_falls_short_with_the_reason_nccl_cannot_run(capsys, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert main(["suites", "doctor", "--backend", "nccl", "--world", "2"]) == 1, (
        "`suites doctor --backend nccl` on a machine with no GPU must exit 1 (falls short); it "
        f"said:\n{capsys.readouterr()}"
    )
    assert capsys.readouterr().out.strip() == (
        "METAL nccl world=2: cannot run: nccl needs CUDA and this machine shows no GPU "
        "(CUDA_VISIBLE_DEVICES='')"), (
        "doctor must say why nccl cannot run: it needs CUDA and this machine shows no GPU"
    )


def test_doctor_rejects_a_world_of_zero(capsys):
    assert main(["suites", "doctor", "--world", "0"]) == 2, (
        f"`suites doctor --world 0` must exit 2 (usage error); it said:\n{capsys.readouterr()}"
    )
    assert "--world: world sizes must be >= 1" in capsys.readouterr().err, (
        "a world of 0 must be refused with '--world: world sizes must be >= 1'"
    )


def test_importing_the_suites_part_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, deskcheck.suites, deskcheck.suites.pytest_hooks, "
            "deskcheck.suites.commands, deskcheck.suites.strategies; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", (
        "importing the suites part must not import torch; torch in sys.modules printed "
        f"{done.stdout.strip()!r}"
    )
