"""Interrupted gates leave no worktree, no scratch folder and no process behind; runner
retries cannot sneak in; the pin marker is documented."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deskcheck.errors import GateError
from deskcheck.gate import run_redfirst
from tests.gate.scenario import build

pytestmark = pytest.mark.xdist_group("gate-cleanup")

SLOW_TEST = """
import os
import time
from pathlib import Path


def test_sleeps():
    with Path(os.environ["GATE_PID_FILE"]).open("a") as pids:
        pids.write(f"{os.getpid()}\\n")
    time.sleep(120)
"""


def _wait_for(predicate, timeout: float = 60.0, what=lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting: {what()}")
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(("signum", "parallel"), [(signal.SIGTERM, False), (signal.SIGINT, True)])
def test_signal_during_the_runs_cleans_up(tmp_path: Path, signum: int, parallel: bool) -> None:
    """Sequential: interrupted in the base run. Parallel: both sides' children running."""
    project = build(tmp_path / "repo")
    project.write("tests/test_slow.py", SLOW_TEST)
    project.commit("a slow test")
    before = project.snapshot()
    pid_file = tmp_path / "pid"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("PYTHONPATH", None)
    gate = subprocess.Popen(
        [sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
         "tests/test_slow.py", *(["--parallel"] if parallel else [])], cwd=project.root, env={**env, "GATE_PID_FILE": str(pid_file)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        expected = 2 if parallel else 1

        def state() -> str:
            pids = pid_file.read_text().split() if pid_file.exists() else []
            gate.kill()
            out, err = gate.communicate()
            return (f"{expected} test processes should be running, {pids} wrote their pid; "
                    f"the gate said:\n{out}\n{err}")

        _wait_for(lambda: pid_file.exists() and len(pid_file.read_text().split()) == expected,
                  what=state)
        worktrees = project.git("worktree", "list", "--porcelain")
        scratch = Path([ln.split(" ", 1)[1] for ln in worktrees.splitlines()
                        if ln.startswith("worktree ")][1]).parent
        assert scratch.name.startswith("deskcheck-gate-") and scratch.is_dir()
        test_pids = [int(p) for p in pid_file.read_text().split()]
        gate.send_signal(signum)
        _, err = gate.communicate(timeout=60)
    finally:
        if gate.poll() is None:
            gate.kill()
            gate.wait()
    assert gate.returncode == 130, err
    assert "interrupted" in err
    assert not scratch.exists()
    assert not any(_alive(pid) for pid in test_pids)
    assert project.snapshot() == before  # worktree removed and pruned, index untouched


def test_the_next_gate_removes_what_a_killed_gate_left(tmp_path: Path) -> None:
    """SIGKILL gives a gate no chance to clean up: its scratch worktree stays registered in
    the user's repository. The next gate finds its owner dead and removes it, worktree entry
    and scratch folder, and says so; the user's tree and index stay as they were."""
    project = build(tmp_path / "repo")
    project.write("tests/test_slow.py", SLOW_TEST)
    project.commit("a slow test")
    pid_file = tmp_path / "pid"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    # PYTHONPATH kept: under a deskcheck self-mutant it carries the import hook to the gates
    gate = subprocess.Popen(
        [sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
         "tests/test_slow.py"], cwd=project.root, env={**env, "GATE_PID_FILE": str(pid_file)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: pid_file.exists() and pid_file.read_text().strip())
    finally:
        gate.kill()
        gate.wait()
        for pid in pid_file.read_text().split() if pid_file.exists() else []:
            os.kill(int(pid), signal.SIGKILL)
    listed = project.git("worktree", "list", "--porcelain")
    left = [Path(ln.split(" ", 1)[1]) for ln in listed.splitlines() if ln.startswith("worktree ")]
    assert len(left) == 2, f"the killed gate should have left its worktree registered: {listed}"
    scratch = left[1].parent
    assert scratch.name.startswith("deskcheck-gate-") and scratch.is_dir()
    project.write("tests/test_slow.py", SLOW_TEST.replace("time.sleep(120)", "pass"))
    before = project.snapshot()
    second = subprocess.run(
        [sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
         "tests/test_slow.py"], cwd=project.root, env={**env, "GATE_PID_FILE": str(pid_file)},
        capture_output=True, text=True, timeout=120)
    assert second.returncode in (0, 1), second.stderr
    assert not scratch.exists(), (f"the next gate left the dead gate's scratch folder {scratch}"
                                  f"\n{second.stdout}\n{second.stderr}")
    listed = project.git("worktree", "list", "--porcelain")
    assert [ln for ln in listed.splitlines() if ln.startswith("worktree ")] == [
        f"worktree {left[0]}"], f"the dead gate's worktree is still registered: {listed}"
    assert f"removed {scratch}, left by a gate that was killed" in second.stdout + second.stderr
    assert project.snapshot()[:2] == before[:2], "the user's tree or index moved"


def test_an_active_retry_plugin_stops_the_gate(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A rerun plugin the gate cannot block by name (here: loaded by -p from the user's
    options) would turn a red into a green: the gate refuses to judge."""
    project = build(tmp_path / "repo")
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "pytest_rerunfailures.py").write_text("# stands for the real plugin\n")
    monkeypatch.setenv("PYTHONPATH", str(plugins))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p pytest_rerunfailures")
    with pytest.raises(GateError) as err:
        run_redfirst("main", ["tests/test_square.py"], cwd=project.root)
    assert "runner retries are active" in err.value.message
    assert "pytest_rerunfailures" in err.value.message


def test_pin_marker_is_registered_with_a_help_line(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "--markers", "-p", "no:cacheprovider"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "@pytest.mark.pin(reason): this test is green on the base commit" in out
