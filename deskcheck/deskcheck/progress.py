"""Progress of every long command, from its first second: one component for the sweep, the
auto sweep, the gates and the stand-in checks.

``ProgressReporter`` shows steps (a line, or a bar with a running count and the last thing
done), named in a person's words: "collecting tests", "base: running 12 tests", never a job
key. On a terminal it draws rich bars, refreshed by the caller (no thread of its own: a sweep
forks, and a fork must never happen while another thread holds a lock). Elsewhere (a CI log,
``TERM=dumb``) it writes plain lines, nothing redrawn: one when a step starts, one when it
ends, and in between one when what it says changed, at most every ``PLAIN_EVERY_S`` seconds.

A command makes its reporter the active one (``with reporter:``); the code that starts a
pytest child then shows the child's counts through ``child_progress(label)`` while it waits
(``follow_child``), without a reporter passed down through every layer. The child writes those
counts with the plugin :mod:`deskcheck.progress_counts`.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COUNTS_ENV", "PHASES", "ChildProgress", "ProgressReporter", "child_progress",
           "follow_child", "read_counts"]

PHASES = {"collect": "collecting tests", "baseline": "baseline: owners on clean code",
          "mutants": "mutants", "recheck": "recheck: non-owners on clean code"}
COUNTS_ENV = "DESKCHECK_PROGRESS_FILE"  # = deskcheck.progress_counts.ENV (which imports pytest)
PLAIN_EVERY_S = 5.0
POLL_S = 0.25
_ACTIVE: list[ProgressReporter] = []


class ProgressReporter:
    """Steps and their counts, as bars on a terminal and plain lines in a CI log (see the
    module docstring). Also a pytest plugin (``pytest_collectstart``/``pytest_itemcollected``)
    for a session run in this process: collection then shows its running count."""

    def __init__(self, console: Console | None = None):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.table import Column

        from deskcheck import screen

        self.console = console or screen.console(stderr=True)
        self.live = self.console.is_terminal and not self.console.is_dumb_terminal
        # the count and the time are never cut: the last thing done takes what is left;
        # transient: a finished step stays as its summary line (``end``), not as a bar
        whole = Column(no_wrap=True)
        self.progress = Progress(
            TextColumn("{task.description}", table_column=Column(no_wrap=True)),
            BarColumn(bar_width=16), MofNCompleteColumn(table_column=whole),
            TimeElapsedColumn(table_column=Column(no_wrap=True)),
            TextColumn("{task.fields[last]}", table_column=Column(
                no_wrap=True, overflow="ellipsis", ratio=1, min_width=0)),
            console=self.console, auto_refresh=False, transient=True, expand=True)
        self.started = False
        self._lock = threading.RLock()  # the two sides of a --parallel gate report at once
        self._tasks: dict[str, Any] = {}
        self._clock: dict[str, float] = {}
        self._said: dict[str, float] = {}
        self._plain: dict[str, str] = {}  # the plain line last said per step
        self.name = ""  # the sweep's current phase
        self.total = 0
        self.done = 0
        self.collected = 0

    # -- the active reporter ------------------------------------------------------------
    def __enter__(self) -> ProgressReporter:
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if _ACTIVE and _ACTIVE[-1] is self:
            _ACTIVE.pop()
        self.stop()

    # -- steps --------------------------------------------------------------------------
    def line(self, text: str) -> None:
        """A line of its own (above the bars on a terminal)."""
        with self._lock:
            from deskcheck import screen

            self.console.print(screen.block(text, self.console.width), markup=False,
                               highlight=False, soft_wrap=True)

    def elapsed(self, key: str) -> float:
        return time.monotonic() - self._clock.get(key, time.monotonic())

    def begin(self, key: str, label: str, total: int | None = None, text: str = "") -> None:
        """Start step ``key``: a bar labelled ``label`` (``total`` None: not known yet), or
        the line ``text`` (default ``label...`` / ``label: N to run``)."""
        with self._lock:
            self._clock[key] = time.monotonic()
            # a count still unknown (collecting) is said at once, then every few seconds
            self._said[key] = 0.0 if total is None else self._clock[key]
            if not self.live:
                self.line(text or (f"{label}..." if total is None else f"{label}: {total} to run"))
                return
            if not self.started:
                self.progress.start()
                self.started = True
            self._tasks[key] = self.progress.add_task(label, total=total or None, last="")
            self.progress.refresh()

    def update(self, key: str, *, completed: int | None = None, total: int | None = None,
               advance: int = 0, last: str = "", plain: str = "") -> None:
        """Move step ``key`` on; in a CI log, ``plain`` is written at most every few seconds."""
        with self._lock:
            if not self.live:
                now = time.monotonic()
                if (plain and plain != self._plain.get(key)
                        and now - self._said.get(key, 0.0) >= PLAIN_EVERY_S):
                    self._said[key], self._plain[key] = now, plain  # said on change only
                    self.line(plain)
                return
            task = self._tasks.get(key)
            if task is None:
                return
            fields: dict[str, Any] = {"last": last, "advance": advance}
            if completed is not None:
                fields["completed"] = completed
            if total is not None:
                fields["total"] = total
            self.progress.update(task, **fields)
            self.progress.refresh()

    def end(self, key: str, summary: str, count: int | None = None) -> None:
        """Close step ``key`` with its one-line ``summary``: on a terminal its bar leaves the
        live display and the summary stays above it as a line of its own, whole (a bar's
        last column would cut it at 80 columns); ``count`` is accepted for the caller's
        symmetry with ``begin``."""
        with self._lock:
            task = self._tasks.pop(key, None)
            if self.live and task is not None:
                self.progress.remove_task(task)
                if not self._tasks and self.started:  # no bar left: no empty live region
                    self.progress.stop()
                    self.started = False
                else:
                    self.progress.refresh()  # the bar leaves before the line is printed
            self.line(summary)

    def stop(self) -> None:
        with self._lock:
            if self.name == "collect" and not self.collected and self.live and "collect" in \
                    self._tasks:  # nothing was collected: the sweep reused every verdict
                self.progress.update(self._tasks["collect"], total=0, last="not needed")
            if self.started:
                self.progress.stop()
                self.started = False

    # -- the sweep's phases (deskcheck.mutants.sweep.Reporter) ---------------------------
    def start(self, what: str) -> None:
        """Say what is about to happen; collection is shown once a test session starts
        (``phase("collect", 0)``), so a sweep that reuses every verdict never says
        "collecting tests"."""
        self.line(what)

    def say(self, text: str) -> None:
        """A line of the sweep's own (e.g. verdicts reused), before the mutant lines."""
        self.line(text)

    def phase(self, name: str, total: int) -> None:
        self._finish_collect()
        self.name, self.total, self.done = name, total, 0
        self.begin(name, PHASES.get(name, name), None if name == "collect" else total)

    def advance(self, label: str) -> None:
        self.done += 1
        if self.live:
            self.update(self.name, advance=1, last=label)
        else:
            self.line(f"  [{self.done}/{self.total}] {label}")

    def pytest_collectstart(self, collector: Any) -> None:
        path = getattr(collector, "path", None)
        if self.name == "collect" and path is not None:  # the file, short
            self.update("collect", last=f"{tests_word(self.collected)} · {path.name}")

    def pytest_itemcollected(self, item: Any) -> None:
        if self.name != "collect":
            return
        self.collected += 1
        self.update("collect", completed=self.collected, last=tests_word(self.collected),
                    plain=f"  {tests_word(self.collected)} collected so far ({item.nodeid})")

    def pytest_collection_finish(self, session: Any) -> None:
        if self.name == "collect":
            self._finish_collect()
            self.name = "collected"

    def _finish_collect(self) -> None:
        if self.name == "collect":
            self.end("collect", f"collected {tests_word(self.collected)} in "
                     f"{self.elapsed('collect'):.1f}s", count=self.collected)

    # -- a pytest child -------------------------------------------------------------------
    def follow(self, label: str, what: str = "tests") -> ChildProgress:
        return ChildProgress(self, label, what)


