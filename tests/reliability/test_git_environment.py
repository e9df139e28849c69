"""Item 9: a checkout addressed by git's environment variables (``GIT_DIR`` naming a
repository elsewhere, ``GIT_WORK_TREE`` the working tree, as bare-repository dotfile setups
and some CI runners do) is a git repository: the gates compare its commits, they do not call
it "not a git repository"."""

from __future__ import annotations

import shutil

import pytest

from tests.reliability.battery import Bench, git

pytestmark = pytest.mark.xdist_group("reliability-git-env")

FIXED = "def total(values):\n    return sum(v for v in values if v is not None)\n"
NEW_TEST = ("from kpkg.mod import total\n\n\n"
            "def test_a_missing_value_counts_as_nothing():\n    assert total([1, None]) == 1\n")


def _detached_repository(bench: Bench) -> dict[str, str]:
    """The project's repository moved out of the tree: only ``GIT_DIR``/``GIT_WORK_TREE``
    (absolute, and the work tree relative to the folder the command starts in) find it."""
    git(bench.root, "checkout", "-q", "-b", "feature")
    bench.write({"kpkg/mod.py": FIXED, "tests/test_missing.py": NEW_TEST})
    bench.commit("a missing value counts as nothing")
    elsewhere = bench.base / "repo.git"
    shutil.move(bench.root / ".git", elsewhere)
    bench.snapshot()
    return {"GIT_DIR": str(elsewhere), "GIT_WORK_TREE": "."}


@pytest.mark.parametrize("gate", ["redfirst", "regress"])
def test_a_gate_works_in_a_checkout_named_by_git_environment_variables(
        bench: Bench, gate: str) -> None:
    env = _detached_repository(bench)
    done = bench.run(gate, "--base", "main", "--no-store", **env)
    out = done.stdout + done.stderr
    assert "not a git repository" not in out, (
        f"`deskcheck {gate}` called a checkout with GIT_DIR/GIT_WORK_TREE set 'not a git "
        f"repository':\n{out}")
    assert done.returncode == 0, f"`deskcheck {gate}` should hold here, exited " \
        f"{done.returncode}:\n{out}"
    if gate == "redfirst":
        assert "test_a_missing_value_counts_as_nothing" in done.stdout, (
            f"redfirst did not judge the branch's new test:\n{out}")
