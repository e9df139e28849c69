"""Running counts of a pytest child, for the parent's progress (``deskcheck.progress``).

A pytest plugin with no deskcheck import (stdlib and pytest only), so the gate can load a copy
by a unique name inside a run of any commit. When ``DESKCHECK_PROGRESS_FILE`` names a file,
the controlling pytest process writes its counts there as one small JSON object, replaced
atomically at most every 0.2 s and at each change of phase::

    {"collected": 12, "total": null, "done": 0, "failed": 0, "last": "tests/test_x.py::t"}

``total`` stays ``null`` while tests are being collected; the parent reads the file while it
waits for the child (``deskcheck.progress.follow_counts``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

ENV = "DESKCHECK_PROGRESS_FILE"  # = deskcheck.progress.COUNTS_ENV
INTERVAL_S = 0.2


class _Counts:
    def __init__(self, path: Path):
        self.path = path
        self.state: dict[str, Any] = {"collected": 0, "total": None, "done": 0, "failed": 0,
                                      "last": ""}
        self.failed: set[str] = set()
        self._written = 0.0

    def write(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._written < INTERVAL_S:
            return
        self._written = now
        partial = self.path.with_name(self.path.name + ".part")
        try:
            partial.write_text(json.dumps(self.state), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError:  # progress is best effort: never fail a test run over it
            pass


def _open() -> _Counts | None:
    """The counts of this process, the first pytest started with ``ENV`` set. The variable is
    taken out of the environment, so a pytest the tests start does not write over them, and
    xdist workers (started after this import) leave the reporting to their controller. (Not
    ``PYTEST_XDIST_WORKER``: a command run from inside a worker inherits that.)"""
    path = os.environ.pop(ENV, None)
    return _Counts(Path(path)) if path else None


_COUNTS = _open()


def pytest_collectstart(collector: Any) -> None:
    if _COUNTS is not None and _COUNTS.state["done"] == 0 and not _COUNTS._written:
        _COUNTS.write(force=True)  # the file exists from the first collector on


def pytest_itemcollected(item: Any) -> None:
    if _COUNTS is not None:
        _COUNTS.state["collected"] += 1
        _COUNTS.state["last"] = item.nodeid
        _COUNTS.write()


def pytest_collection_finish(session: Any) -> None:
    if _COUNTS is not None:
        _COUNTS.state["total"] = len(session.items)
        _COUNTS.state["last"] = ""
        _COUNTS.write(force=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    if _COUNTS is not None:  # under xdist the workers collect; each reports its whole list
        _COUNTS.state["collected"] = _COUNTS.state["total"] = max(
            len(ids), _COUNTS.state["total"] or 0)
        _COUNTS.write(force=True)


def pytest_runtest_logreport(report: Any) -> None:
    if _COUNTS is not None and report.failed:
        _COUNTS.failed.add(report.nodeid)  # a test counts once, whatever phase failed
        _COUNTS.state["failed"] = len(_COUNTS.failed)


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    if _COUNTS is not None:
        _COUNTS.state["done"] += 1
        _COUNTS.state["last"] = nodeid
        _COUNTS.write()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if _COUNTS is not None:
        if _COUNTS.state["total"] is None:
            _COUNTS.state["total"] = _COUNTS.state["collected"]
        _COUNTS.write(force=True)
