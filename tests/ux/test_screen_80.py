"""Issue 32: at 80 columns (a fixed-width console; the one width rule of deskcheck.screen,
terminal or not) `sweep`, `sweep --auto`, `history`, `redfirst`, `standins` and `mutants list`
print no line wider than 80 and break no id: an id is shown whole, or broken only after a
separator, its parametrization kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from deskcheck.cli import main
from deskcheck.gate.redfirst import RedFirstReport, TestVerdict
from deskcheck.gate.render import redfirst_text
from deskcheck.mutants.auto.render import print_result
from deskcheck.mutants.render import shortfall_report, verdict_table
from deskcheck.report import RunRecord, Store
from tests.ux.records import MUTANT_IDS, records
from tests.ux.tokens import broken_ids, too_wide

ROOT = Path(__file__).resolve().parents[2]
PARAM = "tests/test_limits.py::TestAdmission::test_draining_rank_admits_nothing[world=3-nccl]"
WIDTH = 80


def _text(renderable, **options) -> str:
    console = Console(width=WIDTH, record=True, file=open(os.devnull, "w"),  # noqa: SIM115
                      color_system=None)
    console.print(renderable, **options)
    console.file.close()
    return console.export_text()


def _check(text: str, ids: list[str], column: int | None = 0, what: str = "") -> None:
    assert not too_wide(text, WIDTH), f"{what}: lines wider than {WIDTH}:\n" + "\n".join(
        too_wide(text, WIDTH)) + "\n" + text
    problems = broken_ids(text, ids, column)
    assert not problems, f"{what}: ids broken:\n" + "\n".join(problems) + "\n" + text
    assert "…" not in text, f"{what}: something was cut with an ellipsis:\n{text}"


def _records():
    found = records()
    found[0] = replace(found[0], killed_by=[PARAM], owners=[PARAM, *found[0].owners])
    return found


def test_sweep_table_and_blocks_at_80_columns():
    _check(_text(verdict_table(_records(), WIDTH)), [*MUTANT_IDS, PARAM], what="sweep table")
    blocks = shortfall_report(_records(), width=WIDTH)
    shown = [r.id for r in _records() if r.verdict != "KILLED"]
    _check(blocks, shown, column=None, what="sweep shortfall blocks")


def test_sweep_auto_at_80_columns():
    base = _records()[0]
    auto = [replace(base, id=f"auto.{n}", verdict=verdict, killed_by=[PARAM] if n else [],
                    owners=[PARAM], detail={"auto": {
                        "path": "src/sched/scheduler_budget_mixin.py", "line": 212 + n,
                        "family": "comparison", "change": "a < b -> a <= b",
                        "catalog_entry": "[[mutant]]\nid = 'x'\n"}})
            for n, verdict in enumerate(("SURVIVED", "KILLED"))]
    result = SimpleNamespace(records=auto, generation=SimpleNamespace(suppressed=[]),
                             coverage_refresh=None, coverage=None)
    console = Console(width=WIDTH, record=True, file=open(os.devnull, "w"),  # noqa: SIM115
                      color_system=None)
    import deskcheck.mutants.auto.render as render

    original = render.headline
    render.headline = lambda _r: "deskcheck auto vs origin/main: 2 mutant(s) -> falls short"
    try:
        print_result(result, console)
    finally:
        render.headline = original
        console.file.close()
    text = console.export_text()
    table = text.split("(not shown")[0]
    _check(table, ["src/sched/scheduler_budget_mixin.py:212"], what="auto table")
    _check(table, [PARAM], column=2, what="auto table (killed by)")
    assert not too_wide(text, WIDTH), "\n".join(too_wide(text, WIDTH))


def test_history_at_80_columns(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    with Store.for_project(tmp_path) as store:
        for kind in ("sweep", "redfirst", "regress"):
            run = RunRecord(kind=kind, commit="3f2a9c1d0e4b" * 3, shard="2/4",
                            branch="feature/tp-ballot-with-a-long-branch-name", tier="DESK")
            store.finish_run(store.begin_run(run), "holds", {"tests": 12})
    capsys.readouterr()
    assert main(["history"]) == 0, "`deskcheck history` must exit 0"
    text = capsys.readouterr().out
    _check(text.split("(not shown")[0], ["redfirst", "regress"], column=1, what="history")
    assert "not shown at this width" in text, f"history dropped columns without a note:\n{text}"
    for header in ("run", "kind", "started", "status"):
        assert f" {header} " in text, f"history lost the {header!r} column:\n{text}"


def test_redfirst_at_80_columns():
    test = TestVerdict(id=PARAM, function=PARAM, change="added", base="failed",
                       branch="passed", verdict="RED_GREEN", pin=None,
                       detail="base: failed in call with AssertionError: rank 1 admitted 7; "
                              "branch: passed")
    context = {"ref": "origin/main", "merge_base": "a" * 40, "head": "b" * 40, "dirty": False}
    report = RedFirstReport(context=context, tests=[test], selected=[], changed_test_files=[],
                            strict=False)
    _check(redfirst_text(report, WIDTH), [PARAM], column=None, what="redfirst")


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "deskcheck", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": str(WIDTH)})
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.stdout


def test_standins_at_80_columns():
    text = _cli("standins", "examples/tp_scheduler/tests")
    assert not too_wide(text, WIDTH), "\n".join(too_wide(text, WIDTH)) + "\n" + text


def test_mutants_list_at_80_columns():
    text = _cli("mutants", "list", "--catalog", "examples/tp_scheduler/mutants.toml")
    ids = [line.split()[0] for line in text.splitlines() if line and not line[0].isspace()]
    owners = [line.strip() for line in text.splitlines() if line.startswith("      tests/")]
    assert ids and owners, text
    _check(text, ids, column=None, what="mutants list")
    catalog = json.dumps(ids)
    assert "ballot.M1.latch_restored" in catalog, (
        f"`mutants list` must list the id ballot.M1.latch_restored whole; ids: {ids}"
    )


def test_progress_bars_at_80_columns_keep_count_time_and_summaries_whole():
    import io
    import re

    from deskcheck.progress import ProgressReporter

    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, force_terminal=True, color_system=None)
    with ProgressReporter(console) as reporter:
        reporter.begin("m", "mutants", 168)
        reporter.update("m", completed=16, last="ballot.M2.recovery_edge_disabled KILLED "
                                                "and a long tail that cannot fit")
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
        assert "16/168" in shown and "0:00:00" in shown, (
            f"the running bar cut its count or its time at {WIDTH} columns:\n{shown!r}")
        reporter.end("m", "base: 168 mutants run in 20.1s, 3 failed", count=168)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
    assert "base: 168 mutants run in 20.1s, 3 failed\n" in text, (
        f"a finished step's summary is cut or shares a line:\n{text!r}")
