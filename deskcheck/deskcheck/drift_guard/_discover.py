"""Find the registered guards: import the modules that declare harnesses and stubs.

Where to look: ``[tool.deskcheck] harnesses`` (files, folders, globs or dotted module names,
relative to the pyproject); without it, pytest's ``testpaths``; without those, ``tests``.
Only ``.py`` files whose text mentions ``deskcheck.harness``/``deskcheck.stubs`` (or
``Harness``/``StubSpec`` with ``deskcheck``) are imported, the way pytest would import them.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deskcheck.config import ProjectConfig
from deskcheck.errors import ConfigError
from deskcheck.pytest_ini import pytest_config

_MENTIONS = re.compile(r"deskcheck\.(harness|stubs)\b|from deskcheck import .*\b(Harness|stub)")


def search_paths(config: ProjectConfig, explicit: Sequence[str] = ()) -> list[str]:
    """Where to look; entries from pytest's testpaths / the ``tests`` default may be absent."""
    if explicit:
        return list(explicit)
    value = config.get("harnesses")
    if value is not None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError("[tool.deskcheck] harnesses must be a list of strings",
                              location=str(config.pyproject),
                              fix='harnesses = ["tests", "examples/tp_scheduler/tests"]')
        return value
    testpaths = pytest_config(config.root).args("testpaths")
    return testpaths or ["tests"]


def candidate_files(root: Path, entries: Sequence[str]) -> tuple[list[Path], list[str]]:
    """(.py files mentioning deskcheck harnesses/stubs, dotted module names to import)."""
    files: list[Path] = []
    modules: list[str] = []
    for entry in entries:
        path = Path(entry) if Path(entry).is_absolute() else root / entry
        if any(ch in entry for ch in "*?["):
            matches = sorted(root.glob(entry))
        elif path.exists():
            matches = [path]
        elif "/" not in entry and not entry.endswith(".py") and "." in entry:
            modules.append(entry)
            continue
        else:
            continue
        for match in matches:
            found = sorted(match.rglob("*.py")) if match.is_dir() else [match]
            for file in found:
                try:  # the words looked for are ASCII: any ASCII-compatible coding reads
                    text = file.read_bytes().decode("utf-8", errors="replace")
                except OSError:
                    text = "deskcheck.harness"  # unreadable: the import names the problem
                if _MENTIONS.search(text) and file not in files:
                    files.append(file)
    return files, modules


def import_guard_modules(config: ProjectConfig, explicit: Sequence[str] = (),
                         skipped: list[dict[str, Any]] | None = None) -> list[str]:
    """Import every module that may register a guard; returns what was imported. Every file
    that cannot be imported is one error of a single :class:`ConfigError` (all of them in
    one pass); a file pytest would skip at import (``pytest.importorskip``,
    ``pytest.skip(allow_module_level=True)``) is appended to ``skipped`` (file, line,
    reason): its guards are not checked, and the caller says so."""
    from _pytest.outcomes import Skipped
    from _pytest.pathlib import ImportMode, import_path

    entries = search_paths(config, explicit)
    files, modules = candidate_files(config.root, entries)
    imported: list[str] = []
    errors: list[ConfigError] = []
    done: set[Path] = set()

    def load(file: Path) -> bool:
        if file in done:
            return True
        done.add(file)
        try:
            import_path(file, mode=ImportMode.prepend, root=config.root,
                        consider_namespace_packages=False)
        except Skipped as exc:
            if skipped is not None:
                skipped.append({"file": str(file), "line": _line_in(exc, file),
                                "reason": str(exc.msg or "skipped")})
            return False
        except (Exception, SystemExit) as exc:
            errors.append(ConfigError(
                f"cannot import {file} to collect its harnesses: {type(exc).__name__}: {exc}",
                location=_error_location(exc, file),
                fix="make it importable as pytest would (conftest.py, sys.path), or narrow "
                    "[tool.deskcheck] harnesses to the files that declare harnesses"))
            return False
        imported.append(str(file))
        return True

    for file in files:  # as pytest would: its conftests first, outermost first
        if all(load(conftest) for conftest in _conftests(config.root, file)):
            load(file)
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            errors.append(ConfigError(f"harnesses entry {name!r} is neither a path nor an "
                                      f"importable module: {exc}",
                                      location=str(config.pyproject or config.root),
                                      fix="list files, folders, globs or dotted module names"))
            continue
        imported.append(name)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigError(f"{len(errors)} file(s) that declare guards cannot be imported",
                          location=str(config.pyproject or config.root), errors=errors)
    return imported


def _conftests(root: Path, file: Path) -> list[Path]:
    folders = [file.parent, *file.parent.parents]
    inside = [f for f in folders if f == root or root in f.parents]
    return [f / "conftest.py" for f in reversed(inside) if (f / "conftest.py").is_file()]


def _error_location(exc: Exception, file: Path) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    inner = next((f for f in reversed(frames) if not f.filename.startswith("<")), None)
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    return f"{inner.filename}:{inner.lineno}" if inner else str(file)


def _line_in(exc: BaseException, file: Path) -> int | None:
    """The line of ``file`` the exception passed through last (the statement that raised)."""
    import traceback

    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__)
             if Path(f.filename) == file]
    return lines[-1] if lines else None
