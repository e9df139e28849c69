"""Real temporary git repositories for the gate tests."""

from __future__ import annotations

import hashlib
import os
import subprocess
import textwrap
from pathlib import Path

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "gate-test", "GIT_AUTHOR_EMAIL": "gate@test",
    "GIT_COMMITTER_NAME": "gate-test", "GIT_COMMITTER_EMAIL": "gate@test",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


class GitProject:
    """A git repository under ``tmp_path`` that tests write files into and commit."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_IDENTITY}
        proc = subprocess.run(["git", *args], cwd=self.root, env=env, capture_output=True,
                              text=True, check=True)
        return proc.stdout

    def write(self, path: str, text: str) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return target

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def snapshot(self) -> tuple[str, str, str]:
        """(status --porcelain, sha256 of .git/index, worktree list) to prove nothing moved."""
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                                cwd=self.root, capture_output=True, text=True, check=True,
                                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}).stdout
        index = hashlib.sha256((self.root / ".git" / "index").read_bytes()).hexdigest()
        return status, index, self.git("worktree", "list", "--porcelain")
