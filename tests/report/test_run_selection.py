"""Which run, which kind, how many: ``history --limit``, the RUN argument of ``results`` and
``report``, ``results --all`` and ``--kind`` of results/report/diff, each ignored fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


@pytest.fixture
def nights(project: Path, store: Store, recorded_run: int, mutants, monkeypatch) -> list[int]:
    """Last night's sweep (ballot.M1 KILLED), tonight's sweep (ballot.M1 SURVIVED), then an
    auto run holding ballot.M1 only; the cwd is the project."""
    tonight = store.begin_run(RunRecord(kind="sweep", commit="9d8e7f6a5b4c"))
    for mutant in mutants:
        verdict = "SURVIVED" if mutant.id == "ballot.M1" else mutant.verdict
        store.record_mutant(tonight, MutantRecord(**{**mutant.to_json(), "verdict": verdict}))
    store.finish_run(tonight, "falls_short")
    auto = store.begin_run(RunRecord(kind="auto", commit="aaaaaaaaaaaa"))
    store.record_mutant(auto, MutantRecord(**{**mutants[0].to_json(), "verdict": "KILLED"}))
    store.finish_run(auto, "holds")
    monkeypatch.chdir(project)
    return [recorded_run, tonight, auto]


def _listed(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines() if line.strip()}


def test_history_limit_keeps_the_newest_runs(nights, capsys):
    assert main(["history", "--limit", "2", "--json", "-"]) == 0, (
        f"`deskcheck history --limit 2 --json -` must exit 0; it said:\n{capsys.readouterr()}"
    )
    shown = [run["id"] for run in json.loads(capsys.readouterr().out)]
    assert shown == nights[1:], f"expected only the newest 2 runs {nights[1:]}, got {shown}"


def test_results_lists_the_run_it_is_given(nights, capsys):
    main(["results", "latest"])
    tonight = _listed(capsys.readouterr().out)
    main(["results", "latest~1"])
    last_night = _listed(capsys.readouterr().out)
    assert (tonight.get("ballot.M1"), last_night.get("ballot.M1")) == ("SURVIVED", None), (
        "expected `results latest` (tonight's sweep) to list ballot.M1 SURVIVED and `results "
        f"latest~1` (last night, KILLED) to leave it out, got {tonight.get('ballot.M1')} and "
        f"{last_night.get('ballot.M1')}")


def test_results_all_lists_the_holding_mutants_too(nights, capsys):
    main(["results", "latest~1"])
    short = _listed(capsys.readouterr().out)
    main(["results", "latest~1", "--all"])
    every = _listed(capsys.readouterr().out)
    assert ("ballot.M1" not in short, every.get("ballot.M1")) == (True, "KILLED"), (
        f"expected the KILLED ballot.M1 only under --all, got {short} and {every}")


def test_kind_picks_latest_among_runs_of_that_kind(nights, capsys):
    main(["results", "latest", "--kind", "auto"])
    auto = _listed(capsys.readouterr().out)
    assert main(["results", "latest", "--kind", "auto", "--all"]) == 0, (
        f"`deskcheck results latest --kind auto --all` must exit 0; it said:\n{capsys.readouterr()}"
    )
    assert set(_listed(capsys.readouterr().out)) == {"ballot.M1"} and not auto, (
        "expected `results --kind auto` to judge the auto run (one KILLED mutant), not a sweep")
    out = Path("report.json")
    assert main(["report", "latest", "--kind", "sweep", "--format", "json",
                 "--output", str(out)]) == 0, (
        "`deskcheck report latest --kind sweep --format json --output F` must exit 0; it said:\n"
        f"{capsys.readouterr()}"
    )
    report = json.loads(out.read_text())
    assert len(report["mutants"]) > 1, (
        "expected `report latest --kind sweep` to report tonight's sweep, not the newer auto run")
    assert main(["report", "latest~2", "--format", "json", "--output", str(out)]) == 0, (
        "`deskcheck report latest~2 --format json --output F` must exit 0; it said:\n"
        f"{capsys.readouterr()}"
    )
    first = json.loads(out.read_text())
    assert first["run"]["id"] == nights[0], (
        f"expected `report latest~2` to report run {nights[0]}, got {first['run']['id']}")
    code = main(["diff", "latest~1", "latest", "--kind", "sweep", "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    assert (code, [c["id"] for c in diff["new_survivors"]]) == (1, ["ballot.M1"]), (
        "expected `diff latest~1 latest --kind sweep` to compare the two sweeps (ballot.M1 "
        f"turned SURVIVED), got {diff['new_survivors']}")


def test_db_reads_the_store_it_names_from_anywhere(nights, project, tmp_path, monkeypatch,
                                                   capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pyproject.toml").write_text('[project]\nname = "other"\n')
    monkeypatch.chdir(elsewhere)  # a project without a store
    db = str(project / ".deskcheck" / "results.sqlite")
    code = main(["diff", "latest~1", "latest", "--db", db, "--kind", "sweep", "--format", "json"])
    diff = json.loads(capsys.readouterr().out) if code != 2 else {}
    assert [c["id"] for c in diff.get("new_survivors", [])] == ["ballot.M1"], (
        f"expected `diff --db {db}` to compare that store's two sweeps, got exit {code}")


def test_merge_kind_takes_the_runs_of_that_kind(mutants, tmp_path, capsys):
    shards = []
    for index in (1, 2):
        path = tmp_path / f"shard{index}.sqlite"
        with Store(path) as shard:
            run_id = shard.begin_run(RunRecord(kind="auto", commit="c1", shard=f"{index}/2"))
            for mutant in mutants[index - 1::2]:
                shard.record_mutant(run_id, mutant)
            shard.finish_run(run_id, "falls_short")
        shards.append(str(path))
    sweep_code = main(["merge", *shards, "--into", str(tmp_path / "a.sqlite")])
    capsys.readouterr()
    auto_code = main(["merge", *shards, "--into", str(tmp_path / "b.sqlite"), "--kind", "auto",
                      "--json", "-"])
    merged = json.loads(capsys.readouterr().out) if auto_code != 2 else {}
    assert (sweep_code, merged.get("run", {}).get("kind")) == (2, "auto"), (
        "expected the default (sweep) merge of two auto shards to be a usage error and "
        f"`--kind auto` to merge them into an auto run; got exit {sweep_code}, then {merged}")


@pytest.mark.parametrize("kind", ["sweep", "auto"])
def test_history_kind_lists_only_the_runs_of_that_kind_oldest_first(nights, capsys, kind):
    wanted = nights[:2] if kind == "sweep" else nights[2:]
    assert main(["history", "--kind", kind, "--json", "-"]) == 0, (
        f"`deskcheck history --kind {kind} --json -` must exit 0; it said:\n{capsys.readouterr()}")
    shown = [(run["id"], run["kind"]) for run in json.loads(capsys.readouterr().out)]
    assert shown == [(i, kind) for i in wanted], (
        f"docs/report.md: `history --kind {kind}` lists the {kind} runs, oldest first "
        f"{wanted}; it listed {shown}")
    assert main(["history", "--kind", kind, "--count"]) == 0
    counted = capsys.readouterr().out.strip()
    assert counted == str(len(wanted)), (
        f"`history --kind {kind} --count` must count the {len(wanted)} {kind} run(s); it "
        f"printed {counted!r}")


def test_history_kind_and_limit_keep_the_newest_runs_of_that_kind(nights, capsys):
    assert main(["history", "--kind", "sweep", "--limit", "1", "--json", "-"]) == 0
    shown = [run["id"] for run in json.loads(capsys.readouterr().out)]
    assert shown == [nights[1]], (
        f"`history --kind sweep --limit 1` must list the newest sweep {nights[1]} (not the "
        f"newer auto run {nights[2]}); it listed {shown}")


@pytest.mark.parametrize(("kind", "said"), [
    ("sweep", "no sweep runs recorded in .deskcheck/results.sqlite (`deskcheck sweep` records "
              "each sweep unless --no-store)"),
    ("regress", "no regress runs recorded in .deskcheck/results.sqlite (`deskcheck regress` "
                "records each run unless --no-store)"),
    ("auto", "no auto runs recorded in .deskcheck/results.sqlite (`deskcheck sweep --auto` "
             "records each run unless --no-store)")])
def test_an_empty_history_says_so_and_how_runs_of_that_kind_get_recorded(
        project: Path, store: Store, monkeypatch, capsys, kind: str, said: str):
    store.finish_run(store.begin_run(RunRecord(kind="redfirst")), "holds")
    monkeypatch.chdir(project)
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["history", "--kind", kind]) == 0, (
        f"an empty `history --kind {kind}` must exit 0; it said:\n{capsys.readouterr()}")
    out = capsys.readouterr().out.strip()
    assert out.splitlines()[0] == said, (
        f"docs/report.md: an empty listing says so and how runs of that kind get recorded; "
        f"`history --kind {kind}` said {out!r}, expected {said!r}")


def test_report_defaults_to_the_latest_run_in_the_terminal_format(nights, capsys,
                                                                   monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert main(["report"]) == 0, f"`deskcheck report` must exit 0; it said {capsys.readouterr()}"
    out = capsys.readouterr().out
    shown = out.lstrip()[:1]
    assert shown not in ("{", "<", "#") and "ballot.M1" in out and "ballot.M2" not in out, (
        f"docs/report.md: `deskcheck report` renders RUN = latest (the newest run: the auto run "
        f"holding ballot.M1 alone) in the terminal format by default; it printed:\n{out[:600]}")


def test_every_run_kind_history_accepts_is_one_a_command_records() -> None:
    """docs/report.md: an empty `history --kind K` says how runs of that kind get recorded, so
    every kind the options accept must be one that a deskcheck command records."""
    from deskcheck.report import RUN_KINDS
    from deskcheck.report.commands import HOW_TO_RECORD

    unrecorded = [k for k in RUN_KINDS if k not in HOW_TO_RECORD]
    assert not unrecorded, (
        f"`--kind` accepts {unrecorded}, which no deskcheck command records: an empty listing "
        "could not say how such runs get recorded (docs/report.md, history)")