class ChildProgress:
    """A pytest child's counts (``progress_counts``) shown as two steps of ``label``:
    collecting with a running count, then running with ``done/total`` and the last test."""

    def __init__(self, reporter: ProgressReporter | None, label: str, what: str = "tests"):
        self.reporter, self.label, self.what = reporter, label, what
        self.key = f"{label}\0collect"
        self.running = False
        self.counts: dict[str, Any] = {}

    def start(self) -> None:
        if self.reporter is not None:
            self.reporter.begin(self.key, f"{self.label}: collecting tests")

    def __call__(self, counts: dict[str, Any] | None) -> None:
        if self.reporter is None or not counts:
            return
        self.counts = counts
        say, total = self.reporter, counts.get("total")
        if total is None:
            found = counts.get("collected", 0)
            if not found:
                return
            say.update(self.key, completed=found, last=tests_word(found),
                       plain=f"  {self.label}: {tests_word(found)} collected so far")
            return
        if not self.running:
            self.running = True
            found = max(counts.get("collected", 0), total)
            chosen = f", {total} selected" if found != total else ""
            say.end(self.key, f"{self.label}: collected {tests_word(found)} in "
                    f"{say.elapsed(self.key):.1f}s{chosen}", count=total)
            self.key = f"{self.label}\0run"
            say.begin(self.key, f"{self.label}: running {self.what}", total,
                      text=f"{self.label}: running {tests_word(total, self.what)}")
        done = counts.get("done", 0)
        say.update(self.key, completed=done, last=str(counts.get("last", "")),
                   plain=f"  {self.label}: {done}/{total} run ({counts.get('last', '')})")

    def finish(self, counts: dict[str, Any] | None) -> None:
        """The end line: how many ran, in how long, how many failed."""
        self(counts)
        if self.reporter is None:
            return
        counts = self.counts
        if not self.running:  # the child ended before it finished collecting
            self.reporter.end(self.key, f"{self.label}: stopped while collecting "
                              f"({tests_word(counts.get('collected', 0))} collected)")
            return
        done, failed = counts.get("done", 0), counts.get("failed", 0)
        self.reporter.end(self.key, f"{self.label}: {tests_word(done, self.what)} run in "
                          f"{self.reporter.elapsed(self.key):.1f}s, {failed} failed",
                          count=counts.get("total"))


