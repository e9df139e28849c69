"""The first split cross-checked with the static uniformity audit: a decision the audit calls
UNIFORM that the ranks took different ways at run time is named as the audit's miss, with
the decision's file:line, the verdict and each rank's way; a split the audit already calls
RANK-LOCAL is no miss.

The fixture project (``fixtures_audit_cross``) has one event loop with two gates: ``if
self.tp_size > 1`` (UNIFORM to the audit: the size is replicated config) and ``if
self.tp_rank == 0`` (RANK-LOCAL). Its two "ranks" run in this process, one after the other,
each recording into its own rank file; torch.distributed is a stand-in that only counts.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

from deskcheck.suites.audit_check import audit_targets, cross_check
from deskcheck.suites.recorder import record_decisions
from deskcheck.suites.records import read_records

FIXTURE = Path(__file__).parent / "fixtures_audit_cross"
LOOP = FIXTURE / "fixpkg" / "loop.py"


@pytest.fixture
def loop_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    fake = types.ModuleType("torch.distributed")
    fake.all_reduce = lambda *a, **k: None  # type: ignore[attr-defined]
    fake.broadcast = lambda *a, **k: None  # type: ignore[attr-defined]
    fake.is_initialized = lambda: False  # type: ignore[attr-defined]
    torch = types.ModuleType("torch")
    torch.distributed = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.distributed", fake)
    monkeypatch.syspath_prepend(str(FIXTURE))
    for name in ("fixpkg", "fixpkg.loop"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module("fixpkg.loop")
    yield module
    for name in ("fixpkg", "fixpkg.loop"):
        sys.modules.pop(name, None)


def _ranks(folder: Path, module: types.ModuleType, per_rank: list[tuple[int, int]]) -> list:
    for rank, (tp_rank, tp_size) in enumerate(per_rank):
        with record_decisions(folder, rank, include=[str(FIXTURE)]):
            module.Loop(tp_rank, tp_size).event_loop()
    return read_records(folder, len(per_rank))


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(LOOP.read_text().splitlines(), 1) if text in line)


def test_the_audit_target_is_the_recorded_class_with_a_root_method(tmp_path, loop_module):
    records = _ranks(tmp_path, loop_module, [(0, 2), (1, 2)])
    targets = [t for t, _root in audit_targets(records)]
    assert targets == ["fixpkg.loop:Loop"], (
        f"the class whose event_loop the ranks ran must be the audit's target, got {targets}")


def test_a_uniform_decision_that_splits_at_run_time_is_the_audits_miss(tmp_path, loop_module):
    # rank 1 was given another tp_size: the "replicated" size differs, the audit cannot see it
    records = _ranks(tmp_path, loop_module, [(0, 2), (0, 1)])
    misses = cross_check(records)
    gate = line_of("if self.tp_size > 1")
    assert [m.decision[0].line for m in misses] == [gate], (
        f"the UNIFORM gate at line {gate} split (rank 0 took it, rank 1 did not) and must be "
        f"named as the audit's miss; got {[m.render() for m in misses]}")
    text = misses[0].render()
    for words in (f"fixtures_audit_cross/fixpkg/loop.py:{gate} if self.tp_size > 1",
                  "calls it UNIFORM", "rank 0: true (self.tp_size=2)",
                  "rank 1: false (self.tp_size=1)"):
        assert words in text, f"the audit-miss note lacks {words!r}:\n{text}"


def test_a_split_the_audit_calls_rank_local_is_no_miss(tmp_path, loop_module):
    records = _ranks(tmp_path, loop_module, [(0, 2), (1, 2)])
    assert any(len({r.took for r in step}) > 1 for step in zip(*records, strict=False)), \
        "premise: the ranks must split on the rank-0 gate"
    misses = cross_check(records)
    assert misses == [], ("the rank-0 gate is RANK-LOCAL to the audit (it knows the ranks split "
                          f"there): no miss may be claimed, got {[m.render() for m in misses]}")
