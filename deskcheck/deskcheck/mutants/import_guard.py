"""Processes that importing the project starts, stopped and reported.

The sweep imports the target modules (before collection, in a forked child) and the test
modules (collection, in the sweep process). A module that forks or starts a process at
import would leave it running after the sweep: outside the mutant children's sessions and
death signals. The sweep process is a child subreaper from its start, so such a process
(or its orphans) stays the sweep's child; after the imports every child the sweep did not
start on purpose is killed, reaped and reported, with the ``file:line`` of the ``os.fork``
when one was seen.
"""

from __future__ import annotations

import os
import signal
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from deskcheck.mutants import procs

_WATCH: dict[str, object] = {"on": False, "forks": []}
_OWN_FILES = (os.sep + os.path.join("deskcheck", "mutants") + os.sep,
              os.sep + "multiprocessing" + os.sep, os.sep + "importlib" + os.sep,
              "<frozen ")


def _note_fork() -> None:
    """``os.register_at_fork(before=...)``: where the fork was called, while importing."""
    if not _WATCH["on"]:
        return
    for frame in reversed(traceback.extract_stack()[:-1]):
        if not any(part in frame.filename for part in _OWN_FILES):
            _WATCH["forks"].append(f"{frame.filename}:{frame.lineno}")  # type: ignore[union-attr]
            return


os.register_at_fork(before=_note_fork)


@contextmanager
def watching_imports() -> Iterator[None]:
    """Note the caller of each ``os.fork`` made inside the block."""
    _WATCH["on"] = True
    try:
        yield
    finally:
        _WATCH["on"] = False


@dataclass(frozen=True)
class Stray:
    pid: int
    command: str

    def describe(self) -> str:
        return f"pid {self.pid}" + (f" ({self.command})" if self.command else "")


def stop_strays(keep: frozenset[int] = frozenset()) -> list[Stray]:
    """Kill (SIGKILL) and reap every live child of this process not in ``keep``, and every
    process below them; return those that were found."""
    found: list[Stray] = []
    for _ in range(50):  # a stray may fork again while it is being stopped
        pids = [p for p in procs.children_of(os.getpid()) if p not in keep]
        live = [p for p in pids if procs.is_live(p)]
        if not live:
            break
        for pid in live:
            below = procs.descendants(pid)
            found.extend(Stray(p, procs.describe(p)) for p in [pid, *below]
                         if p not in {s.pid for s in found})
            procs.signal_all([pid, *below], signal.SIGSTOP)
            procs.signal_all([pid, *below], signal.SIGKILL)
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                continue
    procs.reap_children()
    return found


def fork_sites() -> list[str]:
    """The ``file:line`` of each fork seen while watching (then forgotten)."""
    sites = list(dict.fromkeys(_WATCH["forks"]))  # type: ignore[call-overload]
    _WATCH["forks"] = []
    return sites


def strays_note(strays: list[Stray], when: str) -> str:
    """A line for the sweep's notes: what was stopped and where it was started."""
    sites = fork_sites()
    where = f"; os.fork called at {', '.join(sites)}" if sites else ""
    return (f"{len(strays)} process(es) started while {when} outlived the import and were "
            f"stopped: {', '.join(s.describe() for s in strays)}{where}; fix: start processes "
            "in a function or fixture, not when a module is imported")
