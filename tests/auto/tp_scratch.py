"""A scratch branch of the reference target (examples/tp_scheduler) in a temporary git repo.

``main`` is the target as shipped; ``scratch`` changes one decision function
(``tp_head_congruence.group_count`` clamps the group count at zero) and the collective that
feeds it (``SchedulerBudgetMixin._all_reduce_min`` reduces only across more than one rank),
code that runs only inside gloo rank processes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.auto.fixture_repo import commit_all, git, init_repo

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tp_scheduler"

EDITS = {
    "tp_scheduler/tp_head_congruence.py": (
        "    return min(reduced_vote, local_limit)",
        "    return max(0, min(reduced_vote, local_limit))",
    ),
    "tp_scheduler/scheduler_budget_mixin.py": (
        "        dist.all_reduce(tensor, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)",
        "        if self.tp_size > 1:\n"
        "            dist.all_reduce(tensor, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)",
    ),
}


def make_scratch_branch(root: Path) -> Path:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".deskcheck", "*.pyc"))
    init_repo(root)
    commit_all(root, "the reference target")
    git(root, "checkout", "-q", "-b", "scratch")
    for relpath, (old, new) in EDITS.items():
        path = root / relpath
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{relpath} no longer contains {old!r}: update EDITS"
        path.write_text(text.replace(old, new), encoding="utf-8")
    commit_all(root, "scratch: clamp the group count; reduce only across more than one rank")
    return root
