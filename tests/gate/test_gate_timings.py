"""docs/gate.md, workers: the first run measures the base side in-process and chooses for the
branch side; the time is kept in ``.deskcheck/gate_timings.json`` for the next run
(deskcheck's own folder, which ignores itself). Pure checks of that file's round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.gate.workers import TIMINGS_FILE, record_suite_s, recorded_suite_s


def test_the_suite_time_is_kept_for_the_next_run_in_deskchecks_own_folder(tmp_path: Path):
    assert recorded_suite_s(tmp_path) is None, (
        "with no regress run yet there is no recorded suite time; got "
        f"{recorded_suite_s(tmp_path)}")
    record_suite_s(tmp_path, 12.5, 0)
    kept = tmp_path / ".deskcheck" / "gate_timings.json"
    assert TIMINGS_FILE == ".deskcheck/gate_timings.json" and kept.is_file(), (
        f"docs/gate.md: the time is kept in .deskcheck/gate_timings.json; it went to "
        f"{TIMINGS_FILE} (the file exists: {kept.is_file()})")
    assert recorded_suite_s(tmp_path) == 12.5, (
        f"the next run must read the kept in-process time 12.5 s; it read "
        f"{recorded_suite_s(tmp_path)}")
    ignore = tmp_path / ".deskcheck" / ".gitignore"
    assert ignore.is_file() and "*" in ignore.read_text().split(), (
        f"docs/gate.md: deskcheck's own folder ignores itself; .deskcheck/.gitignore exists: "
        f"{ignore.is_file()}")


def test_a_time_measured_under_xdist_is_kept_as_an_in_process_time(tmp_path: Path):
    record_suite_s(tmp_path, 10.0, 3)
    assert recorded_suite_s(tmp_path) == 30.0, (
        f"a 10 s run under -n 3 is kept as the in-process time it stands for (30 s), so the "
        f"next choice is made on the same scale; it kept {recorded_suite_s(tmp_path)}")


@pytest.mark.parametrize("text", ["", "not json", '{"regress": {}}', '{"regress": {"suite_s": "x"}}'])
def test_an_unreadable_timings_file_means_measure_again(tmp_path: Path, text: str):
    path = tmp_path / TIMINGS_FILE
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert recorded_suite_s(tmp_path) is None, (
        f"a timings file holding {text!r} must be read as no recorded time (measure again); "
        f"it read {recorded_suite_s(tmp_path)}")
