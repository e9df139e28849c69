"""Which production lines a branch changed: ``git diff -U0`` against ``merge-base(REF, HEAD)``.

Line numbers come from the hunk headers (``@@ -a,b +c,d @@``: lines ``c .. c+d-1`` of the new
file); pure deletions (``d == 0``) change no line that still exists and are skipped. Test files
are excluded with the same rules as the gate (``[tool.deskcheck] test_paths``).
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from deskcheck.errors import GitError

DEFAULT_TEST_PATHS: tuple[str, ...] = ("test_*.py", "*_test.py", "conftest.py", "tests/", "test/")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class ChangedFile:
    """One changed production file: repo-relative POSIX path and its changed (new-side) lines."""

    path: str
    lines: frozenset[int]


@dataclass
class ChangeSet:
    """The production lines a branch changed, plus what was left out and why."""

    root: Path
    base: str
    files: list[ChangedFile] = field(default_factory=list)
    skipped_tests: list[str] = field(default_factory=list)
    skipped_non_python: list[str] = field(default_factory=list)

    @property
    def line_count(self) -> int:
        return sum(len(f.lines) for f in self.files)


def is_test_path(path: str, patterns: Sequence[str] = DEFAULT_TEST_PATHS) -> bool:
    """True when ``path`` (repo-relative, POSIX) is a test file under ``patterns``.

    A pattern ending in ``/`` names a folder anywhere in the path (``tests/`` matches
    ``a/tests/b.py``); a pattern with a ``/`` elsewhere is matched against the whole path;
    otherwise it is matched against the file name.
    """
    pure = PurePosixPath(path)
    for pattern in patterns:
        if pattern.endswith("/"):
            folder = pattern.rstrip("/")
            if any(fnmatch.fnmatch(part, folder) for part in pure.parts[:-1]):
                return True
        elif "/" in pattern:
            if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern + "/*"):
                return True
        elif fnmatch.fnmatch(pure.name, pattern):
            return True
    return False


def parse_unified_zero(diff_text: str) -> dict[str, set[int]]:
    """Map each new-side file path of a ``git diff -U0 --no-color`` to its added/changed lines."""
    changed: dict[str, set[int]] = {}
    current: str | None = None
    for line in diff_text.splitlines():
        if line.startswith("+++ "):
            target = line[4:].strip()
            current = None if target == "/dev/null" else target.removeprefix("b/")
            if current is not None:
                changed.setdefault(current, set())
            continue
        if current is None or not line.startswith("@@"):
            continue
        hunk = _HUNK.match(line)
        if hunk is None:
            continue
        start = int(hunk.group(1))
        count = 1 if hunk.group(2) is None else int(hunk.group(2))
        changed[current].update(range(start, start + count))
    return changed


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed", fix="install git and retry") from exc
    if done.returncode != 0:
        raise GitError(f"`git {' '.join(args)}` failed: {done.stderr.strip()}", location=str(root),
                       fix=_git_fix(done.stderr))
    return done.stdout


def _git_fix(stderr: str) -> str:
    if "not a git repository" in stderr:
        return "run inside a git work tree (or pass --root)"
    if "unknown revision" in stderr or "bad revision" in stderr or "Not a valid" in stderr:
        return ("name an existing ref (e.g. origin/main); in a shallow CI clone fetch the "
                "history first (actions/checkout: fetch-depth: 0)")
    if "no merge base" in stderr:
        return "the ref shares no history with HEAD; fetch full history (fetch-depth: 0)"
    return "check the ref and the repository state"


def repo_root(start: Path) -> Path:
    """The top of the git work tree containing ``start``."""
    return Path(_git(start, "rev-parse", "--show-toplevel").strip())


def merge_base(root: Path, ref: str) -> str:
    """``merge-base(REF, HEAD)``: the gate's helper (its shallow-clone advice included)."""
    try:
        from deskcheck.gate.git import GitRepo
    except ImportError:  # the gate is optional for this part
        _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return _git(root, "merge-base", ref, "HEAD").strip()
    return GitRepo(root).merge_base(ref)


def changed_production_lines(root: Path, ref: str,
                             test_paths: Iterable[str] = DEFAULT_TEST_PATHS) -> ChangeSet:
    """The production Python lines changed between ``merge-base(ref, HEAD)`` and the work tree.

    The work tree (committed or not) is the branch side, like the gate's policy: what you run
    is what you review.
    """
    root = repo_root(root)
    base = merge_base(root, ref)
    diff = _git(root, "diff", "-U0", "--no-color", "--no-ext-diff", base, "--")
    patterns = tuple(test_paths)
    changes = ChangeSet(root=root, base=base)
    for path, lines in sorted(parse_unified_zero(diff).items()):
        if not path.endswith(".py"):
            changes.skipped_non_python.append(path)
        elif is_test_path(path, patterns):
            changes.skipped_tests.append(path)
        elif lines:
            changes.files.append(ChangedFile(path=path, lines=frozenset(lines)))
    return changes
