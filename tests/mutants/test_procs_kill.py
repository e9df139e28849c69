"""Killing a mutant's processes: no process may react to another's death before it dies too.

A timed-out mutant's ranks are killed one after another. If rank 0 dies while rank 1 still
runs, rank 1's blocked receive ends with "connection closed" and rank 1 records a crash; the
sweep then judged that crash as the owner's failure and called a deadlock KILLED (found as
a red of ``test_deadlock_is_timeout_naming_ranks_with_stacks`` under load, where the sweep
can be descheduled between two kills).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from deskcheck.mutants import procs

# Two peers, each blocked on a pipe whose only writer is the other: whichever dies first,
# the survivor sees end-of-file and writes its note (as a rank records a crash).
PEERS = textwrap.dedent("""
    import ctypes, os, sys, time
    note = sys.argv[1]
    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()

    def peer(name, read_end, keep, drop):
        if os.fork() == 0:
            # no death signal (a sweep's hook arms one): only kill_run's order decides here
            ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG, none
            for fd in drop:
                os.close(fd)
            os.read(read_end, 1)  # blocks until the other peer dies
            with open(note, "a") as handle:
                handle.write(name + " saw its peer die\\n")
            os._exit(0)

    peer("a", a_read, a_write, [b_read, b_write])
    peer("b", b_read, b_write, [a_read, a_write])
    for fd in (a_read, b_write, b_read, a_write):
        os.close(fd)
    print("ready", flush=True)
    time.sleep(600)
""")


def _state(pid: int) -> str:
    """The process's state letter from ``/proc`` (R running, S sleeping, T stopped, Z zombie);
    'gone' once it is reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat[stat.rfind(")") + 2:].split()[0]


def _children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _kill_one_run(note: Path, monkeypatch) -> None:
    """One run of the two peers killed by ``kill_run`` with the sweep descheduled between kills."""
    root = subprocess.Popen([sys.executable, "-c", PEERS, str(note)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert root.stdout is not None and root.stdout.readline().strip() == "ready", (
            "the peer processes' root never printed 'ready'"
        )
        deadline = time.monotonic() + 60
        while len(_children_of(root.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(_children_of(root.pid)) == 2, "the two peer processes never started"
        real_kill, run, killed_so_far = os.kill, [root.pid, *_children_of(root.pid)], set()

        def descheduled_kill(pid: int, sig: int) -> None:
            """The sweep loses the CPU between two kills, for as long as the others need:
            until the killed process is dead and no other one is runnable (a peer woken by
            that death has run to its end, or sleeps, or is stopped). No time margin: under
            load a woken process may wait seconds for the CPU."""
            real_kill(pid, sig)
            if sig != signal.SIGKILL:
                return
            killed_so_far.add(pid)
            others = [p for p in run if p not in killed_so_far]
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if (_state(pid) in ("Z", "X", "gone")
                        and not any(_state(p) in ("R", "D") for p in others)):
                    return
                time.sleep(0.005)

        monkeypatch.setattr(os, "kill", descheduled_kill)
        killed = procs.kill_run(root.pid, "no-token", lambda: root.poll())
        monkeypatch.undo()
        assert root.wait(timeout=60) is not None, (
            "the root process of the run was not reaped within 60 s of kill_run"
        )
        assert len(killed) == 3, f"kill_run killed {killed}, expected the root and its 2 peers"
        assert not note.exists(), (
            "a process of the run outlived its peer long enough to react to its death "
            f"({note.read_text().strip()!r}): kill_run must freeze every process of the run "
            "before it kills any, or a deadlock's cleanup is recorded as a crash")
    finally:
        if root.poll() is None:
            root.kill()
            root.wait()


def test_no_process_of_a_run_outlives_another_long_enough_to_react(tmp_path, monkeypatch):
    # three runs: whether a survivor gets the CPU before the sweep's next kill is the
    # scheduler's choice; a kill order that lets one react is seen in at least one of them
    for trial in range(3):
        _kill_one_run(tmp_path / f"note{trial}.txt", monkeypatch)
