"""A small git repository with a branch that changes production code, for the auto tests.

Base (``main``): package ``fixpkg`` with decision functions, single-process tests and a test that
starts two gloo ranks by fork; ``rank_pick`` runs only inside those ranks. Branch (``feature``)
changes: one decision line (``should_admit``), the rank-only ``rank_pick``, a logging line, an
assert, a docstring, an annotation, a pragma-marked line, an uncovered helper, a function
rebound to a partial (its target cannot be resolved) and a test file.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

BASE_DECIDE = '''\
"""Admission decisions."""

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

logger = logging.getLogger(__name__)


def admit_limit(free_tokens: int, per_request: int) -> int:
    return free_tokens // per_request


def should_admit(free_tokens, need):
    return free_tokens >= need


class Ballot:
    def __init__(self, votes):
        self.votes = list(votes)

    def unanimous(self):
        return all(v == self.votes[0] for v in self.votes)

    def __repr__(self):
        return f"Ballot({self.votes})"


def rank_pick(values):
    return min(values)


def helper(x):
    return x
'''

BRANCH_DECIDE = '''\
"""Admission decisions."""

import functools
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence, Mapping

logger = logging.getLogger(__name__)
THRESHOLD = 3


def admit_limit(free_tokens: int, per_request: int) -> "int | None":
    """How many requests fit (changed docstring)."""
    return free_tokens // per_request


def should_admit(free_tokens, need):
    logger.info("admit? free=%s need=%s", free_tokens, need)
    assert need >= 0, "need must be non-negative"
    return free_tokens >= need and need > 0


class Ballot:
    def __init__(self, votes):
        self.votes = list(votes)

    def unanimous(self):
        return all(v == self.votes[0] for v in self.votes)

    def __repr__(self):
        return f"Ballot(votes={self.votes})"


def rank_pick(values):
    return min(values) * 2


def clamp(x, hi):
    return x if x < hi else hi


def helper(x):
    return x * 2  # pragma: no mutate


def unused_helper(x):
    return x + 7


def scaled(x, factor):
    return x * factor


scaled = functools.partial(scaled, factor=3)  # the name no longer holds a function
'''

TEST_DECIDE = '''\
from fixpkg.decide import Ballot, admit_limit, should_admit


def test_admit_limit():
    assert admit_limit(10, 3) == 3


def test_should_admit():
    assert should_admit(5, 5)
    assert not should_admit(4, 5)


def test_should_admit_zero():
    assert not should_admit(5, 0)


def test_ballot():
    assert Ballot([1, 1]).unanimous()
    assert not Ballot([1, 2]).unanimous()
'''

TEST_RANKS = '''\
import datetime
import multiprocessing as mp
import socket

import pytest
import torch
import torch.distributed as dist


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_main(rank, world, port, queue):
    from fixpkg.decide import rank_pick

    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=world, timeout=datetime.timedelta(seconds=20))
        local = [rank + 5, rank + 3] if rank == 0 else [rank + 4]
        picked = torch.tensor([rank_pick(local)])
        dist.all_reduce(picked, op=dist.ReduceOp.SUM)
        queue.put((rank, "ok", int(picked.item())))
        dist.destroy_process_group()
    except Exception as exc:  # report, never hang the test
        queue.put((rank, "error", repr(exc)))


@pytest.mark.xdist_group("gloo")
def test_ranks_agree():
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_rank_main, args=(r, 2, port, queue)) for r in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60)]
    if results[0][1] == "ok":
        results.append(queue.get(timeout=60))
    for p in procs:
        if results[-1][1] == "error":
            p.terminate()  # the other rank waits in the collective: do not wait for it
        p.join(timeout=60)
    errors = [r for r in results if r[1] == "error"]
    assert not errors, f"ranks raised: {errors}"
    # every rank sees the sum of the picks: 8 on main (3 + 5), 16 on the branch (doubled)
    assert sorted(results) == [(0, "ok", 8), (1, "ok", 8)]
'''

BRANCH_TEST_EXTRA = '''

def test_clamp():
    from fixpkg.decide import clamp

    assert clamp(1, 5) == 1
    assert clamp(9, 5) == 5


def test_scaled():
    from fixpkg.decide import scaled

    assert scaled(2) == 6
'''

PYPROJECT = '''\
[project]
name = "fixpkg"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
addopts = "-p no:cacheprovider"
'''


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")


def init_repo(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    git(root, "config", "commit.gpgsign", "false")


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def make_fixture_repo(root: Path) -> Path:
    """Create the repository at ``root``: ``main`` is the base, ``feature`` (checked out) the PR."""
    init_repo(root)
    write(root, "pyproject.toml", PYPROJECT)
    write(root, "fixpkg/__init__.py", "")
    write(root, "fixpkg/decide.py", BASE_DECIDE)
    write(root, "tests/test_decide.py", TEST_DECIDE)
    write(root, "tests/test_ranks.py", TEST_RANKS)
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "fixpkg/decide.py", BRANCH_DECIDE)
    write(root, "tests/test_decide.py", TEST_DECIDE + BRANCH_TEST_EXTRA)
    write(root, "tests/test_ranks.py", TEST_RANKS.replace("is 8", "is 16").replace(", 8)", ", 16)"))
    commit_all(root, "feature")
    return root


def line_of(root: Path, relpath: str, needle: str) -> int:
    """1-based line of the first line of ``relpath`` containing ``needle``."""
    for number, text in enumerate((root / relpath).read_text().splitlines(), start=1):
        if needle in text:
            return number
    raise AssertionError(f"{needle!r} not in {relpath}")
