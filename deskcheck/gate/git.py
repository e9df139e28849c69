"""Read-only git queries for the gates.

Every call runs with ``GIT_OPTIONAL_LOCKS=0`` so that not even ``git status`` refreshes the
user's index; nothing here writes the working tree, the index or HEAD. The one writing
operation, the scratch worktree, lives in :mod:`deskcheck.gate.worktree`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from deskcheck.errors import GitError
from deskcheck.own_folders import is_own_path

_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
SHALLOW_FIX = (
    "fetch the full history: `git fetch --unshallow` (in GitHub Actions set "
    "`fetch-depth: 0` on actions/checkout)"
)


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: str
    stderr: str


class GitRepo:
    """A git repository addressed by its top-level folder."""

    def __init__(self, root: Path):
        self.root = root

    @classmethod
    def discover(cls, start: Path | None = None) -> GitRepo:
        """The repository containing ``start``; :class:`GitError` when there is none."""
        here = (start or Path.cwd()).resolve()
        result = _git(["rev-parse", "--show-toplevel"], cwd=here)
        if result.returncode != 0:
            raise GitError(
                "not a git repository (the gates compare two commits of one repository)",
                location=str(here),
                fix="run deskcheck inside a git checkout, or `git init` and commit first",
            )
        return cls(Path(result.stdout.strip()).resolve())

    def run(self, args: list[str], *, check: bool = True, input_text: str | None = None,
            cwd: Path | None = None) -> GitResult:
        result = _git(args, cwd=cwd or self.root, input_text=input_text)
        if check and result.returncode != 0:
            raise GitError(f"`git {' '.join(args)}` failed: {result.stderr.strip()}",
                           location=str(self.root), fix="check the repository state")
        return result

    def is_shallow(self) -> bool:
        return self.run(["rev-parse", "--is-shallow-repository"]).stdout.strip() == "true"

    def head(self) -> str:
        result = self.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], check=False)
        if result.returncode != 0:
            raise GitError("HEAD has no commit yet", location=str(self.root),
                           fix="commit the branch first; the gate compares commits")
        return result.stdout.strip()

    def resolve(self, ref: str) -> str:
        """The commit ``ref`` names; a clear error for unknown refs and shallow clones."""
        result = self.run(["rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{ref}^{{commit}}"], check=False)
        if result.returncode != 0:
            if not self.run(["rev-list", "-n", "1", "--all"], check=False).stdout.strip():
                raise GitError(f"the repository has no commits yet (so no {ref!r})",
                               location=str(self.root),
                               fix="commit first (`git add -A && git commit`); the gates "
                                   "compare the branch with a base commit")
            if self.is_shallow():
                raise GitError(f"unknown ref {ref!r} in a shallow clone",
                               location=str(self.root), fix=SHALLOW_FIX)
            raise GitError(
                f"unknown ref {ref!r}", location=str(self.root),
                fix=f"check the spelling, or fetch it first: `git fetch origin {ref}` "
                    f"(then use origin/{ref})",
            )
        return result.stdout.strip()

    def merge_base(self, ref: str) -> str:
        """``merge-base(ref, HEAD)``; the base commit both gates compare against."""
        base_commit = self.resolve(ref)
        head = self.head()
        result = self.run(["merge-base", base_commit, head], check=False)
        if result.returncode != 0 or not result.stdout.strip():
            if self.is_shallow():
                raise GitError(
                    f"the merge-base of {ref!r} and HEAD is missing: this is a shallow clone",
                    location=str(self.root), fix=SHALLOW_FIX)
            raise GitError(f"{ref!r} and HEAD share no history (no merge-base)",
                           location=str(self.root),
                           fix="pass a --base REF that is an ancestor branch of HEAD")
        return result.stdout.strip()

    def dirty_paths(self) -> list[str]:
        """Tracked changes and untracked, non-ignored files of the working tree."""
        out = self.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"]).stdout
        entries = [e for e in out.split("\0") if e]
        paths: list[str] = []
        skip_next = False
        for entry in entries:
            if skip_next:  # the source path of a rename
                skip_next = False
                continue
            status, path = entry[:2], entry[3:]
            if not is_own_path(path):  # deskcheck's store is not a change of the branch
                paths.append(path)
            skip_next = "R" in status or "C" in status
        return paths

    def tree_blobs(self, commit: str) -> dict[str, str]:
        """``{path: blob sha}`` of every file in ``commit``."""
        out = self.run(["ls-tree", "-r", "-z", "--full-tree", commit]).stdout
        blobs: dict[str, str] = {}
        for entry in out.split("\0"):
            if not entry:
                continue
            meta, path = entry.split("\t", 1)
            _mode, kind, sha = meta.split()
            if kind == "blob":
                blobs[path] = sha
        return blobs

    def working_files(self) -> list[str]:
        """Files of the working tree: tracked (and still present) plus untracked, not ignored."""
        out = self.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
        paths = sorted({p for p in out.split("\0") if p and not is_own_path(p)})
        return [p for p in paths if (self.root / p).is_file()]

    def working_blob_ids(self, paths: list[str]) -> dict[str, str]:
        """Blob shas the working-tree files would have (``hash-object``, nothing written)."""
        if not paths:
            return {}
        out = self.run(["hash-object", "--stdin-paths"], input_text="\n".join(paths) + "\n")
        return dict(zip(paths, out.stdout.split(), strict=True))

    def show(self, commit: str, path: str) -> str:
        return self.run(["show", f"{commit}:{path}"]).stdout


def _git(args: list[str], *, cwd: Path, input_text: str | None = None) -> GitResult:
    env = {**os.environ, **_GIT_ENV}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, input=input_text,
                              capture_output=True, text=True, check=False,
                              encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError as exc:
        raise GitError("git is not installed", fix="install git and put it on PATH") from exc
    return GitResult(proc.returncode, proc.stdout, proc.stderr)
