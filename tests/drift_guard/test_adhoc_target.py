"""The reference target's ad-hoc stand-ins (examples/tp_scheduler/tests/test_adhoc_standins.py)
against production changes made in a scratch copy: a new read on a driven path is named with
file:line, call path and construction site; a new read on a branch no test enters is
unexercised, not a failure; a ``getattr(self, "x", None)`` read on the driven path fails as a
silent skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from deskcheck.drift_guard import judge_paths
from tests.pythonpath import extended

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tp_scheduler"
TEST_FILE = "tests/test_adhoc_standins.py"

EDITS = {
    # a new field (set in __init__) read on the path the factory-built scheduler drives
    "tp_scheduler/scheduler_batch_mixin.py": (
        "        return sum(req.max_new_tokens for req in self.running_batch)",
        "        return sum(req.max_new_tokens for req in self.running_batch) + self._reservation_pad",
    ),
    "tp_scheduler/scheduler.py#init": (
        "        self.last_decision: BatchDecision | None = None\n",
        "        self.last_decision: BatchDecision | None = None\n"
        "        self._reservation_pad = 0\n",
    ),
    # a new read behind a branch the __new__-built scheduler never enters (no ballot stands)
    "tp_scheduler/scheduler_budget_mixin.py": (
        '        """The ballot\'s verdict for this pass; the rank-local one when no ballot stands."""\n',
        '        """The ballot\'s verdict for this pass; the rank-local one when no ballot stands."""\n'
        "        if self._prefetch_ballot is not None and self._prefetch_ballot.mismatch:\n"
        "            self._ballot_mismatch_seen += 1\n",
    ),
    # a masked read on the path the namespace scheduler drives, of a name production's own
    # __init__ sets (a masked read of a name __init__ never sets is a note, not drift)
    "tp_scheduler/scheduler.py": (
        "        running = len(self.running_batch) if running_bs is None else running_bs\n",
        "        running = len(self.running_batch) if running_bs is None else running_bs\n"
        '        running += getattr(self, "_admit_pad", None) or 0\n',
    ),
    "tp_scheduler/scheduler.py#init-admit-pad": (
        "        self.tp_rank = tp_rank\n",
        "        self.tp_rank = tp_rank\n        self._admit_pad = 0\n",
    ),
}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("adhoc") / "tp_scheduler"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".deskcheck", "*.pyc"))
    for relpath, (old, new) in EDITS.items():
        path = root / relpath.partition("#")[0]
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{relpath} no longer contains {old!r}: update EDITS"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def run(scratch: Path) -> str:
    env = {**os.environ, "PYTHONPATH": extended(scratch)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
         "-rA", TEST_FILE, "-o", "addopts="],
        cwd=scratch, env=env, capture_output=True, text=True, timeout=180)
    assert "tp_scheduler" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _section(out: str, test: str) -> str:
    start = out.index(f"_ {test} _")
    end = out.find("\n____", start + 1)
    return out[start:end if end != -1 else len(out)]


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_the_unchanged_target_is_green(tmp_path):
    env = {**os.environ, "PYTHONPATH": extended(EXAMPLE)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
         TEST_FILE], cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"the committed ad-hoc tests pass: {proc.stdout[-2000:]}"


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_new_read_on_a_driven_path_is_named_with_site_path_and_construction(run, scratch):
    section = _section(run, "test_running_reservation_of_a_factory_scheduler")
    mixin = scratch / "tp_scheduler" / "scheduler_batch_mixin.py"
    site = _line_of(mixin, "self._reservation_pad")
    called = _line_of(scratch / TEST_FILE, "sched = make_scheduler(")
    made = _line_of(scratch / TEST_FILE, "def make_scheduler(") + 2  # after its docstring
    assert "has no attribute '_reservation_pad'" in section, f"the real error stays: {section}"
    assert "lacks `_reservation_pad`" in section, section
    assert f"needed at tp_scheduler/scheduler_batch_mixin.py:{site}" in section, section
    assert "call path: SchedulerBatchMixin._running_reservation" in section, section
    assert f"stand-in built at {TEST_FILE}:{made} (in make_scheduler(), called at " \
           f"{TEST_FILE}:{called})" in section, f"the factory built it, the test called it: {section}"


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_new_read_on_a_branch_no_test_enters_is_unexercised_not_a_failure(run, scratch):
    assert "PASSED tests/test_adhoc_standins.py::test_prefetch_vote_of_a_scheduler_built_" \
           "without_init" in run, f"unexercised is information, not failure: {run[-3000:]}"
    verdict = judge_paths("tp_scheduler.scheduler:Scheduler", ["_prefetch_head_admissible"],
                          provided={"tp_size", "waiting_queue", "prefetch_pending",
                                    "_prefetch_ballot", "_local_prefetch_done"},
                          roots=[scratch], constants={"_prefetch_ballot": None,
                                                      "prefetch_pending": set()})
    assert verdict.holds and verdict.names("unexercised") == ["_ballot_mismatch_seen"], \
        verdict.render()
    line = _line_of(scratch / "tp_scheduler" / "scheduler_budget_mixin.py",
                    "if self._prefetch_ballot is not None and")
    assert verdict.unexercised[0].condition == (
        "if self._prefetch_ballot is not None and self._prefetch_ballot.mismatch at "
        f"{scratch / 'tp_scheduler' / 'scheduler_budget_mixin.py'}:{line}"), verdict.unexercised


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_getattr_default_on_the_driven_path_fails_as_a_silent_skip(run, scratch):
    section = _section(run, "test_count_vote_of_a_namespace_scheduler")
    assert "silent skip" in section and "_admit_pad" in section, \
        f"the masked read would pass silently; assert_faithful fails it: {section}"
    assert "masked by a getattr/hasattr default" in section, section
    assert "path: SchedulerBudgetMixin._local_admit_limit -> Scheduler.get_num_allocatable_reqs" \
        in section, section


def test_the_static_verdict_names_the_same_silent_skip_without_running_anything(scratch):
    verdict = judge_paths("tp_scheduler.scheduler:Scheduler", ["get_num_allocatable_reqs"],
                          provided={"running_batch", "config", "admission_limiter"},
                          roots=[scratch], constants={"running_batch": []})
    assert verdict.names("silent_skips") == ["_admit_pad"], verdict.render()
    assert not verdict.holds, (
        f"a silent skip must make the static verdict fall short; it says {verdict.render()}"
    )
    assert SimpleNamespace, (
        "SimpleNamespace must be importable for the namespace form"
    )  # the namespace form is driven in the subprocess run above
