"""docs/suites.md, `deskcheck suites metal`: "Exit 0 when the METAL tier is proven (a group and
the suites passed, no GPU step failed) or on a dry run, else 1"; the CPU suite's failures "are
reported, not fatal"; a step that hangs is reported as `timeout`. Pure: the verdict over step
results, and the exit status the command gives each verdict (the run is stood in for)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import deskcheck.suites.metal as metal
from deskcheck.suites.metal.render import verdict


def _steps(**status: str) -> list[dict[str, Any]]:
    return [{"kind": kind.replace("_", "-"), "status": value} for kind, value in status.items()]


@pytest.mark.parametrize(("status", "expected"), [
    ({"group": "passed", "suites": "passed"}, "METAL-PROVEN"),
    ({"group": "passed", "suites": "passed", "cpu_suite": "failed"}, "METAL-PROVEN"),
    ({"group": "passed", "suites": "skipped"}, "NOT PROVEN"),
    ({"group": "skipped", "suites": "passed"}, "NOT PROVEN"),
    ({"group": "passed", "suites": "passed", "sweep": "failed"}, "FALLS SHORT"),
    ({"group": "passed", "suites": "passed", "sweep": "timeout"}, "FALLS SHORT"),
    ({"group": "failed", "suites": "passed"}, "FALLS SHORT"),
], ids=["group-and-suites", "cpu-suite-failure-not-fatal", "suites-skipped", "group-skipped",
        "sweep-failed", "sweep-hung", "group-failed"])
def test_the_metal_tier_is_proven_by_a_group_and_the_suites_with_no_gpu_step_failed(
        status: dict[str, str], expected: str) -> None:
    got = verdict(_steps(**status), dry_run=False)
    assert got == expected, (
        "METAL is proven when a group and the suites passed and no GPU step failed or hung (the "
        f"CPU suite's failures are not fatal): steps {status} must give {expected}, not {got}")
    assert verdict(_steps(**status), dry_run=True) == "DRY RUN", "a dry run is a DRY RUN"


@pytest.mark.parametrize(("result", "code"), [
    ("METAL-PROVEN", 0), ("DRY RUN", 0), ("NOT PROVEN", 1), ("FALLS SHORT", 1)])
def test_suites_metal_exits_0_only_when_proven_or_on_a_dry_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        result: str, code: int) -> None:
    monkeypatch.setattr(metal, "run_metal", lambda options, facts, needs: {"verdict": result})
    monkeypatch.setattr(metal, "terminal", lambda results: f"verdict: {results['verdict']}\n")
    args = argparse.Namespace(tests=[], catalog=None, cpu_suite=False, cpu_workers=8,
                              budget=450.0, dry_run=False, facts=None, json=None, markdown=None)
    got = metal.cmd_metal(args)
    capsys.readouterr()
    assert got == code, (
        f"`deskcheck suites metal` exits 0 when the METAL tier is proven or on a dry run, else 1: "
        f"the verdict {result} must exit {code}, not {got}")


def test_the_budget_defaults_to_450_s() -> None:
    parser = argparse.ArgumentParser()
    metal.add_arguments(parser)
    budget = parser.parse_args([]).budget
    assert budget == 450.0, f"--budget defaults to 450 s (docs/suites.md:369); it is {budget}"
