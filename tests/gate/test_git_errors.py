"""Every git precondition fails with a GitError that names the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.errors import GitError
from deskcheck.gate import run_redfirst, run_regress
from tests.gate.gitproject import GitProject
from tests.gate.scenario import build


def test_not_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError) as err:
        run_redfirst("main", cwd=tmp_path)
    assert "not a git repository" in err.value.message and "git init" in err.value.fix, (
        "outside a repository the gate must say 'not a git repository' with the fix git init; it "
        f"says {err.value.message!r}, fix {err.value.fix!r}"
    )


def test_unknown_ref(tmp_path: Path) -> None:
    project = build(tmp_path / "repo")
    with pytest.raises(GitError) as err:
        run_regress("no-such-branch", cwd=project.root)
    assert "unknown ref 'no-such-branch'" in err.value.message, (
        f"an unknown base must say unknown ref 'no-such-branch'; it says {err.value.message!r}"
    )
    assert "git fetch origin no-such-branch" in err.value.fix, (
        "the fix for an unknown ref must be git fetch origin no-such-branch; it is "
        f"{err.value.fix!r}"
    )


def test_shallow_clone_says_fetch_depth_zero(tmp_path: Path) -> None:
    origin = build(tmp_path / "origin")
    shallow = tmp_path / "shallow"
    origin.git("clone", "-q", "--depth", "1", "--branch", "feature",
               f"file://{origin.root}", str(shallow))
    clone = GitProject.__new__(GitProject)
    clone.root = shallow
    clone.git("fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    with pytest.raises(GitError) as err:
        run_redfirst("origin/main", cwd=shallow)
    assert "shallow clone" in err.value.message, (
        f"a shallow clone must be named as one; the error says {err.value.message!r}"
    )
    assert "fetch-depth: 0" in err.value.fix, (
        f"the fix for a shallow clone must say fetch-depth: 0; it is {err.value.fix!r}"
    )
    with pytest.raises(GitError) as err:
        run_redfirst("origin/unfetched", cwd=shallow)
    assert "fetch-depth: 0" in err.value.fix, (
        "the fix for an unfetched ref in a shallow clone must say fetch-depth: 0; it is "
        f"{err.value.fix!r}"
    )


def test_dirty_tree_is_refused_only_on_request(tmp_path: Path, capsys) -> None:
    project = build(tmp_path / "repo")
    project.write("calc/ops.py", "def add(a, b):\n    return 0\n")
    with pytest.raises(GitError) as err:
        run_redfirst("main", cwd=project.root, require_clean=True)
    assert "dirty" in err.value.message and "--require-clean" in err.value.fix, (
        "--require-clean on a dirty tree must say dirty and name --require-clean in the fix; it "
        f"says {err.value.message!r}, fix {err.value.fix!r}"
    )
    assert "calc/ops.py" in err.value.message, (
        "the dirty-tree error must name the changed file calc/ops.py; it says "
        f"{err.value.message!r}"
    )


def test_cli_prints_the_error_with_its_fix_and_exits_2(tmp_path: Path, capsys,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["redfirst", "--base", "main"]) == 2, (
        "`deskcheck redfirst --base main` outside a repository must exit 2; it said:\n"
        f"{capsys.readouterr()}"
    )
    err = capsys.readouterr().err
    assert "not a git repository" in err and "fix:" in err, (
        f"the CLI must print the git error with its fix:; stderr {err!r}"
    )