def tests_word(count: int, what: str = "tests") -> str:
    """``1 test``, ``2 tests`` (``what``: the plural, e.g. ``tests under coverage``)."""
    if count == 1 and what.startswith("tests"):
        what = "test" + what[len("tests"):]  # "tests under coverage" -> "test under coverage"
    return f"{count} {what}"


def child_progress(label: str, what: str = "tests") -> ChildProgress:
    """A view of a pytest child on the active reporter (it shows nothing when none is)."""
    return ChildProgress(_ACTIVE[-1] if _ACTIVE else None, label, what)


def read_counts(path: Path) -> dict[str, Any] | None:
    """The counts a child last wrote (``None`` before its first write)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def follow_child(child: subprocess.Popen[Any], counts_file: Path, view: ChildProgress,
                 timeout_s: float | None = None) -> tuple[int, Any]:
    """Wait for ``child`` while ``view`` shows its counts; its exit code and, when its output
    is piped, that output (read as it comes, so a full pipe never blocks the child). Raises
    ``subprocess.TimeoutExpired`` after ``timeout_s`` (the caller kills the child)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    piped = child.stdout is not None or child.stderr is not None
    output = None
    view.start()
    while True:
        wait = POLL_S if deadline is None else max(0.0, min(POLL_S, deadline - time.monotonic()))
        try:
            if piped:
                output, _ = child.communicate(timeout=wait)
            else:
                child.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            if deadline is not None and time.monotonic() >= deadline:
                raise
            view(read_counts(counts_file))
    view.finish(read_counts(counts_file))
    return child.returncode, output
