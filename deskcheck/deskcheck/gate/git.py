"""Read-only git queries for the gates.

Every call runs with ``GIT_OPTIONAL_LOCKS=0`` so that not even ``git status`` refreshes the
user's index; nothing here writes the working tree, the index or HEAD. The one writing
operation, the scratch worktree, lives in :mod:`deskcheck.gate.worktree`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from deskcheck.errors import GitError
from deskcheck.own_folders import is_own_path

_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
# git's variables that name the repository and its working tree: honoured at discovery (a
# checkout kept elsewhere), kept from every process a gate starts in a scratch worktree
LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE")
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
    """A git repository addressed by its top-level folder (and, for a checkout that git's
    environment variables name, its ``GIT_DIR``/``GIT_WORK_TREE``, made absolute)."""

    def __init__(self, root: Path, location_env: dict[str, str] | None = None):
        self.root = root
        self.location_env = dict(location_env or {})

    @classmethod
    def discover(cls, start: Path | None = None) -> GitRepo:
        """The repository containing ``start``; :class:`GitError` when there is none.
        ``GIT_DIR``/``GIT_WORK_TREE`` in the environment are honoured (a repository kept
        elsewhere); they are fixed here as absolute paths, so no later command depends on
        the folder it runs in, and they never reach a scratch worktree's processes."""
        here = (start or Path.cwd()).resolve()
        location = location_from_environment(os.environ, Path.cwd())
        result = _git(["rev-parse", "--show-toplevel"], cwd=here, location_env=location)
        if result.returncode != 0:
            named = "".join(f" {k}={v}" for k, v in location.items())
            raise GitError(
                "not a git repository (the gates compare two commits of one repository)"
                + (f"; git's environment names{named}: {result.stderr.strip()}"
                   if named else ""),
                location=str(here),
                fix="run deskcheck inside a git checkout, or `git init` and commit first"
                    + (" (or correct GIT_DIR/GIT_WORK_TREE)" if named else ""),
            )
        return cls(Path(result.stdout.strip()).resolve(), location)

    def run(self, args: list[str], *, check: bool = True, input_text: str | None = None,
            cwd: Path | None = None) -> GitResult:
        result = _git(args, cwd=cwd or self.root, input_text=input_text,
                      location_env=self.location_env)
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


def location_from_environment(environ: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """``GIT_DIR``/``GIT_WORK_TREE`` as set in ``environ``, made absolute against ``cwd``
    (git reads relative ones against the folder it runs in); empty for a normal checkout."""
    return {name: str((cwd / environ[name]).resolve()) for name in LOCATION_VARIABLES
            if environ.get(name)}


def _git(args: list[str], *, cwd: Path, input_text: str | None = None,
         location_env: Mapping[str, str] | None = None) -> GitResult:
    env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARIABLES}
    env.update(_GIT_ENV)
    env.update(location_env or {})  # only what discovery resolved, never a relative leftover
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, input=input_text,
                              capture_output=True, text=True, check=False,
                              encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError as exc:
        raise GitError("git is not installed", fix="install git and put it on PATH") from exc
    return GitResult(proc.returncode, proc.stdout, proc.stderr)
