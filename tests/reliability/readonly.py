"""Make a file or folder read-only for the duration of a test, also when the tests run as
root (who ignores permission bits): ``chattr +i`` there, ``chmod`` otherwise."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _immutable(paths: list[Path], on: bool) -> None:
    done = subprocess.run(["chattr", "+i" if on else "-i", *map(str, paths)],
                          capture_output=True, text=True)
    if done.returncode != 0 and on:
        pytest.skip(f"cannot make files read-only as root here: {done.stderr.strip()}")


@contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """``paths`` (files or folders, not recursive) cannot be written inside the block."""
    listed = list(paths)
    if os.geteuid() == 0:
        _immutable(listed, True)
        try:
            yield
        finally:
            _immutable(listed, False)
        return
    modes = {p: p.stat().st_mode for p in listed}
    for path in listed:
        path.chmod(modes[path] & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
