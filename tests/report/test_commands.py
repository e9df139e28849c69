"""The CLI: history, diff, merge and report, as a user types them."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


@pytest.fixture
def two_nights(project: Path, store: Store, recorded_run: int, mutants) -> tuple[int, int]:
    """Last night (every verdict) and tonight, where ballot.M1 turned into a survivor."""
    tonight = store.begin_run(RunRecord(kind="sweep", commit="9d8e7f6a5b4c"))
    for mutant in mutants:
        verdict = "SURVIVED" if mutant.id == "ballot.M1" else mutant.verdict
        store.record_mutant(tonight, MutantRecord(**{**mutant.to_json(), "verdict": verdict}))
    store.finish_run(tonight, "falls_short")
    return recorded_run, tonight


def test_history_lists_runs_from_the_project_store(project: Path, two_nights, monkeypatch,
                                                   capsys):
    monkeypatch.chdir(project)
    assert main(["history", "--json", "-"]) == 0, (
        "`deskcheck history --json -` must exit 0 in a project with a store; it said:\n"
        f"{capsys.readouterr()}"
    )
    runs = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in runs] == list(two_nights), (
        f"history must list the runs {list(two_nights)} oldest first; it listed "
        f"{[r['id'] for r in runs]}"
    )
    assert runs[1]["commit"] == "9d8e7f6a5b4c" and runs[1]["summary"]["counts"]["SURVIVED"] == 2, (
        f"history must show tonight's commit 9d8e7f6a5b4c and 2 SURVIVED; it shows {runs[1]}"
    )
    assert main(["history", "--kind", "sweep", "--count"]) == 0, (
        f"`deskcheck history --kind sweep --count` must exit 0; it said:\n{capsys.readouterr()}"
    )
    assert capsys.readouterr().out.strip() == "2", (
        "`history --kind sweep --count` must print 2 (the two recorded sweeps)"
    )
    assert main(["history"]) == 0, (
        "`deskcheck history` must exit 0 in a project with a store; it said:\n"
        f"{capsys.readouterr()}"
    )
    assert "9d8e7f6a5b4c" in capsys.readouterr().out, (
        "the history table must show the commit 9d8e7f6a5b4c of tonight's run"
    )


def test_diff_exits_1_when_tonight_got_worse(project: Path, two_nights, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["diff", "latest~1", "latest", "--format", "json"]) == 1, (
        "`deskcheck diff latest~1 latest` must exit 1 when a new survivor appeared; it said:\n"
        f"{capsys.readouterr()}"
    )
    diff = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in diff["new_survivors"]] == ["ballot.M1"], (
        "diff must name ballot.M1 as the only new survivor; it named "
        f"{[c['id'] for c in diff['new_survivors']]}"
    )
    assert main(["diff", "latest", "latest"]) == 0, (
        "`deskcheck diff latest latest` must exit 0: nothing got worse; it said:\n"
        f"{capsys.readouterr()}"
    )
    assert "nothing got worse" in capsys.readouterr().out, (
        "diff of a run with itself must say 'nothing got worse'"
    )
    out = project / "diff.md"
    assert main(["diff", str(two_nights[0]), str(two_nights[1]), "--format", "markdown",
                 "--output", str(out)]) == 1, (
        "`deskcheck diff A B --format markdown --output F` must exit 1 when a new survivor "
        f"appeared; it said:\n{capsys.readouterr()}"
    )
    assert "### New survivors (1)" in out.read_text(), (
        "the markdown diff must have the heading '### New survivors (1)'; it is: "
        f"{out.read_text()[:300]!r}"
    )


@pytest.mark.parametrize("fmt", ["json", "junit", "markdown", "stryker", "html", "terminal"])
def test_report_writes_each_format(project: Path, two_nights, monkeypatch, fmt, mutants):
    monkeypatch.chdir(project)
    out = project / "out" / f"report.{fmt}"
    assert main(["report", "latest~1", "--format", fmt, "--output", str(out)]) == 0, (
        f"`deskcheck report latest~1 --format {fmt} --output F` must exit 0"
    )
    text = out.read_text()
    assert all(m.id in text for m in mutants), (
        f"the {fmt} report must name every mutant; it lacks "
        f"{[m.id for m in mutants if m.id not in text]}"
    )
    if fmt == "junit":
        assert ET.fromstring(text).find("testsuite").get("tests") == str(len(mutants)), (
            f"the junit testsuite must count {len(mutants)} tests; it says "
            f"{ET.fromstring(text).find('testsuite').get('tests')}"
        )


def test_report_in_a_project_without_store_says_what_to_do(tmp_path: Path, monkeypatch,
                                                           capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report"]) == 2, (
        "`deskcheck report` without a results store must exit 2 (usage error); it said:\n"
        f"{capsys.readouterr()}"
    )
    err = capsys.readouterr().err
    assert "no results store at" in err and "run `deskcheck sweep` first" in err, (
        "without a store, report must say 'no results store at' and 'run `deskcheck sweep` "
        f"first'; it said: {err!r}"
    )
    assert not (tmp_path / ".deskcheck").exists(), (
        "`deskcheck report` created a .deskcheck store: reading must never create one"
    )  # reading never creates a store


def test_bad_run_selector_is_a_usage_error(project: Path, two_nights, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["report", "last-tuesday"]) == 2, (
        "an unknown run selector 'last-tuesday' must exit 2 (usage error); it said:\n"
        f"{capsys.readouterr()}"
    )
    assert "latest~N" in capsys.readouterr().err, (
        "the error for a bad run selector must name the form latest~N"
    )


def test_merge_command_and_the_console_script(project: Path, mutants, tmp_path: Path,
                                              capsys):
    shard_paths = []
    for index in (1, 2):
        path = tmp_path / f"shard{index}" / "results.sqlite"
        with Store(path) as shard:
            run_id = shard.begin_run(RunRecord(kind="sweep", commit="c1", shard=f"{index}/2"))
            for mutant in mutants[index - 1::2]:
                shard.record_mutant(run_id, mutant)
            shard.finish_run(run_id, "falls_short")
        shard_paths.append(str(path))
    into = project / ".deskcheck" / "results.sqlite"
    done = subprocess.run([sys.executable, "-m", "deskcheck.cli", "merge", *shard_paths,
                           "--into", str(into)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr  # merged run falls short (it has survivors)
    assert f"merged 2 stores into run 1 of {into}: {len(mutants)} mutants" in done.stdout, (
        f"merge must say 'merged 2 stores into run 1 of {into}: {len(mutants)} mutants'; it said: "
        f"{done.stdout!r}"
    )
    with Store(into) as store:
        assert {m.id for m in store.mutants(1)} == {m.id for m in mutants}, (
            "the merged store must hold every mutant of both shards; it holds "
            f"{sorted(m.id for m in store.mutants(1))}"
        )
    assert main(["merge", shard_paths[0], "--into", shard_paths[0]]) == 2, (
        "merge with --into one of its own stores must exit 2 (usage error); it said:\n"
        f"{capsys.readouterr()}"
    )
    assert "--into is one of the stores" in capsys.readouterr().err, (
        "merge --into one of its input stores must say '--into is one of the stores'"
    )
    again = project / "again.sqlite"
    assert main(["merge", *shard_paths, "--into", str(again), "--json", "-"]) == 1, (
        "merge --json - of shards with survivors must exit 1 (the merged run falls short); it "
        f"said:\n{capsys.readouterr()}"
    )
    merged = json.loads(capsys.readouterr().out)
    assert merged["run"]["summary"]["total"] == len(mutants) and merged["into"] == str(again), (
        f"the merge JSON must count {len(mutants)} mutants and name into={again}; it is {merged}"
    )


def test_the_store_key_of_the_config_moves_the_store(project: Path, mutants, monkeypatch,
                                                     capsys):
    (project / "pyproject.toml").write_text('[tool.deskcheck]\nstore = "var/dc.sqlite"\n')
    with Store.for_project(project) as store:
        assert store.path == project / "var" / "dc.sqlite", (
            "the config key store = \"var/dc.sqlite\" must move the store there; it is at "
            f"{store.path}"
        )
        run_id = store.begin_run(RunRecord(kind="sweep"))
        store.record_mutant(run_id, mutants[0])
    monkeypatch.chdir(project / "pkg")  # any folder inside the project
    assert main(["history", "--count"]) == 0, (
        "`deskcheck history --count` must exit 0 from a folder inside the project; it said:\n"
        f"{capsys.readouterr()}"
    )
    assert capsys.readouterr().out.strip() == "1", (
        "`history --count` must print 1: the one run in the store named by the config"
    )
    assert not (project / ".deskcheck").exists(), (
        "a .deskcheck store was created although the config moves the store to var/dc.sqlite"
    )
