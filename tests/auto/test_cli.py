"""``deskcheck auto`` end to end on the fixture repository, and the ``sweep --auto`` wiring."""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.commands import register, run_auto
from tests.auto.fixture_repo import git

pytestmark = pytest.mark.xdist_group("auto-coverage")


def _processes_in(folder: Path) -> list[int]:
    found = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            if Path(cwd.readlink()) == folder:
                found.append(int(cwd.parent.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def auto_run(fixture_repo: Path, tmp_path_factory: pytest.TempPathFactory):
    repo = tmp_path_factory.mktemp("cli") / "repo"
    shutil.copytree(fixture_repo, repo)
    out = repo.parent
    done = subprocess.run(
        [sys.executable, "-m", "deskcheck.mutants.auto", "--changed-since", "main",
         "--json", str(out / "auto.json"), "--markdown", str(out / "auto.md"), "--workers", "2"],
        cwd=repo, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200"})
    return repo, done, json.loads((out / "auto.json").read_text()), (out / "auto.md").read_text()


def _by_target(report: dict) -> dict[str, dict]:
    return {m["target"].split(":")[1]: m for m in report["mutants"]}


def test_verdicts_for_every_changed_line_including_rank_only_code(auto_run):
    _, done, report, _ = auto_run
    assert done.returncode == 1, done.stdout + done.stderr  # a survivor and an uncovered line
    mutants = _by_target(report)
    assert set(mutants) == {"should_admit", "rank_pick", "clamp", "unused_helper", "scaled"}, (
        "--auto must make one mutant per changed function of the fixture branch; it made mutants "
        f"of {sorted(mutants)}"
    )
    assert mutants["should_admit"]["verdict"] == "KILLED", (
        f"should_admit's mutant must be KILLED; it was {mutants['should_admit']['verdict']}: "
        f"{mutants['should_admit'].get('excerpt')}"
    )
    assert mutants["rank_pick"]["verdict"] == "KILLED", (
        "rank_pick's mutant (rank-only code) must be KILLED; it was "
        f"{mutants['rank_pick']['verdict']}: {mutants['rank_pick'].get('excerpt')}"
    )
    assert mutants["rank_pick"]["killed_by"] == ["tests/test_ranks.py::test_ranks_agree"], (
        "rank_pick's mutant must be killed by tests/test_ranks.py::test_ranks_agree; killed_by is "
        f"{mutants['rank_pick']['killed_by']}"
    )
    assert mutants["rank_pick"]["owners"] == ["tests/test_ranks.py::test_ranks_agree"], (
        "rank_pick's owner must be the test that covers it, "
        f"tests/test_ranks.py::test_ranks_agree; owners are {mutants['rank_pick']['owners']}"
    )
    assert mutants["clamp"]["verdict"] == "SURVIVED", (
        "clamp's equivalent `<` -> `<=` mutant must be SURVIVED; it was "
        f"{mutants['clamp']['verdict']}"
    )  # `<` -> `<=` is equivalent here
    assert mutants["unused_helper"]["verdict"] == "NO_COVERAGE", (
        "unused_helper, which no test runs, must be NO_COVERAGE; it was "
        f"{mutants['unused_helper']['verdict']}"
    )
    # `scaled` is rebound to a functools.partial: the engine cannot resolve the target, the
    # mutant is BROKEN (named, with the engine's reason) and the others still ran
    assert mutants["scaled"]["verdict"] == "BROKEN", (
        "a target rebound to a functools.partial must be BROKEN; scaled was "
        f"{mutants['scaled']['verdict']}: {mutants['scaled'].get('excerpt')}"
    )
    assert "not a function" in mutants["scaled"]["excerpt"], (
        "the BROKEN excerpt must give the engine's reason ('not a function'); excerpt: "
        f"{mutants['scaled']['excerpt']!r}"
    )
    made = [f"{m['id']} {m['verdict']}" for m in report["mutants"]]
    assert report["counts"] == {"KILLED": 2, "SURVIVED": 1, "NO_COVERAGE": 1, "BROKEN": 1}, (
        "the fixture branch must give one mutant per changed mutable line (auto_max_per_line "
        "defaults to 1; arid lines such as `assert need >= 0` and logging calls get none): "
        f"KILLED 2, SURVIVED 1, NO_COVERAGE 1, BROKEN 1; got {report['counts']} from {made}")
    assert {s["reason"] for s in report["suppressed"]} >= {"logging call", "assert", "docstring"}, (
        "the report must list arid lines suppressed as logging call, assert and docstring; "
        f"suppressed: {report['suppressed']}"
    )


def test_survivors_are_printed_with_their_diff_and_a_catalog_entry(auto_run):
    _, done, _, markdown = auto_run
    assert "-    return x if x < hi else hi\n+    return x if x <= hi else hi" in done.stdout, (
        "a survivor must be printed with its diff (`<` -> `<=` in clamp); stdout: "
        f"{done.stdout[-1500:]}"
    )
    assert 'id = "decide.clamp.ror-lt-to-le"' in done.stdout, (
        "a survivor must be printed with a catalog entry id = \"decide.clamp.ror-lt-to-le\"; "
        f"stdout: {done.stdout[-1500:]}"
    )
    assert 'old = "return x if x < hi else hi"' in done.stdout, (
        "a survivor's catalog entry must carry old = \"return x if x < hi else hi\"; stdout: "
        f"{done.stdout[-1500:]}"
    )
    assert "### Survivors and uncovered lines, by file" in markdown, (
        "the --markdown report must have the section '### Survivors and uncovered lines, by "
        f"file'; it is {markdown[:1500]!r}"
    )
    assert "#### `fixpkg/decide.py`" in markdown, (
        "the --markdown report must head each file (#### `fixpkg/decide.py`); it is "
        f"{markdown[:1500]!r}"
    )
    assert markdown.index("**SURVIVED** line") < markdown.index("<summary>killed</summary>"), (
        "the --markdown report must list the SURVIVED lines before the folded killed ones; it is "
        f"{markdown[:1500]!r}"
    )


def test_nothing_is_written_to_the_checkout_but_the_store_and_no_process_is_left(auto_run):
    repo, _, _, _ = auto_run
    assert git(repo, "status", "--porcelain").splitlines() == [], (
        "the run left the checkout dirty (the store's folder ignores itself)")
    assert (repo / ".deskcheck" / ".gitignore").is_file(), (
        f"the store's folder must ignore itself with {repo / '.deskcheck' / '.gitignore'}, which "
        "is missing"
    )
    with sqlite3.connect(repo / ".deskcheck" / "results.sqlite") as db:
        kinds = [row[0] for row in db.execute("SELECT kind FROM runs")]
        verdicts = sorted(row[0] for row in db.execute("SELECT verdict FROM mutants"))
    assert kinds == ["auto"], (
        f"an --auto run must be recorded once with kind 'auto'; runs recorded: {kinds}"
    )
    assert len(verdicts) == 5, (
        f"the store must record the 5 mutants' verdicts; it recorded {verdicts}"
    )
    assert _processes_in(repo) == [], (
        f"the --auto run left processes running in the checkout: {_processes_in(repo)}"
    )


def test_sweep_parser_takes_the_auto_options_without_clashing():
    from deskcheck.mutants.commands import register as register_sweep

    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    register_sweep(subparsers)  # the sweep command itself carries the auto options
    args = parser.parse_args(["sweep", "--auto", "--changed-since", "main", "--workers", "2",
                              "--max-mutants", "5", "--json", "out.json"])
    assert (args.auto, args.changed_since, args.workers, args.max_mutants) == (
        True, "main", 2, 5), (
        "`sweep --auto --changed-since main --workers 2 --max-mutants 5` must parse; got "
        f"{(args.auto, args.changed_since, args.workers, args.max_mutants)}"
    )
    register(subparsers)
    args = parser.parse_args(["auto", "--changed-since", "origin/main", "--no-run"])
    assert args.func is run_auto and args.no_run, (
        "`auto --changed-since origin/main --no-run` must dispatch to run_auto with no_run set; "
        f"got func {args.func}, no_run {args.no_run}"
    )


def test_sweep_auto_dispatches_to_the_auto_sweep(monkeypatch):
    import deskcheck.mutants.auto.commands as auto_commands
    from deskcheck.cli import main

    seen = []
    monkeypatch.setattr(auto_commands, "run_auto", lambda args: seen.append(args) or 7)
    assert main(["sweep", "--auto", "--changed-since", "origin/main", "--no-run"]) == 7, (
        "`sweep --auto` must return the exit status of the auto sweep (7 here)"
    )
    (args,) = seen
    assert (args.auto, args.changed_since, args.no_run) == (True, "origin/main", True), (
        "`sweep --auto` must hand its options to the auto sweep; got "
        f"{(args.auto, args.changed_since, args.no_run)}"
    )


def test_auto_without_a_base_ref_is_a_usage_error():
    with pytest.raises(ConfigError) as caught:
        run_auto(argparse.Namespace(auto=True, changed_since=None))
    assert "--changed-since" in caught.value.render(), (
        "--auto without a base ref must say to give --changed-since; it says "
        f"{caught.value.render()!r}"
    )


def test_a_branch_without_production_changes_holds_without_running_anything(
        fixture_repo: Path, capsys: pytest.CaptureFixture[str]):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["auto", "--changed-since", "HEAD", "--root", str(fixture_repo),
                              "--no-store"])
    assert run_auto(args) == 0, "a branch without production changes must hold (exit 0)"
    out = capsys.readouterr().out
    assert "0 changed production line(s)" in out and "0 mutant(s)" in out, (
        "a branch without production changes must report '0 changed production line(s)' and '0 "
        f"mutant(s)'; it printed {out!r}"
    )
