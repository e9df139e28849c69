"""``deskcheck drift --changed-since REF`` on a scratch git repository holding the reference
target: a branch adds a read to ``Scheduler.get_num_allocatable_reqs``; exactly the stand-ins
whose driven methods reach it are named (a registered Harness and a discovered
SimpleNamespace), the REF side read from git objects with the working tree untouched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.auto.fixture_repo import commit_all, git, init_repo
from tests.pythonpath import extended

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tp_scheduler"
CLI = "import sys; from deskcheck.cli import main; sys.exit(main())"
OLD = "        running = len(self.running_batch) if running_bs is None else running_bs\n"
BRANCH = ("        if self._prefetch_ballot is not None and self._prefetch_ballot.mismatch:\n"
          "            self._mismatch_seen += 1\n")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("changed") / "target"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".deskcheck", "*.pyc"))
    init_repo(root)
    commit_all(root, "the reference target")
    git(root, "checkout", "-q", "-b", "feature")
    path = root / "tp_scheduler" / "scheduler.py"
    text = path.read_text(encoding="utf-8")
    assert text.count(OLD) == 1, "scheduler.py changed: update OLD"
    path.write_text(text.replace(OLD, OLD + "        running += self._admit_pad\n"),
                    encoding="utf-8")
    mixin = root / "tp_scheduler" / "scheduler_budget_mixin.py"
    text = mixin.read_text(encoding="utf-8")
    doc = '        """The ballot\'s verdict for this pass; the rank-local one when no ballot stands."""\n'
    assert text.count(doc) == 1, "scheduler_budget_mixin.py changed: update the docstring anchor"
    mixin.write_text(text.replace(doc, doc + BRANCH), encoding="utf-8")
    commit_all(root, "feature: a pad on the allocatable count; a ballot mismatch counter")
    return root


def _drift(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": extended(repo)}
    return subprocess.run([sys.executable, "-c", CLI, "drift", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_the_pr_view_names_exactly_the_stand_ins_that_drive_the_changed_method(repo):
    status_before = git(repo, "status", "--porcelain")
    proc = _drift(repo, "--changed-since", "main", "--json", "--markdown", "pr.md")
    assert proc.returncode == 1, f"a new need exits 1: {proc.stdout}{proc.stderr}"
    data = json.loads(proc.stdout)
    assert [n["name"] for n in data["needs"]] == ["_admit_pad", "_mismatch_seen"], \
        data["message"]
    need = data["needs"][0]
    site = next(i for i, line in enumerate(
        (repo / "tp_scheduler" / "scheduler.py").read_text().splitlines(), 1)
        if "self._admit_pad" in line)
    assert need["site"] == f"tp_scheduler/scheduler.py:{site}", need
    built = sorted(s["built_at"] for s in need["standins"])
    ns_line = next(i for i, line in enumerate(
        (repo / "tests" / "test_adhoc_standins.py").read_text().splitlines(), 1)
        if "ns = SimpleNamespace(" in line)
    assert built == ["tests/test_adhoc_standins.py:" + str(ns_line),
                     "tests/test_budget_harness.py:43"], \
        f"the Harness and the namespace stand-in drive _local_admit_limit: {data['message']}"
    assert "this change makes 2 stand-ins need `_admit_pad`" in data["message"], (
        "the PR message must say 'this change makes 2 stand-ins need `_admit_pad`'; it is "
        f"{data['message']!r}"
    )
    markdown = (repo / "pr.md").read_text()
    assert "`tests/test_budget_harness.py:43` BudgetHarness" in markdown, markdown
    (repo / "pr.md").unlink()
    assert git(repo, "status", "--porcelain") == status_before, \
        "the working tree and index are untouched"


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_no_new_need_exits_zero_and_a_bad_ref_is_a_usage_error(repo):
    same = _drift(repo, "--changed-since", "HEAD")
    assert same.returncode == 0 and "no stand-in needs a new name since HEAD" in same.stdout, \
        same.stdout + same.stderr
    bad = _drift(repo, "--changed-since", "no-such-ref")
    assert bad.returncode == 2 and "no-such-ref" in bad.stderr, bad.stdout + bad.stderr


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_new_read_behind_a_branch_the_stand_in_rules_out_is_listed_not_failed(repo):
    proc = _drift(repo, "--changed-since", "main", "--json")
    data = json.loads(proc.stdout)
    need = next(n for n in data["needs"] if n["name"] == "_mismatch_seen")
    built = next(i for i, line in enumerate(
        (repo / "tests" / "test_adhoc_standins.py").read_text().splitlines(), 1)
        if "sched = Scheduler.__new__(Scheduler)" in line)
    assert need["standins"] == [], \
        f"the __new__ stand-in sets _prefetch_ballot = None: the branch is not entered: {need}"
    assert [u["built_at"] for u in need["unexercised"]] == [
        f"tests/test_adhoc_standins.py:{built}"], need
    assert need["unexercised"][0]["branch"].startswith(
        "if self._prefetch_ballot is not None and self._prefetch_ballot.mismatch at "), need
    assert "unexercised, not a failure" in data["message"], data["message"]
