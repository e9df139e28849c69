"""End to end on this repository's own history: a commit that adds tests, gated against its
parent in a clone (the user's checkout is never used as the gate's working tree)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import deskcheck
from deskcheck.gate import REDFIRST_VERDICTS, run_redfirst

pytestmark = pytest.mark.xdist_group("gate-self")

THIS_REPO = Path(deskcheck.__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def _first_commit_adding_tests(repo: Path) -> str | None:
    """The oldest commit with a parent that adds a test file."""
    log = _git(repo, "log", "--reverse", "--diff-filter=A", "--format=%H %P", "--",
               "tests/*.py", "tests/**/test_*.py")
    for line in log.splitlines():
        commit, *parents = line.split()
        if parents:
            return commit
    return None


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not (THIS_REPO / ".git").exists():
        pytest.skip("deskcheck is not running from a git checkout")
    commit = _first_commit_adding_tests(THIS_REPO)
    if commit is None:
        pytest.skip("no commit in this history adds tests yet")
    target = tmp_path_factory.mktemp("self") / "deskcheck"
    _git(THIS_REPO, "clone", "-q", "--no-checkout", str(THIS_REPO), str(target))
    _git(target, "checkout", "-q", "--detach", commit)
    return target, commit


def test_redfirst_on_a_commit_of_this_repository(clone, monkeypatch) -> None:
    root, commit = clone
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    report = run_redfirst(f"{commit}~1", cwd=root)
    assert report.tests, "the commit adds tests, so some must be judged"
    assert {t.verdict for t in report.tests} <= set(REDFIRST_VERDICTS), (
        "every verdict must be a red-first verdict; unknown "
        f"{sorted({t.verdict for t in report.tests} - set(REDFIRST_VERDICTS))}"
    )
    assert report.exit_code == (1 if report.failing else 0), (
        f"redfirst must exit 1 exactly when some test falls short; exit {report.exit_code}, "
        f"failing {report.failing}"
    )
    base, branch = report.sides["base"]["isolation"], report.sides["branch"]["isolation"]
    assert base["violations"] == {} == branch["violations"], (
        f"each side must load only its own code; violations base {base['violations']}, branch "
        f"{branch['violations']}"
    )
    assert base["production_modules_loaded"] > 0, (
        "the base side loaded no production module of deskcheck"
    )
    assert all("/deskcheck-gate-" in f for f in base["sample"].values()), (
        f"the base side must load from the deskcheck-gate- worktree; it loaded {base['sample']}"
    )
    assert all(f.startswith(str(root)) for f in branch["sample"].values()), (
        f"the branch side must load from the clone {root}; it loaded {branch['sample']}"
    )
    verdicts = {t.id: t.verdict for t in report.tests}
    known = "tests/test_foundation.py::test_config_error_names_pyproject_line"
    if known in verdicts:  # that commit changed config.py's error location: red on its parent
        assert verdicts[known] == "RED_GREEN", (
            f"{known} must be RED_GREEN on its parent; it is {verdicts[known]}"
        )
