"""What the decision recorder writes (docs/suites.md "The first split"): one record a loop with
its trip count, values a collective produced marked agreed, no property run, no repr of user
objects, project code only (not deskcheck), and DESKCHECK_RECORD=off records nothing."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

import deskcheck.suites.recorder as recorder_module
from deskcheck.suites import record_decisions
from deskcheck.suites.recorder import is_project_file, recording_enabled, show
from deskcheck.suites.split import read_records


def _records(folder: Path, run) -> list:
    with record_decisions(folder, 0, include=[__file__]):
        run()
    (records,) = read_records(folder, 1)
    return records


def _loop() -> int:
    total = 0
    for item in range(3):
        total += item
    return total


def test_a_for_loop_is_one_record_with_its_trip_count(tmp_path: Path) -> None:
    loops = [r for r in _records(tmp_path, _loop) if r.kind == "for"]
    assert len(loops) == 1, (f"a 3-iteration for loop left {len(loops)} records "
                             f"({[r.took for r in loops]}), expected one record per loop")
    assert loops[0].took == 3, f"the loop's trip count was recorded as {loops[0].took!r}, not 3"


def _decide_after_reduce(box: list, limit: int) -> int:
    sys.modules["torch.distributed"].all_reduce(box)
    value = box[0]
    if value >= limit:
        return 1
    return 0


def test_a_value_the_collective_produced_is_agreed_not_the_one_it_was_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("torch.distributed")

    def all_reduce(box: list) -> None:  # the group's sum: 1234 here becomes 7777
        box[0] = 7777

    fake.all_reduce = all_reduce  # type: ignore[attr-defined]
    fake.is_initialized = lambda: False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch.distributed", fake)
    (branch,) = [r for r in _records(tmp_path, lambda: _decide_after_reduce([1234], 5000))
                 if r.kind == "if"]
    assert branch.inputs.get("value") == "7777", f"inputs recorded: {branch.inputs}"
    assert "value" in branch.agreed, (
        "the value the all_reduce produced (7777) was not marked agreed "
        f"(agreed: {sorted(branch.agreed)}): the recorder remembered the collective's input, "
        "not its result")


class _Loud:
    reads = 0

    @property
    def ready(self) -> bool:
        type(self).reads += 1
        return True

    def __repr__(self) -> str:
        raise AssertionError("the recorder called repr() of a user object")


def _check(box: _Loud) -> int:
    if box.ready:
        return 1
    return 0


def test_a_property_runs_once_and_its_input_is_the_value_the_code_read(tmp_path: Path) -> None:
    _Loud.reads = 0
    (branch,) = [r for r in _records(tmp_path, lambda: _check(_Loud())) if r.kind == "if"]
    assert _Loud.reads == 1, (
        f"the property ran {_Loud.reads} times, expected once (by the code itself): the "
        "recorder ran a property to read its value")
    assert branch.inputs.get("box.ready") == "True", (
        f"a property input should show the value the condition read (True), got "
        f"{branch.inputs}")


def test_a_user_object_shows_as_its_type_without_repr() -> None:
    try:
        shown = show(_Loud())
    except AssertionError as exc:
        raise AssertionError(f"show() called repr() of a user object: {exc}") from None
    assert shown == "<_Loud>", f"a user object showed as {shown!r}, expected its type <_Loud>"


def test_only_project_code_is_recorded_not_deskcheck_or_the_stdlib() -> None:
    assert is_project_file(__file__), "a test file of the project was taken as library code"
    assert not is_project_file(recorder_module.__file__), (
        "deskcheck's own recorder module was taken as project code: deskcheck is recorded")
    assert not is_project_file(types.__file__), "the standard library was taken as project code"


@pytest.mark.parametrize("value", ["off", "OFF", "0", "no", "false"])
def test_deskcheck_record_off_turns_recording_off(value: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_RECORD", value)
    assert recording_enabled() is False, f"DESKCHECK_RECORD={value} left recording on"


def test_recording_is_on_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    assert recording_enabled() is True, "with DESKCHECK_RECORD unset, arms did not record"


class _RequestId(str):
    """A user subclass of a scalar type with its own repr."""

    def __repr__(self) -> str:
        raise AssertionError("the recorder called repr() of a user subclass of str")


def test_a_user_subclass_of_a_scalar_type_shows_without_its_repr() -> None:
    try:
        shown = show(_RequestId("rid-7"))
        shown_list = show([_RequestId("rid-7")])
    except AssertionError as exc:
        raise AssertionError(f"show() ran a user-defined __repr__: {exc}") from None
    assert shown == "<_RequestId len=5>", (
        f"a str subclass with its own __repr__ showed as {shown!r}, expected its type")
    assert shown_list == "<list len=1>", f"a list of them showed as {shown_list!r}"


@pytest.mark.parametrize("value", [10 ** 60, list(range(9)), "x" * 60],
                         ids=["long-int", "nine-numbers", "long-str"])
def test_a_long_value_shows_as_a_digest_not_in_full(value: object) -> None:
    """docs/suites.md:216-217: long values show as a length and a digest; short ones in full."""
    shown = show(value)
    assert len(shown) <= 48 and ("sha1:" in shown or "#" in shown), (
        f"a long {type(value).__name__} must show as a digest (docs/suites.md:216-217), at most "
        f"48 characters; it showed as {shown[:70]!r} ({len(shown)} characters)")
    assert show(7) == "7" and show([1, 2]) == "[1, 2]" and show("ab") == "'ab'", (
        f"short values show in full: 7, [1, 2], 'ab' showed as {show(7)!r}, {show([1, 2])!r}, "
        f"{show('ab')!r}")
