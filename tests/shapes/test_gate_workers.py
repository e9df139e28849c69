"""Issue 30, case 8: ``regress`` without ``-n`` chooses its xdist workers from the measured suite
time, and says so."""

from __future__ import annotations

import json
import subprocess

from deskcheck.cli import main
from deskcheck.gate.workers import choose
from tests.shapes.projects import escape_project


def test_the_choice_follows_the_suite_time() -> None:
    short = choose(3.2, "in-process on base", cpus=8)
    assert short.workers == 0 and "3.2 s" in short.reason, (
        f"a 3 s suite must run in-process, said with its time: {short}")
    long = choose(45.0, "in-process on base", cpus=4)
    assert long.workers == 4 and "-n 4 chosen" in long.reason, f"45 s on 4 CPUs: {long}"
    assert choose(600.0, "x", cpus=64).workers == 8, "the workers are capped"
    assert choose(600.0, "x", cpus=1).workers == 0, "one CPU: no xdist"


def test_regress_without_n_says_its_choice_and_keeps_the_tree_clean(tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    out = tmp_path / "r.json"
    main(["regress", "--base", "main", "--no-rerun", "--json", str(out)])
    report = json.loads(out.read_text())
    chosen = [n for n in report["notes"] if "chosen" in n]
    assert chosen and chosen[0].startswith("-n 0 chosen: the suite ran in"), (
        f"regress chose no workers or did not say so: {report['notes']}")
    assert report["context"]["workers"] == 0, (
        f"regress must record the workers it chose (0) in the context; context: {report['context']}"
    )
    main(["regress", "--base", "main", "--no-rerun", "--json", str(out)])
    again = json.loads(out.read_text())
    assert any("on the last regress here" in n for n in again["notes"]), (
        f"the second run did not use the measured time: {again['notes']}")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project.root,
                            capture_output=True, text=True, check=True).stdout
    assert status == "", f"the kept timing dirtied the tree: {status}"
