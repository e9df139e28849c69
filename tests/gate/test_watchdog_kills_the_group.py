"""docs/gate.md: the watchdog kills the child's whole process group, not its leader alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

LEADER = ("import subprocess, time\n"
          "p = subprocess.Popen(['sleep', '600'])\n"
          "print(p.pid, flush=True)\n"
          "time.sleep(600)\n")
# a gate that starts a watchdog on the group and dies without releasing it
GATE = ("import os, sys\n"
        "from deskcheck.watchdog import GroupWatchdog\n"
        "GroupWatchdog(int(sys.argv[1]))\n"
        "os._exit(0)\n")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_the_watchdog_kills_the_whole_group_when_its_gate_dies():
    leader = subprocess.Popen([sys.executable, "-c", LEADER], stdout=subprocess.PIPE,
                              start_new_session=True, text=True)
    try:
        assert leader.stdout is not None, "the leader process has no stdout pipe"
        grandchild = int(leader.stdout.readline())
        subprocess.run([sys.executable, "-c", GATE, str(leader.pid)], check=True, timeout=60)
        leader.wait(timeout=60)
        deadline = time.monotonic() + 30
        while not _gone(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(grandchild), (
            f"the watchdog killed the group leader {leader.pid} but its grandchild "
            f"{grandchild} in the same group still runs; docs/gate.md promises the "
            "watchdog kills the child's whole process group")
    finally:
        try:
            os.killpg(leader.pid, signal.SIGKILL)
        except OSError:
            pass
        leader.kill()
        leader.wait()
