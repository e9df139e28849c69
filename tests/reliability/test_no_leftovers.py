"""Nothing deskcheck makes outlives it: a private ``TMPDIR`` holds as many entries after a
full sweep whose owners use rank pools, a sweep killed with SIGKILL and a gate killed with
SIGKILL (each followed by the next run, which reaps what the dead one left) as before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gate.scenario import build

pytestmark = pytest.mark.xdist_group("reliability-leftovers")

MODULE = "def total(values):\n    return sum(values)\n"

OWNER = '''
import os
import signal
import time

from deskcheck.suites import rank_pool
from kpkg.mod import total


def _local_total(rank_values):
    return total(rank_values)


def test_every_rank_totals_its_values():
    pool = rank_pool(2, "gloo", timeout_s=20.0)
    assert pool.run(_local_total, per_rank=[[1, 2], [3, 4]]) == [3, 7]


def test_slow_when_asked():
    if os.environ.get("SLOW_OWNER"):
        open(os.environ["SLOW_OWNER"], "w").close()
        time.sleep(120)
    assert total([1, 2]) == 3
'''

CATALOG = '''[sweep]
tests = ["tests"]

[[mutant]]
id = "k.sum_plus_one"
title = "total adds one"
target = "kpkg.mod:total"
operator = "replace"
old = "return sum(values)"
new = "return sum(values) + 1"
owners = ["tests/test_mod.py::test_every_rank_totals_its_values", "tests/test_mod.py::test_slow_when_asked"]
'''


def _project(root: Path, owner: str = OWNER, catalog: str = CATALOG,
             test_file: str = "test_mod.py") -> Path:
    (root / "kpkg").mkdir(parents=True)
    (root / "kpkg" / "__init__.py").write_text("")
    (root / "kpkg" / "mod.py").write_text(MODULE)
    (root / "tests").mkdir()
    (root / "tests" / test_file).write_text(owner)
    (root / "mutants.toml").write_text(catalog)
    return root


def _env(tmpdir: Path, root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "DESKCHECK_SCRATCH"))}
    env.update(TMPDIR=str(tmpdir), CUDA_VISIBLE_DEVICES="", **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return env


def _entries(tmpdir: Path) -> list[str]:
    return sorted(p.name for p in tmpdir.iterdir())


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} did not appear within {timeout:g} s"
        time.sleep(0.1)


def _kill_when(process: subprocess.Popen, ready: Path) -> None:
    try:
        _wait_for(ready)
        time.sleep(0.5)  # let the run settle into its sleep (nothing depends on how long)
    finally:
        process.kill()
        process.wait(timeout=60)


def _sweep(root: Path, env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog",
                             str(root / "mutants.toml"), "--no-store", "--workers", "1", *args],
                            cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def test_a_private_tmpdir_does_not_grow(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    root = _project(tmp_path / "project")
    before = _entries(tmpdir)

    killed = _sweep(root, _env(tmpdir, root, SLOW_OWNER=str(tmp_path / "sleeping")))
    _kill_when(killed, tmp_path / "sleeping")

    repo = build(tmp_path / "repo")
    repo.write("tests/test_sleep.py", "import os, time\n\n\ndef test_sleeps():\n"
               "    open(os.environ['GATE_READY'], 'w').close()\n    time.sleep(120)\n")
    repo.commit("a sleeping test")
    gate_env = _env(tmpdir, repo.root, GATE_READY=str(tmp_path / "gate-ready"))
    gate = subprocess.Popen([sys.executable, "-m", "deskcheck.cli", "redfirst", "--base",
                             "main", "tests/test_sleep.py"], cwd=repo.root, env=gate_env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_when(gate, tmp_path / "gate-ready")
    repo.write("tests/test_sleep.py", "def test_quick():\n    pass\n")
    gated = subprocess.run([sys.executable, "-m", "deskcheck.cli", "redfirst", "--base", "main",
                            "tests/test_sleep.py"], cwd=repo.root, env=gate_env,
                           capture_output=True, text=True, timeout=300)
    assert gated.returncode in (0, 1), gated.stdout + gated.stderr

    full = _sweep(root, _env(tmpdir, root))
    out, _ = full.communicate(timeout=600)
    assert full.returncode == 0, f"the full sweep should hold:\n{out}"
    assert "KILLED" in out, out

    deadline = time.monotonic() + 30.0  # processes of the killed runs may still be exiting
    while _entries(tmpdir) != before and time.monotonic() < deadline:
        time.sleep(0.2)
    grown = sorted(set(_entries(tmpdir)) - set(before))
    assert not grown, (f"TMPDIR grew by {len(grown)} entries after a killed sweep, a killed "
                       f"gate, a gate and a full sweep: {grown}")


PEEK_AT_CLOSE = """
import glob, os, sys

import deskcheck.mutants.runner as runner

reaping_close = runner.Runner.close


def close(self):
    left = glob.glob(os.path.join(os.environ["TMPDIR"], "deskcheck-w*"))
    print("POOL-FOLDERS-AT-CLOSE", sorted(left), flush=True)
    reaping_close(self)


runner.Runner.close = close
from deskcheck.cli import main

