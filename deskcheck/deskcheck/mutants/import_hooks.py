"""Collection hooks for the sweep's session: a test module that exits while it is imported.

pytest re-raises ``SystemExit`` out of collection on purpose (``INTERNALERROR``, and the
session ends with nothing collected). In a sweep a module that calls ``sys.exit`` at import
(``sys.exit("no config")`` in a target the tests import) is the project's error, not
pytest's: the file that does not collect is reported like any other collection error,
with the ``file:line`` of the exit, and the sweep judges what it can. Forks made while
collecting are noted (``import_guard``) so a process left running can be traced to its line.
"""

from __future__ import annotations

import traceback
from collections.abc import Generator
from pathlib import Path

import pytest

from deskcheck.mutants.import_guard import watching_imports


def exit_site(exc: BaseException, root: Path | None = None) -> str:
    """``file:line`` of the innermost frame of ``exc``'s traceback (relative to ``root``)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    path = Path(last.filename)
    if root is not None:
        try:
            path = path.resolve().relative_to(root.resolve())
        except ValueError:
            pass
    return f"{path}:{last.lineno}"


def exit_message(exc: SystemExit, root: Path | None = None) -> str:
    return (f"sys.exit({exc.code!r}) at {exit_site(exc, root)} while importing; a module "
            "must not exit when it is imported (put the exit under `if __name__ == "
            "\"__main__\":`, or raise an exception)")


def uncollected_notes(errors: dict[Path, str], root: Path) -> list[str]:
    """One line per test file of the universe that does not collect: its tests took no part
    in the sweep (an owner there is BASELINE_RED; a non-owner there could not kill)."""
    notes = []
    for path, text in sorted(errors.items()):
        try:
            shown = path.relative_to(root)
        except ValueError:
            shown = path
        last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
        notes.append(f"{shown} does not collect ({last[:160]}): its tests took no part in "
                     f"the sweep; fix: `pytest --collect-only -q {shown}` shows why")
    return notes


class ImportGuardPlugin:
    """Registered beside the sweep plugin in the sweep's pytest session."""

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, object, object]:
        with watching_imports():
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector
                                   ) -> Generator[None, pytest.CollectReport,
                                                  pytest.CollectReport]:
        try:
            return (yield)
        except SystemExit as exc:
            text = exit_message(exc, Path(str(collector.config.rootpath)))
            return pytest.CollectReport(collector.nodeid, "failed",
                                        f"{collector.path}: {text}", [])
