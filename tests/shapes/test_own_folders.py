"""deskcheck's own folder never makes the tree dirty, and gates ignore it (issue 30, case 5)."""

from __future__ import annotations

import json
import subprocess

from deskcheck.cli import main
from deskcheck.report import Store
from tests.shapes.projects import escape_project


def _status(root) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                          capture_output=True, text=True, check=True).stdout


def test_the_store_folder_ignores_itself(tmp_path) -> None:
    project = escape_project(tmp_path / "repo")
    Store(project.root / ".deskcheck" / "results.sqlite", root=project.root).close()
    assert (project.root / ".deskcheck" / ".gitignore").read_text().strip().endswith("*"), (
        "the store folder has no .gitignore that ignores everything in it")
    assert _status(project.root) == "", f"the store made the tree dirty: {_status(project.root)}"


def test_gates_ignore_deskchecks_own_folder(tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo")
    (project.root / ".deskcheck").mkdir()  # as an older deskcheck left it: no .gitignore
    (project.root / ".deskcheck" / "results.sqlite").write_bytes(b"")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    out = tmp_path / "r.json"
    code = main(["redfirst", "--base", "main", "--require-clean", "--json", str(out)])
    report = json.loads(out.read_text())
    assert code != 2 and "error" not in report, (
        f"--require-clean refused the tree for deskcheck's own store: {report.get('error')}")
    assert report["context"]["dirty"] is False, "deskcheck's store counted as a dirty path"
