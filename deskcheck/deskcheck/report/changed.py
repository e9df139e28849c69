"""``--changed-since REF``: which mutants a change can affect.

A mutant is affected when its target function's source differs between the merge base of
REF and HEAD and the working tree, or when one of its owners' test files does. Read-only git
(``git show``); nothing is checked out.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from deskcheck.errors import GitError
from deskcheck.report.locations import function_span

_ENV = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
SHALLOW_FIX = ("fetch the history: `git fetch --unshallow` (in GitHub Actions set "
               "`fetch-depth: 0` on actions/checkout)")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=root, env=_ENV, capture_output=True, check=False)


class ChangesSince:
    """Compare files and functions of the working tree with the merge base of ``ref``."""

    def __init__(self, root: Path, ref: str):
        top = _git(Path(root), "rev-parse", "--show-toplevel")
        if top.returncode != 0:
            raise GitError("--changed-since needs a git repository", location=str(root),
                           fix="run inside a git checkout, or drop --changed-since")
        self.root = Path(top.stdout.decode().strip()).resolve()
        self.ref = ref
        base = _git(self.root, "merge-base", "--end-of-options", ref, "HEAD")
        if base.returncode != 0:
            shallow = _git(self.root, "rev-parse", "--is-shallow-repository")
            fix = (SHALLOW_FIX if shallow.stdout.strip() == b"true" else
                   f"check the ref, or fetch it first: `git fetch origin {ref}`")
            raise GitError(f"no merge base between {ref!r} and HEAD: "
                           f"{base.stderr.decode().strip() or 'unknown ref'}",
                           location=str(self.root), fix=fix)
        self.base = base.stdout.decode().strip()
        self._at_base: dict[str, bytes | None] = {}
        self._changed: dict[Path, bool] = {}  # one read per file, however many mutants ask
        self._functions: dict[tuple[Path, str], bool] = {}
        self._lists: list[tuple[list[Path], bool]] = []  # (a shared file list, any changed)

    def _relative(self, path: Path) -> str:
        full = path if path.is_absolute() else self.root / path  # relative: to the repo root
        return full.resolve().relative_to(self.root).as_posix()

    def base_bytes(self, path: Path) -> bytes | None:
        """The file at the merge base; ``None`` when it did not exist there."""
        relative = self._relative(path)
        if relative not in self._at_base:
            shown = _git(self.root, "show", f"{self.base}:{relative}")
            self._at_base[relative] = shown.stdout if shown.returncode == 0 else None
        return self._at_base[relative]

    def file_changed(self, path: Path) -> bool:
        """Whether the file differs from the merge base's (asked once per file)."""
        if path not in self._changed:
            self._changed[path] = self._file_changed(path)
        return self._changed[path]

    def _file_changed(self, path: Path) -> bool:
        try:
            now = (path if path.is_absolute() else self.root / path).read_bytes()
        except FileNotFoundError:
            now = None
        return now != self.base_bytes(path)

    def function_changed(self, path: Path, target: str) -> bool:
        """Whether ``module:Qualified.name``'s source in ``path`` differs from the base's."""
        key = (path, target)
        if key not in self._functions:
            self._functions[key] = self._function_changed(path, target)
        return self._functions[key]

    def _function_changed(self, path: Path, target: str) -> bool:
        before = self.base_bytes(path)
        if before is None:
            return True
        now_path = path if path.is_absolute() else self.root / path
        try:
            now = now_path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return True
        return _function_text(before.decode("utf-8", "replace"), target) != \
            _function_text(now, target)

    def mutant_affected(self, target_file: Path, target: str, owner_files: list[Path]) -> bool:
        """Its target function or any of its owners' test files changed (a file list shared
        by many mutants, e.g. the whole test universe, is checked once)."""
        if self.function_changed(target_file, target):
            return True
        for files, changed in self._lists:
            if files is owner_files:
                return changed
        changed = any(self.file_changed(p) for p in owner_files)
        if len(owner_files) > 64:
            self._lists.append((owner_files, changed))
        return changed


def _function_text(source: str, target: str) -> str | None:
    span = function_span(source, target)
    if span is None:
        return None
    lines = source.splitlines()
    return "\n".join(lines[span[0] - 1:span[1]])
