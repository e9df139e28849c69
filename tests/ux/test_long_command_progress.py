"""Issue 16: every long command says what it is doing from its first second, in a person's
words (collecting tests with a count, then the base / the branch / the tests under coverage,
then the mutants), and ends on a one-line summary; in a CI log (no TTY) it writes plain lines,
never a carriage return or a terminal escape.

Each command runs as a user runs it (``python -m deskcheck ...``, output to pipes, so not a
TTY) on a small git project: base ``main`` has ``calc.sub`` wrong, the working tree fixes it
and adds ``test_sub`` (red on base, green on the branch)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gate.gitproject import GitProject
from tests.pythonpath import extended

REPO = Path(__file__).resolve().parents[2]
BASE_OPS = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
BASE_TESTS = ("from calc.ops import add, sub\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
              "def test_add_zero():\n    assert add(0, 0) == 0\n")
NEW_TEST = "\n\ndef test_sub():\n    assert sub(3, 1) == 2, 'sub subtracts'\n"
ESCAPES = re.compile(r"\r|\x1b\[")


@pytest.fixture
def project(tmp_path: Path) -> GitProject:
    repo = GitProject(tmp_path / "proj")
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    repo.write("calc/__init__.py", "")
    repo.write("calc/ops.py", BASE_OPS)
    repo.write("tests/__init__.py", "")
    repo.write("tests/test_ops.py", BASE_TESTS)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("calc/ops.py", BASE_OPS[:-len("a + b\n")] + "a - b\n")
    repo.write("tests/test_ops.py", BASE_TESTS + NEW_TEST)
    repo.commit("fix sub, test it")
    return repo


def _deskcheck(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": extended(REPO), "CUDA_VISIBLE_DEVICES": "",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("TERM", None)
    env.pop("FORCE_COLOR", None)
    return subprocess.run([sys.executable, "-m", "deskcheck", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _in_order(log: str, expected: list[str]) -> None:
    """Each expected pattern (a regex) on a line after the line of the one before it."""
    lines = log.splitlines()
    at = -1
    for text in expected:
        found = next((n for n in range(at + 1, len(lines)) if re.search(text, lines[n])),
                     None)
        assert found is not None, (
            f"progress line {text!r} is missing or out of order (after line {at}); "
            f"stderr was:\n{log}")
        at = found


def _plain(log: str, out: str) -> None:
    assert not ESCAPES.search(log + out), (
        f"a CI log (no TTY) got a carriage return or a terminal escape:\n{log!r}")


def test_regress_shows_each_side_collecting_then_running(project: GitProject):
    done = _deskcheck(project.root, "regress", "--base", "main")
    log = done.stderr
    assert done.returncode == 0, f"the gate failed (exit {done.returncode}):\n{log}\n{done.stdout}"
    assert log.splitlines()[0].startswith("deskcheck regress: the working tree against "
                                          "merge-base(main, HEAD)"), (
        f"the first line does not say what the gate compares:\n{log}")
    _in_order(log, [r"^base: collecting tests\.\.\.$", r"^base: collected 2 tests in [\d.]+s$",
                    r"^base: running 2 tests$", r"^base: 2 tests run in [\d.]+s, 0 failed$",
                    r"^branch: collecting tests\.\.\.$",
                    r"^branch: collected 3 tests in [\d.]+s$", r"^branch: running 3 tests$",
                    r"^branch: 3 tests run in [\d.]+s, 0 failed$"])
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("HOLDS: 0 regressions"), (
        f"the last line of stdout is not the one-line summary: {summary!r}")
    _plain(log, done.stdout)


def test_redfirst_names_the_base_and_the_branch_runs(project: GitProject):
    done = _deskcheck(project.root, "redfirst", "--base", "main")
    log = done.stderr
    assert done.returncode == 0, f"the gate failed (exit {done.returncode}):\n{log}\n{done.stdout}"
    _in_order(log, [r"^deskcheck redfirst: the working tree against merge-base\(main, HEAD\)$",
                    r"scratch worktree$", r"^base: collecting tests\.\.\.$",
                    r"^base: collected 3 tests in [\d.]+s, 1 selected$",
                    r"^base: running 1 test$", r"^base: 1 test run in [\d.]+s, 1 failed$",
                    r"^branch: collecting tests\.\.\.$",
                    r"^branch: 1 test run in [\d.]+s, 0 failed$"])
    assert done.stdout.strip().splitlines()[-1].startswith("HOLDS"), (
        f"no one-line summary at the end of stdout:\n{done.stdout}")
    _plain(log, done.stdout)


def test_auto_shows_the_coverage_pass_then_the_mutants(project: GitProject):
    done = _deskcheck(project.root, "auto", "--changed-since", "main", "--no-store",
                      "--workers", "1")
    log = done.stderr
    assert done.returncode in (0, 1), f"auto failed (exit {done.returncode}):\n{log}"
    _in_order(log, [r"^deskcheck auto: mutating the lines changed since main$",
                    r"finding their owners", r"^coverage pass: collecting tests\.\.\.$",
                    r"^coverage pass: collected 3 tests in [\d.]+s$",
                    r"^coverage pass: running 3 tests under coverage$",
                    r"^coverage pass: 3 tests under coverage run in [\d.]+s, 0 failed$",
                    r"against their owners$", r"^collecting tests\.\.\.$",
                    r"^collected \d+ tests? in", r"^baseline", r"^mutants: \d+ to run$"])
    assert done.stdout.strip(), f"auto printed no result:\n{log}"
    _plain(log, done.stdout)


def test_building_the_coverage_map_shows_the_coverage_pass(project: GitProject):
    done = _deskcheck(project.root, "auto", "--build-coverage-map")
    log = done.stderr
    assert done.returncode == 0, f"--build-coverage-map failed (exit {done.returncode}):\n{log}"
    _in_order(log, [r"^deskcheck auto: building the coverage map",
                    r"^coverage pass: collecting tests\.\.\.$",
                    r"^coverage pass: collected 3 tests in [\d.]+s$",
                    r"^coverage pass: 3 tests under coverage run in [\d.]+s, 0 failed$"])
    assert done.stdout.strip().startswith("coverage map built: 3 tests"), (
        f"no one-line summary of the map on stdout:\n{done.stdout}")
    _plain(log, done.stdout)


def test_standins_run_shows_the_coverage_pass():
    target = "examples/tp_scheduler/tests/test_adhoc_standins.py"
    done = _deskcheck(REPO, "standins", "--run", target)
    log = done.stderr
    assert done.returncode == 0, f"standins --run failed (exit {done.returncode}):\n{log}"
    _in_order(log, [f"^deskcheck standins: finding stand-ins under {re.escape(target)}$",
                    r"driving test\(s\) run once under coverage",
                    r"^coverage pass: collecting tests\.\.\.$", r"^coverage pass: collected \d+",
                    r"^coverage pass: running \d+ tests under coverage$",
                    r"^coverage pass: \d+ tests under coverage run in [\d.]+s, 0 failed$"])
    _plain(log, done.stdout)
