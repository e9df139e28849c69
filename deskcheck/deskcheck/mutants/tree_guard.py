"""Did a sweep leave files changed in the project? ``git status`` before and after.

Mutants are injected in memory and never written, but a mutant (or a test running under it)
can still write into the project: a mutated path, a cache file, a report. The sweep takes
the ``git status --porcelain`` of the project (with each listed file's size and mtime, so a
file that was already dirty and is written again is seen too) before and once at the end,
and warns with every file that changed in between. Outside a git repository: no check.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

Snapshot = dict[str, tuple[str, int, int]]  # path -> (status, size, mtime_ns)


def snapshot(root: Path) -> Snapshot | None:
    """Each path ``git status`` lists under ``root``, with its status, size and mtime."""
    done = subprocess.run(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all",
                           "--ignored=no"], cwd=root, capture_output=True, check=False)
    if done.returncode != 0:
        return None
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root,
                         capture_output=True, text=True, check=False).stdout.strip()
    found: Snapshot = {}
    entries = done.stdout.decode(errors="replace").split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status[0] in "RC":  # a rename is followed by its source path
            index += 1
        try:
            info = os.stat(os.path.join(top or root, path))
            found[path] = (status, info.st_size, info.st_mtime_ns)
        except OSError:
            found[path] = (status, -1, -1)
    return found


def changed(before: Snapshot | None, after: Snapshot | None,
            ignore: Iterable[str] = ()) -> list[str]:
    """Paths whose status, size or mtime differ between the snapshots, except those under
    ``ignore`` (relative folders or files the sweep itself writes: its store, its report)."""
    if before is None or after is None:
        return []
    skip = tuple(p.rstrip("/") for p in ignore if p)
    return sorted(path for path in set(before) | set(after)
                  if before.get(path) != after.get(path)
                  and not any(path == s or path.startswith(s + "/") for s in skip))
