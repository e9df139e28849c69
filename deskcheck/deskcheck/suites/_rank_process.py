"""The parent's handle on one rank process: status without reaping, reaping, stack dumps."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from deskcheck.suites._rank_main import STACK_SIGNAL
from deskcheck.suites._stacks import trim_rank_stack


@dataclass(eq=False)
class RankProcess:
    """One rank process as the parent holds it: pid, pipe, and (spawn mode) its Popen."""

    rank: int
    pid: int
    conn: Connection
    popen: subprocess.Popen[bytes] | None = None

    def exit_status(self) -> str | None:
        """"exit code N" / "signal N" once the process ended; does not reap it."""
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return "reaped"
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return f"exit code {info.si_status}"
        return f"signal {info.si_status} ({signal.Signals(info.si_status).name})"

    def reap(self) -> None:
        try:
            if self.popen is not None:
                self.popen.wait()
            else:
                os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def wait_for_death(self) -> str:
        """The exit status of a rank whose pipe closed (it is dying or dead)."""
        deadline = time.monotonic() + 5.0  # returns at once when it is dead; holds under load
        while time.monotonic() < deadline:
            status = self.exit_status()
            if status:
                return status
            time.sleep(0.01)
        return "closed its pipe"


def dump_stacks(hung: list[RankProcess], workdir: str) -> dict[RankProcess, str]:
    """Ask each hung rank for a faulthandler dump of all its threads."""
    if not hung:
        return {}
    paths = {r: os.path.join(workdir, f"rank{r.rank}.stack") for r in hung}
    sizes = {r: _size(p) for r, p in paths.items()}
    for r in hung:
        try:
            os.kill(r.pid, STACK_SIGNAL)
        except OSError:
            pass
    stacks: dict[RankProcess, str] = {}
    # Returns as soon as every dump is complete; the bound only matters on a loaded machine,
    # where a rank without its stack would be blamed from "an unknown frame".
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and len(stacks) < len(hung):
        time.sleep(0.02)
        for r in hung:
            if r in stacks or _size(paths[r]) <= sizes[r]:
                continue
            size = _size(paths[r])
            time.sleep(0.02)
            if _size(paths[r]) == size:  # the dump is complete
                with open(paths[r], errors="replace") as fh:
                    fh.seek(sizes[r])
                    stacks[r] = trim_rank_stack(fh.read())
    return {r: stacks.get(r, "(no stack: the rank did not answer SIGUSR2)") for r in hung}

def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
