"""pytest: every registered harness/stub gets two generated tests next to its declaration,
and an AttributeError raised on any stand-in is explained as drift (an exception note).

``<Name>::drift_guard`` fails with the drift message (forward/reverse/signature/stale allow);
``<Name>::can_fail`` plants a read of a nonexistent name into the first root (in memory) and
fails unless the guard reports exactly that name. Items come from ``pytest_pycollect_makeitem``
on the module that defines the ``Harness`` subclass or ``StubSpec`` (or, for one defined in a
non-test module, the first collected module that imports it).
"""

from __future__ import annotations

import fnmatch
import os
import sys
from typing import Any

import pytest

from deskcheck.drift_guard import registry

_SEEN = pytest.StashKey[set[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("deskcheck_drift_items", type="bool", default=True,
                  help="deskcheck: generate drift_guard and can_fail tests for registered "
                       "harnesses and stubs (default: true)")
    parser.addini("deskcheck_standin_notes", type="bool", default=True,
                  help="deskcheck: explain an AttributeError raised on a stand-in (missing "
                       "name, production site, call path, construction site) (default: true)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "deskcheck_drift: a generated drift-guard or can-fail test of a registered "
                   "deskcheck harness/stub (select with -m deskcheck_drift)")
    config.stash[_SEEN] = set()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """An AttributeError raised on a stand-in, or an exception chained from one, gets the drift
    message as a note (added words: the traceback and the original message stay as they are)."""
    try:
        return (yield)
    except Exception as exc:
        _annotate(item, exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """unittest.TestCase items keep their errors on the item, not raised through the call."""
    for info in getattr(item, "_excinfo", None) or ():
        _annotate(item, info.value)
    return (yield)


def _annotate(item: pytest.Item, exc: BaseException) -> None:
    if not isinstance(exc, Exception) or not item.config.getini("deskcheck_standin_notes"):
        return
    try:
        from deskcheck.drift_guard.attribute_errors import drift_note

        note = drift_note(exc, fixtures=_fixtures_of(item))
    except Exception:  # noqa: BLE001 - never replace the real error with ours
        note = None
    if note and note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


def _fixtures_of(item: pytest.Item) -> dict[str, tuple[Any, Any]]:
    """argname -> (value, fixture function) for the test's fixtures (best effort)."""
    out: dict[str, tuple[Any, Any]] = {}
    values = getattr(item, "funcargs", None) or {}
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    for name, value in values.items():
        chain = defs.get(name)
        if chain:
            out[name] = (value, chain[-1].func)
    return out


def _key_of(obj: Any) -> str | None:
    for key, subject in registry.registered().items():
        if subject is obj:
            return key
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any) -> Any:
    if not isinstance(collector, pytest.Module) or not hasattr(obj, "__deskcheck_provision__"):
        return None
    if not collector.config.getini("deskcheck_drift_items"):
        return None
    key = _key_of(obj)
    seen = collector.config.stash[_SEEN]
    if key is None or key in seen:
        return None
    defined_in = key.split(":", 1)[0]
    if defined_in != collector.obj.__name__ and _is_test_module(collector, defined_in):
        return None  # its own module is collected and gets the items
    seen.add(key)
    group = _GuardGroup.from_parent(collector, name=name, subject=obj)
    group.add_marker(pytest.mark.deskcheck_drift)
    return group


def _is_test_module(collector: pytest.Collector, module_name: str) -> bool:
    file = getattr(sys.modules.get(module_name), "__file__", None) or ""
    patterns = collector.config.getini("python_files")
    return any(fnmatch.fnmatch(os.path.basename(file), p) for p in patterns)


class DriftGuardFailure(Exception):
    """The guard (or its can-fail arm) failed; the message is the whole report."""


class _GuardGroup(pytest.Collector):
    def __init__(self, *, subject: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.subject = subject

    def collect(self) -> list[pytest.Item]:
        return [_GuardItem.from_parent(self, name="drift_guard", subject=self.subject, arm="guard"),
                _GuardItem.from_parent(self, name="can_fail", subject=self.subject, arm="can_fail")]


class _GuardItem(pytest.Item):
    def __init__(self, *, subject: Any, arm: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.subject = subject
        self.arm = arm
        self.add_marker(pytest.mark.deskcheck_drift)

    def runtest(self) -> None:
        from deskcheck.drift_guard.verdicts import can_fail, guard

        if self.arm == "guard":
            verdict = guard(self.subject)
            if not verdict.ok:
                raise DriftGuardFailure(verdict.message())
        else:
            result = can_fail(self.subject)
            if not result.ok:
                raise DriftGuardFailure(result.message())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DriftGuardFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        provision = self.subject.__deskcheck_provision__()
        file, _, line = provision.location.rpartition(":")
        return file, (int(line) - 1 if line.isdigit() else None), f"{self.parent.name}::{self.name}"