sys.exit(main(sys.argv[1:]))
"""


def test_a_rank_pool_folder_is_removed_when_its_mutant_child_leaves_through_os_exit(
        tmp_path: Path) -> None:
    """The sweep alone, looked at before its own reaping of dead owners' folders: the child
    that made a rank pool removes the pool's folder on its way out, although it leaves
    through ``os._exit`` (which skips ``atexit``)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    root = _project(tmp_path / "project")
    done = subprocess.run(
        [sys.executable, "-c", PEEK_AT_CLOSE, "sweep", "--catalog", str(root / "mutants.toml"),
         "--no-store", "--workers", "1"],
        cwd=root, env=_env(tmpdir, root), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("POOL-FOLDERS-AT-CLOSE"))
    assert line == "POOL-FOLDERS-AT-CLOSE []", (
        f"rank-pool folders were left by mutant children that exited through os._exit: {line}")


POOL = "class Pool:\n    def __init__(self):\n        raise RuntimeError('no')\n\n" \
       "    def size(self):\n        return self.n\n"

DRIVING = '''
import os
import signal
import time

from ppkg.pool import Pool


def test_size():
    pool = Pool.__new__(Pool)
    pool.n = 1
    if os.environ.get("COV_READY"):  # the killed run: say the pass is under way, then hang
        open(os.environ["COV_READY"], "w").close()
        time.sleep(300)
    assert Pool.size(pool) == 1
'''


def test_a_coverage_pass_killed_with_sigkill_leaves_nothing_after_the_next_run(
        tmp_path: Path) -> None:
    """``standins --run`` (the owners coverage pass of ``sweep --auto``) killed with SIGKILL,
    its pytest child included, mid-pass; the next run reaps its scratch folder."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    root = tmp_path / "project"
    (root / "ppkg").mkdir(parents=True)
    (root / "ppkg" / "__init__.py").write_text("")
    (root / "ppkg" / "pool.py").write_text(POOL)
    (root / "tests").mkdir()
    (root / "tests" / "test_pool.py").write_text(DRIVING)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    before = _entries(tmpdir)
    command = [sys.executable, "-m", "deskcheck.cli", "standins", "--run", "tests"]
    ready = tmp_path / "cov-ready"
    killed = subprocess.Popen(command, cwd=root, env=_env(tmpdir, root, COV_READY=str(ready)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        _wait_for(ready)
        assert any(name.startswith("deskcheck-auto-cov-") for name in _entries(tmpdir)), (
            f"the coverage pass works in TMPDIR while it runs; found {_entries(tmpdir)}")
    finally:
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(timeout=60)
    again = subprocess.run(command, cwd=root, env=_env(tmpdir, root), capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    grown = sorted(set(_entries(tmpdir)) - set(before))
    assert not grown, (
        f"TMPDIR grew by {grown} after a coverage pass killed with SIGKILL and the next run: "
        "the pass's scratch folder must carry its owner so the next run reaps it")


TMP_OWNER = '''
import os
import time
from pathlib import Path

from kpkg.mod import total


def _wait_for(path):
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_keeps_its_tmp_path(tmp_path_factory):
    meet, value = Path(os.environ["MEET"]), total([1, 2])
    if value == 5:  # the second mutant's child: makes its folder once the first made its own
        _wait_for(meet / "first")
    mine = tmp_path_factory.mktemp("mine") / "mine"
    mine.write_text(str(os.getpid()))
    if value == 4:  # the first mutant's child: looks again once the second made its folder
        (meet / "first").touch()
        _wait_for(meet / "second")
        kept = mine.exists() and mine.read_text() == str(os.getpid())
        with open(os.environ["TMP_LOG"], "a") as log:
            log.write(("kept" if kept else "gone") + "\\n")
    elif value == 5:
        (meet / "second").touch()
    assert value == 3
'''

TMP_CATALOG = '''[sweep]
tests = ["tests"]
timeout_s = 120  # the first child waits for the second to start: never a timeout under load

[[mutant]]
id = "k.plus_one"
title = "total adds one"
target = "kpkg.mod:total"
operator = "replace"
old = "return sum(values)"
new = "return sum(values) + 1"
owners = ["tests/test_tmp.py::test_keeps_its_tmp_path"]

[[mutant]]
id = "k.plus_two"
title = "total adds two"
target = "kpkg.mod:total"
operator = "replace"
old = "return sum(values)"
new = "return sum(values) + 2"
owners = ["tests/test_tmp.py::test_keeps_its_tmp_path"]
'''


def test_tests_using_tmp_path_leave_no_pytest_temp_folder_and_keep_their_own(
        tmp_path: Path) -> None:
    """Mutant children leave through ``os._exit``, which skips the ``atexit`` handler that
    unlocks pytest's numbered temp folders; pytest keeps a locked one for 3 days. The sweep
    gives its session a temp folder of its own, made before the first fork (so no child
    empties the folder another child works in) and removed with the sweep."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    root = _project(tmp_path / "project", TMP_OWNER, TMP_CATALOG, "test_tmp.py")
    log = tmp_path / "tmp.log"
    for run in range(2):
        meet = tmp_path / f"meet{run}"
        meet.mkdir()
        env = _env(tmpdir, root, MEET=str(meet), TMP_LOG=str(log))
        done = subprocess.run([sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog",
                               str(root / "mutants.toml"), "--no-store", "--workers", "2"],
                              cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    left = sorted(str(p.relative_to(tmpdir)) for p in tmpdir.rglob("*"))
    assert not left, (f"two sweeps whose tests use tmp_path left pytest temp folders (locked "
                      f"by mutant children that exited through os._exit) in TMPDIR: {left[:8]}")
    lines = log.read_text().split()
    assert "gone" not in lines, (
        f"a mutant child's tmp_path was emptied or taken by another child starting beside "
        f"it (each child made pytest's base temp folder anew): {lines}")
