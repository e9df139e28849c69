"""A newcomer-style branch of the reference target (examples/tp_scheduler) in a temporary repo.

``main`` has the bug a newcomer fixed: admission used this rank's own count vote (its free
request slots) instead of the group's, and the vote was not even packed into the MIN reduce.
The branch ``fix`` packs the vote and reads the group's value back: three changed lines, every
one touching the packed MIN reduce's input or output. ``with_collective_touch`` also changes
the collective's own line (its keywords reordered), as a branch that edits the reduce does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.auto.fixture_repo import commit_all, git, init_repo
from tests.auto.tp_scratch import EXAMPLE

BUDGET = "tp_scheduler/scheduler_budget_mixin.py"
PACKED_VOTE = ("        count_at = len(vals)  # captured BEFORE appending; read back by this "
               "index only\n        vals.append(self._local_admit_limit())\n")
READ_BACK = "        self._uniform_admit_limit = reduced[count_at]\n"
# main: the bug (no vote in the payload; admission reads this rank's own limit)
HEAD_AT = "        head_at = len(vals)\n"
BUG = {BUDGET: [(PACKED_VOTE + HEAD_AT, HEAD_AT),
                (READ_BACK, "        self._uniform_admit_limit = self._local_admit_limit()\n")]}
COLLECTIVE = ("        dist.all_reduce(tensor, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)\n",
              "        dist.all_reduce(tensor, group=self.tp_cpu_group, op=dist.ReduceOp.MIN)\n")


def _edit(root: Path, edits: dict[str, list[tuple[str, str]]]) -> None:
    for relpath, pairs in edits.items():
        path = root / relpath
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            assert text.count(old) == 1, f"{relpath} no longer contains {old!r}: update the edits"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")


def make_newcomer_branch(root: Path, with_collective_touch: bool = False) -> Path:
    """``main`` = the bug, checked out ``fix`` = the newcomer's fix (committed)."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".deskcheck", "*.pyc"))
    init_repo(root)
    _edit(root, BUG)
    commit_all(root, "admission from this rank's own count vote")
    git(root, "checkout", "-q", "-b", "fix")
    _edit(root, {BUDGET: [(old, new) for new, old in BUG[BUDGET]]})
    if with_collective_touch:
        _edit(root, {BUDGET: [COLLECTIVE]})
    commit_all(root, "fix: admission used this rank's free slots instead of the group's")
    return root
