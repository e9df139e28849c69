"""Issue 16 item 2: a sweep shows progress from its first second, collection included, with
names a person understands; without a TTY (a CI log) it writes plain lines.

The test is about order, not time: the test module's import blocks until the test sees the
"collecting" line on the sweep's stderr, so it can only pass if progress is written before
collection ends (a sweep that stays silent through collection never releases it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.pythonpath import extended

MODULE = "def bump(x):\n    return x + 1\n"
BLOCKING_TEST = '''import os, pathlib, time

_release = pathlib.Path(os.environ["DESKCHECK_TEST_RELEASE"])
_deadline = time.monotonic() + 300
while not _release.exists():  # collection waits here until progress was seen
    if time.monotonic() > _deadline:
        raise RuntimeError("no progress line was written before collection")
    time.sleep(0.05)


def test_bump():
    from pkg.mod import bump
    assert bump(1) == 2, "bump(1) must be 2"
'''
CATALOG = '''[sweep]
tests = ["tests"]

[[mutant]]
id = "bump.adds_two"
title = "bump adds two"
target = "pkg.mod:bump"
operator = "replace"
old = "x + 1"
new = "x + 2"
owners = ["tests/test_bump.py::test_bump"]
'''


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_bump.py").write_text(BLOCKING_TEST)
    (tmp_path / "mutants.toml").write_text(CATALOG)
    return tmp_path


def test_progress_is_written_before_collection_ends_and_names_tests(tmp_path: Path):
    root = _project(tmp_path)
    release = tmp_path / "release"
    env = {**os.environ, "DESKCHECK_TEST_RELEASE": str(release), "CUDA_VISIBLE_DEVICES": "",
           "PYTHONPATH": extended(root)}
    stdout = (tmp_path / "stdout.txt").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "deskcheck", "sweep", "--catalog",
                             "mutants.toml", "--no-store", "-n", "1"], cwd=root, env=env,
                            stdout=stdout, stderr=subprocess.PIPE, text=True)
    seen_before_release: list[str] = []
    lines: list[str] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if not release.exists():
                seen_before_release.append(lines[-1])
                if "collecting" in line:
                    release.write_text("go")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        proc.wait(timeout=600)
    finally:
        release.write_text("go")
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=60)
        stdout.close()
    out = (tmp_path / "stdout.txt").read_text()
    log = "\n".join(lines)
    assert any("collecting" in line for line in seen_before_release), (
        f"no collecting line before collection ended; stderr was:\n{log}")
    assert proc.returncode == 0, f"the sweep failed (exit {proc.returncode}):\n{log}\n{out}"
    assert "collected 1 test in" in log and "1 tests" not in log, f"collection gave no count:\n{log}"
    assert "baseline-0" not in log and "test_bump.py" in log, (
        f"the baseline is labelled by a job key, not by the tests it runs:\n{log}")
    assert "bump.adds_two KILLED" in log, f"the mutant's progress line names no verdict:\n{log}"
    assert "\x1b[" not in log, f"a CI log (no TTY) got terminal escapes:\n{log!r}"
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("1 mutants in ") and summary.endswith("-> holds"), (
        f"the last line of stdout is not the one-line summary: {summary!r}")


TWO_MUTANTS = CATALOG + '''
[[mutant]]
id = "bump.subtracts"
title = "bump subtracts"
target = "pkg.mod:bump"
operator = "replace"
old = "x + 1"
new = "x - 1"
owners = ["tests/test_bump.py::test_bump"]
'''


def _sweep(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": extended(root)}
    return subprocess.run([sys.executable, "-m", "deskcheck", "sweep", "--catalog",
                           "mutants.toml", "-n", "1", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def test_reuse_is_said_before_the_mutant_lines_and_no_collection_without_a_session(
        tmp_path: Path):
    root = _project(tmp_path)
    (root / "tests" / "test_bump.py").write_text(
        "def test_bump():\n    from pkg.mod import bump\n    assert bump(1) == 2\n")
    (root / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    first = _sweep(root)
    assert first.returncode == 0, first.stderr
    second = _sweep(root)  # every verdict reused: no session at all
    assert second.returncode == 0, second.stderr
    assert "no test session" in second.stderr and "collecting" not in second.stderr, (
        f"a sweep that reused every verdict says it is collecting tests:\n{second.stderr}")
    (root / "mutants.toml").write_text(TWO_MUTANTS)  # one new mutant: one reused, one run
    third = _sweep(root)
    log = third.stderr
    assert third.returncode == 0, log
    reused, mutant = log.find("verdict(s) reused"), log.find("bump.subtracts KILLED")
    assert 0 <= reused < mutant, f"'verdict(s) reused' is not said before the mutant lines:\n{log}"
