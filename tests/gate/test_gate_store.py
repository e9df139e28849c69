"""Gate runs are recorded in the results store by default (`--no-store` opts out), listed by
`deskcheck history --kind redfirst|regress`; an empty listing says so and how to record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import build_parser, main

from .gitproject import GitProject

CODE_BASE = "def clamp(x):\n    return x\n"
CODE_FIXED = "def clamp(x):\n    return max(0, x)\n"
TEST = "from calc import clamp\n\n\ndef test_clamp_negative():\n    assert clamp(-1) == 0\n"


def _project(root: Path) -> GitProject:
    project = GitProject(root)
    project.write("pyproject.toml", '[project]\nname = "calc"\nversion = "0"\n')
    project.write(".gitignore", ".deskcheck/\n__pycache__/\n")
    project.write("calc/__init__.py", CODE_BASE)
    project.write("tests/test_seed.py", "def test_seed():\n    pass\n")
    project.commit("base")
    project.git("checkout", "-q", "-b", "pr")
    project.write("calc/__init__.py", CODE_FIXED)
    project.write("tests/test_clamp.py", TEST)
    project.commit("clamp")
    return project


def _history(kind: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["history", "--kind", kind, "--json", "-"]) == 0, (
        f"`deskcheck history --kind {kind} --json -` must exit 0; it said:\n{capsys.readouterr()}"
    )
    return json.loads(capsys.readouterr().out)


def test_gate_runs_are_recorded_unless_no_store(tmp_path: Path, monkeypatch, capsys):
    project = _project(tmp_path / "repo")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    assert main(["redfirst", "--base", "main"]) == 0, (
        f"`deskcheck redfirst --base main` must exit 0 (holds); it said:\n{capsys.readouterr()}"
    )
    assert "recorded as run" in capsys.readouterr().err, (
        "a recorded gate run must say 'recorded as run' on stderr"
    )
    runs = _history("redfirst", capsys)
    assert len(runs) == 1, f"the redfirst run was not recorded in the store: {runs}"
    assert runs[0]["status"] == "holds" and runs[0]["summary"]["tests"] == 1, runs[0]
    assert main(["regress", "--base", "main", "--no-store"]) == 0, (
        "`deskcheck regress --base main --no-store` must exit 0 (holds); it said:\n"
        f"{capsys.readouterr()}"
    )
    assert _history("regress", capsys) == [], "--no-store still recorded the regress run"
    assert main(["regress", "--base", "main"]) == 0, (
        f"`deskcheck regress --base main` must exit 0 (holds); it said:\n{capsys.readouterr()}"
    )
    assert len(_history("regress", capsys)) == 1, "the regress run was not recorded"
    capsys.readouterr()
    assert main(["history"]) == 0, (
        f"`deskcheck history` must exit 0; it said:\n{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    assert "redfirst" in out and "regress" in out, f"history does not list the gate runs:\n{out}"


def test_an_empty_listing_says_so_and_how_to_record(tmp_path: Path, monkeypatch, capsys):
    project = _project(tmp_path / "repo")
    monkeypatch.chdir(project.root)
    from deskcheck.report import RunRecord, Store

    with Store.for_project(project.root) as store:
        store.finish_run(store.begin_run(RunRecord(kind="sweep")), "holds")
    capsys.readouterr()
    assert main(["history", "--kind", "redfirst"]) == 0, (
        "`deskcheck history --kind redfirst` with no such runs must exit 0; it said:\n"
        f"{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    assert "no redfirst runs recorded" in out and "--no-store" in out, (
        f"an empty `history --kind redfirst` does not say so:\n{out}")
    assert "┏" not in out, f"an empty table was printed:\n{out}"


@pytest.mark.parametrize("command", ["redfirst", "regress"])
def test_help_says_how_gate_runs_are_recorded(command: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    text = sub.choices[command].format_help()
    assert "--no-store" in text and f"history --kind {command}" in text, text
