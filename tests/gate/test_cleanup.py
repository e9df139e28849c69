"""Interrupted gates leave no worktree, no scratch folder and no process behind; runner
retries cannot sneak in; the pin marker is documented."""

from __future__ import annotations

import json
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
from tests.signals import sigint_default

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


SLOW_TEST_WITH_SERVER = """
import os
import subprocess
import time
from pathlib import Path


def test_sleeps_beside_a_server():
    server = subprocess.Popen(["sleep", "300"])  # a process the test starts, not Python
    with Path(os.environ["GATE_PID_FILE"]).open("a") as pids:
        pids.write(f"{os.getpid()}\\n{server.pid}\\n")
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
         "tests/test_slow.py", "--json", str(tmp_path / "gate.json"),
         *(["--parallel"] if parallel else [])], cwd=project.root,
        env={**env, "GATE_PID_FILE": str(pid_file)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
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
        assert scratch.name.startswith("deskcheck-gate-") and scratch.is_dir(), (
            f"the gate's worktree must live in a deskcheck-gate- scratch folder; it is {scratch}"
        )
        test_pids = [int(p) for p in pid_file.read_text().split()]
        gate.send_signal(signum)
        _, err = gate.communicate(timeout=60)
    finally:
        if gate.poll() is None:
            gate.kill()
            gate.wait()
    assert gate.returncode == 128 + signum, f"exit status should be 128 + the signal: {err}"
    assert "interrupted" in err, (
        f"a gate stopped by a signal must say interrupted; stderr: {err[-2000:]}"
    )
    written = json.loads((tmp_path / "gate.json").read_text())
    assert written["exit_code"] == gate.returncode, (
        f"the JSON says exit {written['exit_code']}, the process exited {gate.returncode}")
    assert not scratch.exists(), f"the interrupted gate left its scratch folder {scratch}"
    assert not any(_alive(pid) for pid in test_pids), (
        f"the interrupted gate left test processes running: {[p for p in test_pids if _alive(p)]}"
    )
    assert project.snapshot() == before, (
        "the interrupted gate moved the user's tree, index or worktree list (worktree not removed "
        "and pruned)"
    )  # worktree removed and pruned, index untouched


def _descendants(root: int) -> set[int]:
    """Every live process below ``root`` (from /proc: parent pids)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, stack = set(), [root]
    while stack:
        for child in parents.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _living(pids: set[int]) -> list[str]:
    """The pids still running (zombies are dead), with their command lines."""
    alive = []
    for pid in sorted(pids):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if state != "Z":
            alive.append(f"{pid}: {cmd[:120]}")
    return alive


