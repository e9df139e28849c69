"""The recorder's rows as the reader reads them back (docs/suites.md "The first split"): a list
kept as it is shows as show() shows it, sites instrumented after a file's first table are read,
and a collective the code kept by reference during a recording runs alone after it."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from deskcheck.suites import record_decisions
from deskcheck.suites.recorder import show
from deskcheck.suites.split import read_records


class _Slot:
    """A user object (shown by its type)."""


def _reads_a_mixed_list(items: list) -> int:
    if len(items) > 1:
        return 1
    return 0


def test_a_list_holding_an_object_after_a_scalar_is_shown_as_show_shows_it(
        tmp_path: Path) -> None:
    items = [1, _Slot()]  # kept as it is (its first item is a scalar); marshal refuses it
    with record_decisions(tmp_path, 0, include=[__file__]):
        took = _reads_a_mixed_list(items)
    assert took == 1, "the recorded function must return what it returns unrecorded"
    (records,) = read_records(tmp_path, 1)
    branches = [r for r in records if r.kind == "if"]
    assert [b.inputs for b in branches] == [{"items": show(items)}], (
        f"the list [1, <_Slot>] must read back as {show(items)!r}; "
        f"the ifs were recorded as {[b.inputs for b in branches]}")


def _first(value: int) -> int:
    if value > 2:
        return 1
    return 0


def test_sites_instrumented_after_a_files_first_table_are_read_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "code"
    code.mkdir()
    later = code / "dk_rows_later.py"  # instrumented by the second recording only
    later.write_text("def later(value):\n    if value < 5:\n        return 1\n    return 0\n",
                     encoding="utf-8")
    monkeypatch.syspath_prepend(str(code))
    monkeypatch.delitem(sys.modules, "dk_rows_later", raising=False)
    import dk_rows_later  # type: ignore[import-not-found]

    folder = tmp_path / "records"
    folder.mkdir()
    with record_decisions(folder, 0, include=[__file__]):
        _first(3)
    with record_decisions(folder, 0, include=[__file__, str(later)]):
        dk_rows_later.later(4)
    monkeypatch.delitem(sys.modules, "dk_rows_later")
    (records,) = read_records(folder, 1)
    conditions = [r.condition for r in records if r.kind == "if"]
    assert conditions == ["value > 2", "value < 5"], (
        "the second recording's module was instrumented after the file's first table of "
        f"sites; both ifs must read back, got {conditions}")


def test_a_collective_kept_during_a_recording_runs_alone_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("torch.distributed")
    calls: list[list[int]] = []
    reduce = calls.append
    fake.all_reduce = reduce  # type: ignore[attr-defined]
    fake.is_initialized = lambda: False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch.distributed", fake)
    with record_decisions(tmp_path, 0, include=[__file__]):
        kept = sys.modules["torch.distributed"].all_reduce  # as `from ... import` would
    kept([7])  # after the recording: its file is closed
    assert calls == [[7]], f"the kept all_reduce must run the collective itself; ran {calls}"
    assert sys.modules["torch.distributed"].all_reduce is reduce, \
        "the recording must put the collective back"


def test_a_rank_file_of_the_earlier_form_still_reads_back(tmp_path: Path) -> None:
    import base64
    import json
    import marshal

    sites = {4: ("/p/sched.py", 12, "if", "free >= need", "Sched.admit", ("free", "need"))}
    rows = [(1, 2, 4, True, (3, 2), ("Sched.step", "Sched.admit")),  # numbers: shown by the reader
            (2, 2, 4, False, {"free": "'low'"}, ("Sched.step", "Sched.admit"))]  # a str: shown
    line = {"m": base64.b64encode(marshal.dumps(({}, rows, [], 1))).decode("ascii"),
            "s": base64.b64encode(marshal.dumps(sites)).decode("ascii")}
    (tmp_path / "rank0.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (records,) = read_records(tmp_path, 1)
    got = [(r.n, r.epoch, r.where, r.took, r.inputs, r.path) for r in records]
    assert got == [(1, 2, "/p/sched.py:12", True, {"free": "3", "need": "2"},
                    ("Sched.step", "Sched.admit")),
                   (2, 2, "/p/sched.py:12", False, {"free": "'low'"},
                    ("Sched.step", "Sched.admit"))], \
        f"a rank file written before the rows lost their number and path must read back; got {got}"
