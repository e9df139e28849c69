"""--changed-since: mutants whose target function or owners' test files changed since REF."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from deskcheck.errors import GitError
from deskcheck.report.changed import ChangesSince

MODULE = '''def queue_head_digest(rids, depth=4):
    head = rids[:depth]
    return hash(tuple(head)) if head else 0


def batch_decision(local_limit, group_min):
    return min(local_limit, group_min)
'''


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repo whose `main` has the module and a test; HEAD is a branch off it."""
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "t@example.com")
    _git(tmp_path, "config", "user.name", "t")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text("def test_digest():\n    pass\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    _git(tmp_path, "checkout", "-q", "-b", "feature")
    return tmp_path


def test_only_the_changed_function_counts(repo: Path):
    module = repo / "pkg" / "mod.py"
    module.write_text(MODULE.replace("min(local_limit, group_min)", "min(group_min, local_limit)")
                      + "\n\ndef added():\n    return 1\n")
    changes = ChangesSince(repo, "main")
    assert changes.function_changed(Path("pkg/mod.py"), "pkg.mod:batch_decision"), (
        "batch_decision changed since the base, yet function_changed called it unchanged"
    )
    assert not changes.function_changed(Path("pkg/mod.py"), "pkg.mod:queue_head_digest"), (
        "queue_head_digest is untouched since the base, yet function_changed called it changed"
    )
    assert changes.function_changed(module, "pkg.mod:added"), (
        "a function added since the base (pkg.mod:added) must count as changed"
    )  # new since the base
    assert changes.file_changed(Path("pkg/mod.py")), (
        "pkg/mod.py changed since the base, yet file_changed called it unchanged"
    )
    assert not changes.file_changed(Path("tests/test_mod.py")), (
        "tests/test_mod.py is untouched since the base, yet file_changed called it changed"
    )
    assert not changes.mutant_affected(Path("pkg/mod.py"), "pkg.mod:queue_head_digest",
                                       [Path("tests/test_mod.py")]), (
        "a mutant of an unchanged function whose owner file is unchanged was called affected"
    )


def test_a_committed_owner_change_affects_its_mutants(repo: Path):
    (repo / "tests" / "test_mod.py").write_text("def test_digest():\n    assert 1\n")
    _git(repo, "commit", "-q", "-am", "stronger test")
    changes = ChangesSince(repo, "main")
    assert changes.mutant_affected(Path("pkg/mod.py"), "pkg.mod:queue_head_digest",
                                   [repo / "tests" / "test_mod.py"]), (
        "a committed change to the owner file tests/test_mod.py must make its mutants affected"
    )
    # a change on main after the branch point is not the branch's change
    _git(repo, "checkout", "-q", "main")
    (repo / "pkg" / "mod.py").write_text(MODULE.replace("depth=4", "depth=8"))
    _git(repo, "commit", "-q", "-am", "main moves on")
    _git(repo, "checkout", "-q", "feature")
    assert not ChangesSince(repo, "main").function_changed(Path("pkg/mod.py"),
                                                          "pkg.mod:queue_head_digest"), (
        "against main itself nothing changed, yet queue_head_digest was called changed"
    )


def test_unknown_ref_and_no_repo_are_git_errors_with_the_fix(repo: Path, tmp_path_factory):
    with pytest.raises(GitError) as caught:
        ChangesSince(repo, "origin/nope")
    assert "origin/nope" in caught.value.render() and "git fetch origin" in caught.value.render(), (
        "an unknown ref must be a git error naming origin/nope and the fix `git fetch origin`; it "
        f"says: {caught.value.render()!r}"
    )
    elsewhere = tmp_path_factory.mktemp("not-a-repo")
    with pytest.raises(GitError, match="needs a git repository"):
        ChangesSince(elsewhere, "main")