def _kill_gate_mid_test(tmp_path: Path, env: dict[str, str], test: str = SLOW_TEST
                        ) -> tuple[object, set[int]]:
    """Start redfirst on a sleeping ``test``, SIGKILL it once the test sleeps; the project and
    the pids of every process the gate had started."""
    project = build(tmp_path / "repo")
    project.write("tests/test_slow.py", test)
    project.commit("a slow test")
    pid_file = tmp_path / "pid"
    gate = subprocess.Popen(
        [sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
         "tests/test_slow.py"], cwd=project.root, env={**env, "GATE_PID_FILE": str(pid_file)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=sigint_default)
    started: set[int] = set()
    try:
        _wait_for(lambda: pid_file.exists() and len(pid_file.read_text().split()) >= (
            2 if "server" in test else 1))
        started = _descendants(gate.pid) | {int(p) for p in pid_file.read_text().split()}
    finally:
        gate.kill()
        gate.wait()
    return project, started


def _private_env(tmp_path: Path) -> dict[str, str]:
    """The environment for a gate child with its own scratch root: no other test's gate reaps
    what this one leaves, and this one reaps nothing of theirs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    # PYTHONPATH kept: under a deskcheck self-mutant it carries the import hook to the gates
    env["DESKCHECK_SCRATCH_DIR"] = str(tmp_path / "scratch")
    env["COLUMNS"] = "1000"  # the notes name long scratch paths: read them on one line
    return env


def test_a_gate_killed_with_sigkill_leaves_no_process(tmp_path: Path) -> None:
    """``kill -9`` of redfirst while its test sleeps: the pytest child, its workers, the
    sleeping test and the server it started die with it (death signal + group watchdog);
    none is left re-parented to init."""
    _, started = _kill_gate_mid_test(tmp_path, _private_env(tmp_path), SLOW_TEST_WITH_SERVER)
    assert started, "the gate had started no process before it was killed"
    try:
        _wait_for(lambda: not _living(started), timeout=30.0,
                  what=lambda: f"processes of the killed gate still run: {_living(started)}")
    finally:
        for pid in started:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def test_the_next_gate_removes_what_a_killed_gate_left(tmp_path: Path) -> None:
    """SIGKILL gives a gate no chance to clean up: its scratch worktree stays registered in
    the user's repository. The next gate finds its owner dead and removes it, worktree entry
    and scratch folder, and says so; the user's tree and index stay as they were."""
    env = _private_env(tmp_path)
    project, started = _kill_gate_mid_test(tmp_path, env)
    _wait_for(lambda: not _living(started), timeout=30.0,
              what=lambda: f"processes of the killed gate still run: {_living(started)}")
    listed = project.git("worktree", "list", "--porcelain")
    left = [Path(ln.split(" ", 1)[1]) for ln in listed.splitlines() if ln.startswith("worktree ")]
    assert len(left) == 2, f"the killed gate should have left its worktree registered: {listed}"
    scratch = left[1].parent
    assert scratch.name.startswith("deskcheck-gate-") and scratch.is_dir(), (
        f"the killed gate's worktree must be in a deskcheck-gate- scratch folder; it is {scratch}"
    )
    assert scratch.parent == tmp_path / "scratch", "DESKCHECK_SCRATCH_DIR was not honoured"
    project.write("tests/test_slow.py", SLOW_TEST.replace("time.sleep(120)", "pass"))
    before = project.snapshot()
    second = subprocess.run(
        [sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
         "tests/test_slow.py"], cwd=project.root,
        env={**env, "GATE_PID_FILE": str(tmp_path / "pid2")},
        capture_output=True, text=True, timeout=300)
    assert second.returncode in (0, 1), second.stderr
    assert not scratch.exists(), (f"the next gate left the dead gate's scratch folder {scratch}"
                                  f"\n{second.stdout}\n{second.stderr}")
    listed = project.git("worktree", "list", "--porcelain")
    assert [ln for ln in listed.splitlines() if ln.startswith("worktree ")] == [
        f"worktree {left[0]}"], f"the dead gate's worktree is still registered: {listed}"
    assert f"removed {scratch}, left by a gate that was killed" in second.stdout + second.stderr, (
        f"the next gate must say 'removed {scratch}, left by a gate that was killed'; it said:\n"
        f"{second.stdout}\n{second.stderr}"
    )
    assert project.snapshot()[:2] == before[:2], "the user's tree or index moved"


def test_a_gate_never_removes_a_folder_a_live_process_runs_in(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A dead owner is not enough: while a process still runs inside the scratch folder (an
    orphan of an older deskcheck), reaping it would pull the tree from under that process."""
    from deskcheck.scratch import OWNER_FILE, reap_stale

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    folder = tmp_path / "deskcheck-gate-orphaned"
    folder.mkdir()
    (folder / OWNER_FILE).write_text('{"pid": 999999999, "token": ""}')
    inside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], cwd=folder)
    try:
        removed = reap_stale("deskcheck-gate-")
        assert folder.is_dir() and not removed, (
            f"the reaper removed {removed} although pid {inside.pid} still runs inside it")
    finally:
        inside.kill()
        inside.wait()
    assert reap_stale("deskcheck-gate-") == [folder], (
        "once nothing runs inside it, the dead owner's folder should be removed")


def test_a_registered_scratch_worktree_a_live_process_runs_in_is_never_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/gate.md: a folder in which a live process still runs is never touched. That holds
    for a scratch worktree the repository registers outside today's scratch root too (its
    owner dead, e.g. a gate SIGKILLed under another DESKCHECK_SCRATCH_DIR)."""
    from deskcheck.gate.git import GitRepo
    from deskcheck.gate.worktree import reap_stale_scratch
    from deskcheck.scratch import OWNER_FILE

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    project = build(tmp_path / "repo")
    folder = tmp_path / "elsewhere" / "deskcheck-gate-orphaned"
    folder.mkdir(parents=True)
    (folder / OWNER_FILE).write_text('{"pid": 999999999, "token": ""}')
    tree = folder / "wt"
    project.git("worktree", "add", "-q", "--detach", str(tree), "main")
    repo = GitRepo(project.root)
    inside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], cwd=tree)
    try:
        removed = reap_stale_scratch(repo)
        assert tree.is_dir() and not removed, (
            f"the reaper removed the registered scratch worktree {tree} ({removed}) although "
            f"pid {inside.pid} still runs inside it")
    finally:
        inside.kill()
        inside.wait()
    assert reap_stale_scratch(repo) == [folder] and not tree.exists(), (
        "once nothing runs inside it, the dead owner's registered scratch worktree should be "
        "removed")


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
    assert "runner retries are active" in err.value.message, (
        "an active rerun plugin must stop the gate saying runner retries are active; it says "
        f"{err.value.message!r}"
    )
    assert "pytest_rerunfailures" in err.value.message, (
        f"the refusal must name the plugin pytest_rerunfailures; it says {err.value.message!r}"
    )


def test_pin_marker_is_registered_with_a_help_line(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "--markers", "-p", "no:cacheprovider"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "@pytest.mark.pin(reason): this test is green on the base commit" in out, (
        f"pytest --markers must list the pin marker with its help line; it lists:\n{out}"
    )
