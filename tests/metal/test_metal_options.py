"""docs/suites.md, `deskcheck suites metal`: the options reach the plan. `--facts FILE` "plans
for a machine recorded earlier (a dry run)": nothing runs; the CPU suite runs with `-n 8`
unless `--cpu-workers` says otherwise. Pure: the recorded H200's facts, the run stood in for."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import deskcheck.suites.metal as metal

H200 = Path(__file__).parent / "fixtures" / "h200-facts.json"


def _metal(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, list[list[str]]]:
    """(exit status, the results JSON, the steps the run was asked to run)."""
    ran: list[list[str]] = []
    monkeypatch.setattr(metal, "run_steps",
                        lambda steps, budget: ran.extend(s.name for s in steps))
    parser = argparse.ArgumentParser()
    metal.add_arguments(parser)
    out = tmp_path / "metal.json"
    code = metal.cmd_metal(parser.parse_args([*argv, "--json", str(out)]))
    capsys.readouterr()
    return code, json.loads(out.read_text(encoding="utf-8")), ran


def test_facts_plans_the_recorded_machine_as_a_dry_run_and_runs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, results, ran = _metal(["--facts", str(H200)], tmp_path, monkeypatch, capsys)
    assert not ran and results["dry_run"] and results["verdict"] == "DRY RUN", (
        "`--facts FILE` plans for a machine recorded earlier, a dry run (docs/suites.md:385), "
        f"even without --dry-run: it ran {ran or 'nothing'}, dry_run {results['dry_run']}, "
        f"verdict {results['verdict']!r}")
    assert code == 0, f"a dry run exits 0; `--facts` alone exited {code}"


@pytest.mark.parametrize(("argv", "workers"), [([], "8"), (["--cpu-workers", "3"], "3")],
                         ids=["default-8", "cpu-workers-3"])
def test_the_cpu_suite_runs_with_the_asked_number_of_xdist_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], workers: str) -> None:
    _, results, _ = _metal(["--facts", str(H200), "--cpu-suite", *argv], tmp_path,
                           monkeypatch, capsys)
    command = next(s["command"] for s in results["steps"] if s["name"] == "cpu-suite")
    got = command[command.index("-n") + 1] if "-n" in command else None
    assert got == workers, (
        f"the cpu-suite step runs `-n {workers}` with {argv or 'no --cpu-workers'} "
        f"(docs/suites.md:381: `-n 8` by default); its command has -n {got}: {command}")
