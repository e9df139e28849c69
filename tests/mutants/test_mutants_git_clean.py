"""A sweep never writes the target repo: `git status` (and every byte) is identical after a
sweep and after `kill -9` of the sweep mid-run, and no process of it is left."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .conftest import FIXTURE, deskcheck, tagged_processes

pytestmark = pytest.mark.xdist_group("mutants-git")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(FIXTURE, target)
    (target / "checks" / "check_marker.py").write_text(
        "import pytest\n\n\n@pytest.mark.kills('no.such.mutant')\ndef test_x():\n    pass\n")
    git(target, "init", "-q")
    git(target, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(target, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture")
    (target / "checks" / "check_marker.py").unlink()  # an uncommitted change is state too
    return target


def snapshot(repo: Path) -> tuple[str, str]:
    digest = hashlib.sha256()
    for path in sorted(repo.rglob("*")):
        if ".git" in path.relative_to(repo).parts:
            continue
        digest.update(str(path.relative_to(repo)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    status = git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all")
    return status, digest.hexdigest()


def test_sweep_leaves_the_repo_byte_identical(repo, tmp_path):
    before = snapshot(repo)
    proc = deskcheck("sweep", "--catalog", str(repo / "mutants.toml"), "--no-store",
                     "--json", str(tmp_path / "out.json"), "--only", "calc.low_bound_skipped",
                     "calc.admit_strict", "calc.size_offset", "dist.max_not_min", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert snapshot(repo) == before, (
        "a sweep must leave the repository byte-identical (git status and file contents), yet "
        "they changed"
    )


def test_kill_9_mid_sweep_leaves_repo_and_processes_clean(repo):
    before = snapshot(repo)
    tag = uuid.uuid4().hex
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "DESKCHECK_TEST_TAG": tag}
    sweep = subprocess.Popen(
        [sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog", str(repo / "mutants.toml"),
         "--no-store", "--only", "dist.ring_deadlock"], cwd=repo, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(tagged_processes(tag)) < 4:  # sweep + mutant child + two deadlocked ranks
            assert sweep.poll() is None, "the sweep ended before the deadlock"
            assert time.monotonic() < deadline, "the deadlocked ranks never appeared"
            time.sleep(0.1)
        os.kill(sweep.pid, signal.SIGKILL)
        sweep.wait()
        deadline = time.monotonic() + 60  # returns as soon as they are gone
        while tagged_processes(tag) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert tagged_processes(tag) == [], "processes outlived the killed sweep"
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
        for pid in tagged_processes(tag):
            os.kill(pid, signal.SIGKILL)
    assert snapshot(repo) == before, (
        "a sweep killed with SIGKILL must leave the repository byte-identical (git status and "
        "file contents), yet they changed"
    )
