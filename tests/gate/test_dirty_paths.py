"""docs/gate.md, dirty working tree policy: uncommitted changes and untracked (not ignored)
files are part of the branch and named in ``dirty_paths``; deskcheck's own folder
(``.deskcheck/``) is never a change of the branch, even where no ``.gitignore`` leaves it out."""

from __future__ import annotations

from pathlib import Path

from deskcheck.gate.git import GitRepo
from tests.gate.gitproject import GitProject


def _project(root: Path) -> GitProject:
    project = GitProject(root)
    project.write("calc/__init__.py", "")
    project.write("calc/ops.py", "def add(a, b):\n    return a + b\n")
    project.write(".gitignore", "build/\n")
    project.commit("base")
    return project


def test_changes_and_untracked_files_are_dirty_and_deskchecks_own_folder_is_not(tmp_path):
    project = _project(tmp_path / "repo")
    project.write("calc/ops.py", "def add(a, b):\n    return b + a\n")
    project.write("notes.txt", "untracked\n")
    project.write("build/out.txt", "ignored\n")
    project.write(".deskcheck/results.sqlite", "store\n")  # no .gitignore of its own
    project.write("sub/.deskcheck/gate_timings.json", "{}\n")
    got = sorted(GitRepo(project.root).dirty_paths())
    assert got == ["calc/ops.py", "notes.txt"], (
        f"docs/gate.md: the dirty paths are the uncommitted change and the untracked, not "
        f"ignored, file; deskcheck's own .deskcheck/ is never one; they are {got}")


def test_a_clean_tree_has_no_dirty_paths(tmp_path):
    project = _project(tmp_path / "repo")
    project.write(".deskcheck/results.sqlite", "store\n")
    got = GitRepo(project.root).dirty_paths()
    assert got == [], (
        f"a tree whose only untracked files are deskcheck's own folder is clean; dirty paths "
        f"{got}")


def test_a_renamed_file_is_named_once_by_its_new_path(tmp_path):
    project = _project(tmp_path / "repo")
    project.git("mv", "calc/ops.py", "calc/arith.py")
    got = GitRepo(project.root).dirty_paths()
    assert got == ["calc/arith.py"], (
        f"a staged rename is one dirty path, the new one (not its source); they are {got}")
