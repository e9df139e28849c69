"""docs/gate.md: the next gate removes the scratch worktree and folder of every owner that is
gone; a folder without the owner marker, or with a live owner, is never touched. Pure
``reap_stale_scratch`` checks on a real repository (no gate run, no pytest child)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from deskcheck.gate.git import GitRepo
from deskcheck.gate.worktree import reap_stale_scratch
from deskcheck.liveness import process_token
from deskcheck.scratch import OWNER_FILE
from tests.gate.gitproject import GitProject

DEAD_OWNER = {"pid": 999_999_999, "token": ""}


def _repo(root: Path) -> GitProject:
    project = GitProject(root)
    project.write("calc/__init__.py", "")
    project.commit("base")
    return project


def _registered(project: GitProject, folder: Path, owner: dict | None) -> Path:
    """A scratch worktree registered in ``project`` inside ``folder`` (marked by ``owner``)."""
    folder.mkdir(parents=True)
    if owner is not None:
        (folder / OWNER_FILE).write_text(json.dumps(owner), encoding="utf-8")
    tree = folder / "base"
    project.git("worktree", "add", "-q", "--detach", str(tree), "HEAD")
    return tree


def _registered_trees(project: GitProject) -> list[str]:
    listed = project.git("worktree", "list", "--porcelain")
    return [ln.split(" ", 1)[1] for ln in listed.splitlines() if ln.startswith("worktree ")][1:]


@pytest.mark.parametrize("who", ["a live owner", "no owner marker"])
def test_a_registered_scratch_worktree_of_a_live_or_unmarked_folder_is_never_touched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, who: str) -> None:
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path / "scratch"))
    project = _repo(tmp_path / "repo")
    owner = ({"pid": os.getpid(), "token": process_token(os.getpid())}
             if who == "a live owner" else None)
    tree = _registered(project, tmp_path / "elsewhere" / "deskcheck-gate-kept", owner)
    removed = reap_stale_scratch(GitRepo(project.root))
    assert not removed and tree.is_dir() and _registered_trees(project) == [str(tree)], (
        f"docs/gate.md: a scratch folder with {who} is never touched; the reaper removed "
        f"{removed}, the worktree exists: {tree.is_dir()}, registered: "
        f"{_registered_trees(project)}")


def test_a_dead_owners_registered_worktree_is_removed_and_pruned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path / "scratch"))
    project = _repo(tmp_path / "repo")
    folder = tmp_path / "elsewhere" / "deskcheck-gate-killed"
    _registered(project, folder, DEAD_OWNER)
    removed = reap_stale_scratch(GitRepo(project.root))
    assert removed == [folder] and not folder.exists() and _registered_trees(project) == [], (
        f"docs/gate.md: the next gate removes the worktree and folder of an owner that is gone "
        f"(`git worktree remove --force`, then `prune`); it removed {removed}, the folder "
        f"exists: {folder.exists()}, still registered: {_registered_trees(project)}")


def test_a_dead_owners_unregistered_scratch_folder_is_removed_and_others_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(scratch))
    project = _repo(tmp_path / "repo")
    dead = scratch / "deskcheck-gate-dead"
    unmarked = scratch / "deskcheck-gate-unmarked"
    other = scratch / "deskcheck-sweep-dead"
    for folder in (dead, unmarked, other):
        folder.mkdir(parents=True)
    for folder in (dead, other):
        (folder / OWNER_FILE).write_text(json.dumps(DEAD_OWNER), encoding="utf-8")
    removed = reap_stale_scratch(GitRepo(project.root))
    assert removed == [dead] and unmarked.is_dir() and other.is_dir(), (
        f"docs/gate.md: only a gate folder of a dead owner is removed (not one without the "
        f"marker, nor another kind's folder); removed {removed}, unmarked kept: "
        f"{unmarked.is_dir()}, the sweep's folder kept: {other.is_dir()}")


def test_the_next_gate_says_in_its_notes_what_it_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deskcheck.gate.worktree import gate_scratch

    scratch = tmp_path / "scratch"
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(scratch))
    project = _repo(tmp_path / "repo")
    dead = scratch / "deskcheck-gate-dead"
    dead.mkdir(parents=True)
    (dead / OWNER_FILE).write_text(json.dumps(DEAD_OWNER), encoding="utf-8")
    notes: list[str] = []
    with gate_scratch(GitRepo(project.root), notes) as folder:
        assert folder.parent == scratch and folder.name.startswith("deskcheck-gate-"), (
            f"docs/gate.md: scratch folders go under $DESKCHECK_SCRATCH_DIR when set; this "
            f"gate's is {folder}")
        assert (folder / OWNER_FILE).is_file(), (
            f"docs/gate.md: the scratch folder carries an owner marker ({OWNER_FILE}); "
            f"{folder} has none")
    assert notes == [f"removed {dead}, left by a gate that was killed (SIGKILL)"], (
        f"docs/gate.md: the next gate removes what a dead owner left and says so in its "
        f"notes; the notes are {notes}")
    assert not folder.exists(), f"the gate's own scratch folder {folder} outlived it"


@pytest.mark.parametrize("raised", [KeyboardInterrupt, RuntimeError])
def test_the_scratch_worktree_is_removed_and_pruned_however_the_gate_ends(
        tmp_path: Path, raised: type[BaseException]) -> None:
    from deskcheck.gate.worktree import scratch_worktree

    project = _repo(tmp_path / "repo")
    parent = tmp_path / "scratch"
    parent.mkdir()
    with pytest.raises(raised):
        with scratch_worktree(GitRepo(project.root), "HEAD", parent) as tree:
            assert _registered_trees(project) == [str(tree)], "the worktree was not added"
            raise raised()
    assert not tree.exists() and _registered_trees(project) == [], (
        f"docs/gate.md: the scratch worktree is removed and pruned even on Ctrl-C; after a "
        f"{raised.__name__} the folder exists: {tree.exists()}, registered: "
        f"{_registered_trees(project)}")
