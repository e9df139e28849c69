"""What a recorded decision costs and still says (docs/suites.md "The first split", issue 28's
cost goal): one hook call a decision carries the values its condition read, a read the
condition skipped is no input (nor the value an earlier evaluation read), and a read inside a
comprehension's iterable (where the copy cannot bind it) is still an input."""

from __future__ import annotations

import builtins
import enum
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from deskcheck.suites import record_decisions
from deskcheck.suites._instrument import HOOK, instrumented
from deskcheck.suites.split import read_records


class _Box:
    def __init__(self, free: int, sizes: list[int]):
        self.free = free
        self.sizes = sizes


def _admit(box: _Box, need: int, urgent: bool) -> int:
    if box.free >= need and urgent:
        return 1
    return 2 if need > box.free else 0


class _Counting:
    """Every hook the recorder has, counted; values go through as the recorder lets them."""

    missing = object()

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        def hook(*args: Any) -> Any:
            self.calls[name] += 1
            if name in ("b", "d"):
                return bool(args[1] if name == "d" else args[2])
            if name == "o":
                return {}
            if name in ("v", "s", "stored", "r"):
                return args[2] if name == "s" else args[1]
            return -1 if name == "e" else None
        return hook


def test_a_decision_is_one_hook_call_carrying_its_inputs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    code = instrumented(_admit.__code__, frozenset())
    assert code is not None, "the recorder could not build an instrumented copy of _admit"
    copy = type(_admit)(code, _admit.__globals__)
    counting = _Counting()
    monkeypatch.setattr(builtins, HOOK, counting, raising=False)
    assert copy(_Box(5, []), 2, True) == 1, "the instrumented copy decided otherwise"
    decisions = sum(n for name, n in counting.calls.items() if name not in ("e", "r", "x"))
    assert decisions == 1, (
        f"one if evaluated (reading box.free, need, urgent) made {decisions} hook calls "
        f"({dict(counting.calls)}): a decision's reads should travel with its one hook call")


def _records(folder: Path, run) -> list:
    with record_decisions(folder, 0, include=[__file__]):
        run()
    (records,) = read_records(folder, 1)
    return records


def _in_one_frame(box: _Box) -> list[int]:
    taken = []
    for need, urgent in ((2, True), (9, True)):
        if box.free >= need and urgent:
            taken.append(need)
    return taken


def test_a_read_the_condition_skipped_is_no_input(tmp_path: Path) -> None:
    branches = [r for r in _records(tmp_path, lambda: _in_one_frame(_Box(5, [])))
                if r.kind == "if"]
    assert [b.took for b in branches] == [True, False], \
        f"the two ifs were recorded as {[(b.took, b.inputs) for b in branches]}"
    first, second = (b.inputs for b in branches)
    assert first == {"box.free": "5", "need": "2", "urgent": "True"}, \
        f"the first if read box.free=5, need=2, urgent=True; recorded {first}"
    assert second == {"box.free": "5", "need": "9"}, (
        f"the second if stopped at box.free >= need (5 >= 9) and never read urgent; recorded "
        f"{second}: a skipped read must not show (nor keep the first pass's value)")


def _over(box: _Box, limit: int) -> bool:
    if any(size > limit for size in box.sizes):
        return True
    return False


def test_a_read_inside_a_comprehension_iterable_is_still_an_input(tmp_path: Path) -> None:
    branches = [r for r in _records(tmp_path, lambda: _over(_Box(1, [3, 9]), 4))
                if r.kind == "if"]
    assert len(branches) == 1, f"one if evaluated, recorded {branches}"
    assert branches[0].inputs.get("box.sizes") == "[3, 9]", (
        f"the if read box.sizes=[3, 9] in a generator's iterable; recorded "
        f"{branches[0].inputs}")


@pytest.mark.xdist_group("deskcheck-suites-hang")
def test_fresh_ranks_build_their_instrumented_copies_before_the_first_recorded_task(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch.distributed")
    from deskcheck.suites import RankPool
    from tests.suites import _split_decisions as S

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    monkeypatch.setenv("DESKCHECK_RECORD", "all")
    with RankPool(2, "gloo", start_method="spawn", timeout_s=10) as pool:
        first = pool.run(S.rewritten_in_this_recording, per_rank=[0, 1])
        second = pool.run(S.rewritten_in_this_recording, per_rank=[0, 1])
        tasks = pool.tasks_run
    assert first == [[], []], (
        f"the first recorded task in fresh (spawned) ranks instrumented {first} inside the "
        "task: that first use (seconds on a loaded machine) counts against the task's "
        "collectives' timeout; the ranks should build their copies before the task")
    assert second == [[], []], f"the second recorded task instrumented {second}"
    assert tasks == 3, (
        f"two recorded tasks of one module ran {tasks} tasks on the ranks; expected 3 (one "
        "preparation, then the two): the ranks prepare once a module")


class _Policy(enum.Enum):
    LPM = "lpm"


def _reads_then_grows(box: _Box, names: tuple[str, ...], policy: _Policy) -> int:
    taken = 0
    if box.sizes and names and policy is _Policy.LPM:
        taken += 1
    box.sizes.append(len(box.sizes))  # after the read, before the recording is written
    if len(box.sizes) > 1:
        taken += 1
    return taken


@pytest.mark.parametrize("sizes", [[3, 9], list(range(40)), ["a" * 60, "b"]])
def test_a_list_read_by_a_decision_shows_as_it_was_when_read(tmp_path: Path,
                                                             sizes: list[Any]) -> None:
    from deskcheck.suites._values import show

    names = ("lpm", "fcfs")
    expected = {"box.sizes": show(list(sizes)), "names": show(names),
                "policy": show(_Policy.LPM)}
    box = _Box(1, sizes)
    branches = [r for r in _records(tmp_path, lambda: _reads_then_grows(box, names,
                                                                        _Policy.LPM))
                if r.kind == "if"]
    assert branches and branches[0].took is True, f"the first if was recorded as {branches}"
    read = {k: v for k, v in branches[0].inputs.items() if k in expected}
    assert read == expected, (
        f"the first if read {expected}; recorded {read}: a list is shown as it was when "
        "the decision read it (the function appended to it before the flush), as show() "
        "shows it")
