"""Sharp arms where an existing test would fail under a defect for an unhelpful reason
(an unpacking error, a bare ``assert 9 == 2``): each failure here names the wrong behaviour."""

from __future__ import annotations

import json
from pathlib import Path

from deskcheck.drift_guard.pointers import check_pointers
from deskcheck.mutants.process_hook import MUTANT_ENV, child_environment
from deskcheck.report.fingerprint import mutant_fingerprint

POLICY = '''\
class SchedulePolicy:
    """Orders the queue."""

    def calc_priority(self, queue):
        queue.sort()
        return True
'''


def test_a_citation_of_a_def_that_moved_is_drift(tmp_path: Path):
    (tmp_path / "schedule_policy.py").write_text(POLICY)
    doc = tmp_path / "doc.md"
    doc.write_text("SchedulePolicy.calc_priority (schedule_policy.py:1) sorts the queue\n")
    report = check_pointers([doc], roots=[tmp_path])
    problems = [f.problem for f in report.findings]
    assert problems == [
        "line 1 is not in `SchedulePolicy.calc_priority`; it is defined at schedule_policy.py:4"
    ], f"a citation of calc_priority at line 1 (it is defined at line 4) gave {problems}"


def test_a_nested_mutant_run_keeps_the_outer_mutant(monkeypatch):
    outer = {"target": "pkg.outer:f", "mutated": "def f():\n    return 1\n"}
    inner = {"target": "pkg.inner:g", "mutated": "def g():\n    return 2\n"}
    monkeypatch.setenv(MUTANT_ENV, json.dumps(outer))
    exported = json.loads(child_environment(inner, None, "t")[MUTANT_ENV])
    targets = [p["target"] for p in exported] if isinstance(exported, list) else [
        exported["target"]]
    assert targets == ["pkg.outer:f", "pkg.inner:g"], (
        f"a nested mutant run exported {targets}: the outer mutant was dropped")


def test_editing_an_owner_test_file_changes_the_fingerprint(tmp_path: Path):
    owner = tmp_path / "test_ballot.py"
    owner.write_text("def test_edge():\n    assert True\n")
    before = mutant_fingerprint({"id": "m"}, "def f(): pass\n", [owner], "0.1.0")
    owner.write_text("def test_edge():\n    assert False\n")
    after = mutant_fingerprint({"id": "m"}, "def f(): pass\n", [owner], "0.1.0")
    assert before != after, (
        "editing an owner's test file left the fingerprint unchanged: a stale verdict "
        "would be reused")


def test_the_can_fail_arm_reports_a_dead_guard(monkeypatch):
    from deskcheck.drift_guard import can_fail
    from deskcheck.drift_guard import verdicts as guard_module

    from .test_mutmut_gaps import _shop_harnesses

    _, complete = _shop_harnesses()
    real_trace = guard_module.trace

    def blind_trace(*args, **kwargs):
        surf = real_trace(*args, **kwargs)
        surf.names = {n: u for n, u in surf.names.items() if "canary" not in n}
        return surf

    monkeypatch.setattr(guard_module, "trace", blind_trace)
    result = can_fail(complete)
    assert not result.ok, (
        f"the can-fail arm called a dead guard live (it added {result.added}, the canary "
        f"{result.canary} was never reported)")
