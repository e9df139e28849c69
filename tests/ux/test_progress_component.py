"""The one progress component every long command uses (``deskcheck.progress``): a pytest
child's running counts (``deskcheck.progress_counts``) become plain lines in a CI log, with the
words the docs use, and never a carriage return or a terminal escape."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from deskcheck.progress import COUNTS_ENV, ProgressReporter, child_progress, follow_child
from deskcheck.progress_counts import ENV

ESCAPES = re.compile(r"\r|\x1b\[")
TESTS = '''import pytest


def test_one():
    pass


def test_two():
    assert False, "fails on purpose"


@pytest.mark.parametrize("n", [1, 2])
def test_many(n):
    pass
'''


def _ci_log() -> tuple[ProgressReporter, io.StringIO]:
    out = io.StringIO()
    return ProgressReporter(Console(file=out, width=80)), out


def test_the_parent_and_the_child_agree_on_the_variable():
    assert COUNTS_ENV == ENV, "the parent reads a file the child was never told about"


def test_a_child_is_shown_collecting_then_running_then_its_summary():
    reporter, out = _ci_log()
    with reporter:
        view = child_progress("base")
        view.start()
        view({"collected": 2, "total": None, "done": 0, "failed": 0, "last": "t.py::a"})
        view({"collected": 3, "total": 1, "done": 0, "failed": 0, "last": ""})
        view.finish({"collected": 3, "total": 1, "done": 1, "failed": 1, "last": "t.py::a"})
    lines = out.getvalue().splitlines()
    assert lines[:1] == ["base: collecting tests..."], f"no collecting line first: {lines}"
    assert len(lines) == 5, f"expected 5 plain lines (a CI log), got {lines}"
    assert lines[1] == "  base: 2 tests collected so far", (
        f"the running count of the collection is not shown at once: {lines}")
    assert lines[2].startswith("base: collected 3 tests in") and lines[2].endswith(
        ", 1 selected"), f"the collection summary lost the count or the selection: {lines}"
    assert lines[3] == "base: running 1 test", f"the run does not say how many: {lines}"
    assert lines[4].startswith("base: 1 test run in") and lines[4].endswith("1 failed"), (
        f"the end line does not say what ran and what failed: {lines}")
    assert not ESCAPES.search(out.getvalue()), f"escapes in a CI log: {out.getvalue()!r}"


def test_no_active_reporter_shows_nothing_and_costs_nothing():
    view = child_progress("base")
    view.start()
    view.finish({"collected": 1, "total": 1, "done": 1, "failed": 0, "last": ""})
    assert view.reporter is None, "a view was attached to a reporter no command made active"


def test_the_child_writes_its_counts_and_the_parent_follows_them(tmp_path: Path):
    (tmp_path / "test_counts.py").write_text(TESTS)
    counts = tmp_path / "counts.json"
    env = {**os.environ, ENV: str(counts), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "deskcheck.progress_counts", "-p", "no:randomly",
                              "test_counts.py"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    reporter, out = _ci_log()
    with reporter:
        code, output = follow_child(child, counts, child_progress("branch"), timeout_s=300)
    assert code == 1, f"pytest should report the failing test (exit 1):\n{output}"
    final = json.loads(counts.read_text())
    assert (final["collected"], final["total"], final["done"], final["failed"]) == (4, 4, 4, 1), (
        f"the child's counts are wrong (collected, total, done, failed): {final}")
    log = out.getvalue()
    assert "branch: collected 4 tests in" in log and "branch: 4 tests run in" in log and (
        "1 failed" in log), f"the parent did not show the child's counts:\n{log}"
    assert "test_two" in output, "the child's own output was lost while following it"


def test_a_failed_test_counts_once_whatever_phase_failed(tmp_path: Path, monkeypatch):
    from types import SimpleNamespace

    from deskcheck import progress_counts

    counts = progress_counts._Counts(tmp_path / "counts.json")
    monkeypatch.setattr(progress_counts, "_COUNTS", counts)
    failed = SimpleNamespace(nodeid="t.py::a", failed=True, passed=False, skipped=False)
    passed = SimpleNamespace(nodeid="t.py::b", failed=False, passed=True, skipped=False)
    for report in (failed, failed, passed):  # t.py::a fails its call and its teardown
        progress_counts.pytest_runtest_logreport(report)
    assert counts.state["failed"] == 1, (
        f"one failing test (call and teardown) must count as 1 failed: {counts.state}")


def test_a_child_started_from_inside_an_xdist_worker_still_reports(tmp_path: Path):
    """``deskcheck auto`` run by a test under ``pytest -n 2`` inherits PYTEST_XDIST_WORKER;
    its coverage pass is still a controller and must report its counts."""
    (tmp_path / "test_counts.py").write_text(TESTS)
    counts = tmp_path / "counts.json"
    env = {**os.environ, ENV: str(counts), "PYTEST_XDIST_WORKER": "gw0",
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "deskcheck.progress_counts", "-p", "no:randomly",
                           "test_counts.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert counts.is_file(), f"the child wrote no counts under an inherited worker id:\n{done.stdout}"
    assert json.loads(counts.read_text())["total"] == 4, counts.read_text()
