"""What a user is told when things go sideways: files a mutant left in the tree, the real
exit status of an owner that left through ``os._exit``, an empty catalog, a repository with
no commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pythonpath import extended

pytestmark = pytest.mark.xdist_group("reliability-messages")

OWNER = '''
from kpkg.mod import total


def test_total():
    assert total([1, 2]) == 3
'''


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                           *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _project(root: Path, new: str) -> Path:
    """A committed project: ``total`` and its owner, one mutant replacing its body by ``new``."""
    (root / "kpkg").mkdir(parents=True)
    (root / "kpkg" / "__init__.py").write_text("")
    (root / "kpkg" / "mod.py").write_text("def total(values):\n    return sum(values)\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text(OWNER)
    (root / "mutants.toml").write_text(
        '[sweep]\ntests = ["tests"]\n\n[[mutant]]\nid = "k.M"\ntitle = "t"\n'
        'target = "kpkg.mod:total"\noperator = "replace"\nold = "return sum(values)"\n'
        f'new = {json.dumps(new)}\nowners = ["tests/test_mod.py::test_total"]\n')
    (root / ".gitignore").write_text(".deskcheck/\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "project")
    return root


def _deskcheck(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "",
           "PYTHONPATH": extended(root)}
    return subprocess.run([sys.executable, "-m", "deskcheck.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_file_a_mutant_leaves_in_the_project_is_named(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "return (open('left-behind.txt', 'w').write('x'), "
                                    "sum(values) + 1)[1]")
    done = _deskcheck(root, "sweep", "--catalog", "mutants.toml", "--workers", "1",
                      "--json", "out.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the sweep left 1 file(s) changed" in done.stderr and "left-behind.txt" in \
        done.stderr, f"the file the mutant wrote into the project was not named:\n{done.stderr}"
    assert "out.json" not in done.stderr.partition("changed")[2], (
        f"the sweep's own --json report was reported as left behind:\n{done.stderr}")


def test_a_clean_sweep_warns_about_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "return sum(values) + 1")
    (root / "notes.txt").write_text("already untracked before the sweep\n")
    done = _deskcheck(root, "sweep", "--catalog", "mutants.toml", "--workers", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "left" not in done.stderr, f"a sweep that wrote nothing warned:\n{done.stderr}"


def test_an_owner_that_calls_os_exit_0_is_reported_with_its_exit_status(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "return __import__('os')._exit(0)")
    done = _deskcheck(root, "sweep", "--catalog", "mutants.toml", "--workers", "1",
                      "--no-store", "--json", "out.json")
    excerpt = json.loads((root / "out.json").read_text())["mutants"][0]["excerpt"]
    assert "the test process died (exit status 0)" in excerpt, (
        f"the owner left through os._exit(0), but the verdict says: {excerpt!r}\n{done.stderr}")


def test_an_empty_catalog_is_a_usage_error_naming_its_path(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", "return sum(values) + 1")
    (root / "empty.toml").write_text('[sweep]\ntests = ["tests"]\n')
    done = _deskcheck(root, "sweep", "--catalog", "empty.toml", "--no-store")
    assert done.returncode == 2, (f"an empty catalog should exit 2, not {done.returncode} "
                                  f"(nothing swept is not 'holds'):\n{done.stdout}{done.stderr}")
    assert "empty.toml" in done.stderr and "has no mutants" in done.stderr, done.stderr


def test_a_repository_with_no_commits_says_so(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    _git(root, "init", "-q")
    done = _deskcheck(root, "redfirst", "--base", "HEAD", "tests")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no commits yet" in done.stderr, (
        f"a repository without commits should be told so:\n{done.stderr}")
    assert "git fetch" not in done.stderr, f"fetch advice for an empty repository:\n{done.stderr}"
