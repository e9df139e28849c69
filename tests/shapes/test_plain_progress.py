"""Issue 30, case 7: in a CI log (no terminal) a progress line is written only when what it
says changed, and at most every few seconds."""

from __future__ import annotations

import io

from rich.console import Console

import deskcheck.progress as progress
from deskcheck.progress import ProgressReporter


def test_a_plain_line_is_written_on_change_only(monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    reporter = ProgressReporter(Console(file=out, width=80))
    assert not reporter.live, "a reporter on a plain (non-terminal) console must not be live"
    reporter.begin("run", "branch", total=3)
    for _ in range(11):  # a minute of a test that takes long: the same line each time
        clock[0] += 6.0
        reporter.update("run", completed=1, plain="  branch: 1/3 run (tests/test_a.py::test_x)")
    clock[0] += 1.0
    reporter.update("run", completed=2, plain="  branch: 2/3 run (tests/test_a.py::test_y)")
    clock[0] += 1.0  # a change one second after the last line: not yet
    reporter.update("run", completed=3, plain="  branch: 3/3 run (tests/test_a.py::test_z)")
    clock[0] += 6.0
    reporter.update("run", completed=3, plain="  branch: 3/3 run (tests/test_a.py::test_z)")
    clock[0] += 6.0
    reporter.update("run", completed=3, plain="  branch: 3/3 run (tests/test_a.py::test_z)")
    lines = [ln for ln in out.getvalue().splitlines() if "run (" in ln]
    assert lines == ["  branch: 1/3 run (tests/test_a.py::test_x)",
                     "  branch: 2/3 run (tests/test_a.py::test_y)",
                     "  branch: 3/3 run (tests/test_a.py::test_z)"], (
        f"an unchanged line was repeated, or a change came sooner than every few seconds: "
        f"{lines}")
