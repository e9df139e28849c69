"""`deskcheck sweep --record` and `deskcheck mutants run ID --record` record every rank-pool
task (DESKCHECK_RECORD=all) (docs/suites.md "When it costs")."""

from __future__ import annotations

import argparse
import os

import pytest

import deskcheck.mutants.auto.commands as auto_commands
from deskcheck.cli import build_parser
from deskcheck.mutants.commands import _sweep


@pytest.mark.parametrize("argv", [["sweep", "--record"], ["mutants", "run", "--record", "M1"]])
def test_record_is_an_option_of_sweep_and_mutants_run(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.record is True, f"`deskcheck {' '.join(argv)}` did not set record"


def test_sweep_record_sets_deskcheck_record_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_RECORD", "")  # restored after: _sweep sets it
    seen: list[str | None] = []
    monkeypatch.setattr(auto_commands, "run_auto",
                        lambda args: seen.append(os.environ.get("DESKCHECK_RECORD")) or 0)
    _sweep(argparse.Namespace(record=True, auto=True))
    assert seen == ["all"], (
        f"`deskcheck sweep --record` ran with DESKCHECK_RECORD={seen}, expected 'all': the "
        "option was ignored")
