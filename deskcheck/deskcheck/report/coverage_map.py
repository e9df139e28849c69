"""The persistent per-test coverage map of ``sweep --auto``, kept in the results store.

Which tests ran which production line, measured by the owners coverage pass, with the
sha256 of every test file (``conftest.py`` included) and production file as they were when
measured. A pull request then re-measures only the tests whose inputs changed
(``deskcheck.mutants.auto.coverage_map``); the nightly builds the map cold
(``deskcheck auto --build-coverage-map``) and keeps the store as a CI artifact.

Tables (created on first use; older deskchecks ignore them): ``covmap_meta`` (key/value:
``built_at``, ``refreshed_at``, ``scope`` — the pytest arguments, python and deskcheck
versions the map is valid for — and ``rootdir``), ``covmap_tests``, ``covmap_files`` and
``covmap_lines`` (with the lines run at import time under the pseudo-test ``<import>``).
Production files keep the text they had when measured: a change is diffed line by line, so
only the tests that ran a changed line are re-measured and the others' lines are moved.
Paths are relative to the project root, POSIX.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from deskcheck.report.store import Store, now_iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS covmap_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS covmap_tests (
    nodeid TEXT PRIMARY KEY, file TEXT NOT NULL, outcome TEXT NOT NULL DEFAULT '',
    duration_s REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS covmap_files (
    path TEXT PRIMARY KEY, kind TEXT NOT NULL, sha TEXT NOT NULL, text TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS covmap_lines (
    path TEXT NOT NULL, line INTEGER NOT NULL, nodeid TEXT NOT NULL,
    PRIMARY KEY (path, line, nodeid));
CREATE INDEX IF NOT EXISTS covmap_lines_by_test ON covmap_lines(nodeid);
"""
TEST, PRODUCTION = "test", "production"


@dataclass(frozen=True)
class MapInfo:
    """What ``deskcheck history`` says about the map."""

    built_at: str
    refreshed_at: str
    tests: int
    production_files: int
    scope: dict

    def age(self, now: datetime | None = None) -> str:
        """``3 h`` / ``2 d``: time since the last refresh (or build)."""
        then = datetime.fromisoformat(self.refreshed_at or self.built_at)
        seconds = ((now or datetime.now(UTC)) - then).total_seconds()
        for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
            if seconds >= size:
                return f"{seconds / size:.0f} {unit}"
        return f"{max(0, seconds):.0f} s"


class CoverageMap:
    """Read and update the map in ``store`` (one SQLite transaction per update)."""

    def __init__(self, store: Store):
        self.store = store
        if store.read_only:  # a store opened only to read it: no map there means none
            return
        with store.transaction() as db:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

    def _meta(self) -> dict[str, str]:
        db = self.store.connection
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'covmap_meta'").fetchone():
            return {}
        return dict(db.execute("SELECT key, value FROM covmap_meta"))

    def info(self) -> MapInfo | None:
        """``None`` when no map was built."""
        meta = self._meta()
        if "built_at" not in meta:
            return None
        db = self.store.connection
        tests = db.execute("SELECT COUNT(*) FROM covmap_tests").fetchone()[0]
        files = db.execute("SELECT COUNT(*) FROM covmap_files WHERE kind = ?",
                           (PRODUCTION,)).fetchone()[0]
        return MapInfo(meta["built_at"], meta.get("refreshed_at", ""), tests, files,
                       json.loads(meta.get("scope", "{}")))

    def rootdir(self) -> str:
        return self._meta().get("rootdir", "")

    def files(self, kind: str) -> dict[str, str]:
        """path -> sha of the files of ``kind`` as measured."""
        return dict(self.store.connection.execute(
            "SELECT path, sha FROM covmap_files WHERE kind = ?", (kind,)))

    def tests(self) -> dict[str, tuple[str, str, float]]:
        """nodeid -> (test file, outcome, seconds)."""
        return {row[0]: (row[1], row[2], row[3]) for row in self.store.connection.execute(
            "SELECT nodeid, file, outcome, duration_s FROM covmap_tests")}

    def covering(self, paths: Iterable[str]) -> set[str]:
        """Tests that ran any line of ``paths``."""
        found: set[str] = set()
        for path in paths:
            found.update(row[0] for row in self.store.connection.execute(
                "SELECT DISTINCT nodeid FROM covmap_lines WHERE path = ?", (path,)))
        return found

    def text(self, path: str) -> str:
        """A production file's text as measured (``""`` if unknown)."""
        row = self.store.connection.execute("SELECT text FROM covmap_files WHERE path = ?",
                                            (path,)).fetchone()
        return row[0] if row else ""

    def move_lines(self, path: str, moved: Mapping[int, int]) -> None:
        """Renumber ``path``'s lines (old -> new); lines not in ``moved`` are dropped."""
        with self.store.transaction() as db:
            rows = db.execute("SELECT line, nodeid FROM covmap_lines WHERE path = ?",
                              (path,)).fetchall()
            db.execute("DELETE FROM covmap_lines WHERE path = ?", (path,))
            db.executemany("INSERT OR IGNORE INTO covmap_lines VALUES (?, ?, ?)",
                           [(path, moved[line], nodeid) for line, nodeid in rows
                            if line in moved])

    def lines(self, path: str) -> dict[int, frozenset[str]]:
        """line -> covering tests (and ``<import>`` for lines run at import time)."""
        by_line: dict[int, set[str]] = {}
        for line, nodeid in self.store.connection.execute(
                "SELECT line, nodeid FROM covmap_lines WHERE path = ?", (path,)):
            by_line.setdefault(line, set()).add(nodeid)
        return {line: frozenset(tests) for line, tests in by_line.items()}

    def replace(self, *, scope: Mapping, rootdir: str, dropped: Iterable[str],
                tests: Mapping[str, tuple[str, str, float]],
                lines: Mapping[str, Mapping[int, Iterable[str]]],
                files: Mapping[str, tuple[str, str]], texts: Mapping[str, str],
                cold: bool) -> None:
        """Drop the ``dropped`` tests, add the measured ``tests`` and their ``lines``
        (path -> line -> tests) and set the file hashes (path -> (kind, sha)) and the
        production files' ``texts``. ``cold``: start from an empty map (a build)."""
        now = now_iso()
        with self.store.transaction() as db:
            if cold:
                for table in ("covmap_meta", "covmap_tests", "covmap_files", "covmap_lines"):
                    db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed names
            for nodeid in set(dropped) | set(tests):
                db.execute("DELETE FROM covmap_tests WHERE nodeid = ?", (nodeid,))
                db.execute("DELETE FROM covmap_lines WHERE nodeid = ?", (nodeid,))
            db.executemany("INSERT INTO covmap_tests VALUES (?, ?, ?, ?)",
                           [(n, f, o, d) for n, (f, o, d) in tests.items()])
            db.executemany("INSERT OR IGNORE INTO covmap_lines VALUES (?, ?, ?)",
                           [(path, line, nodeid) for path, by_line in lines.items()
                            for line, nodeids in by_line.items() for nodeid in nodeids])
            db.executemany("INSERT OR REPLACE INTO covmap_files VALUES (?, ?, ?, ?)",
                           [(path, kind, sha, texts.get(path, ""))
                            for path, (kind, sha) in files.items()])
            meta = {"scope": json.dumps(dict(scope), sort_keys=True), "rootdir": rootdir,
                    "refreshed_at": now}
            if cold:
                meta["built_at"] = now
            db.executemany("INSERT OR REPLACE INTO covmap_meta VALUES (?, ?)", meta.items())

    def forget_files(self, paths: Iterable[str]) -> None:
        """Files gone from disk: no hash, no lines."""
        with self.store.transaction() as db:
            for path in paths:
                db.execute("DELETE FROM covmap_files WHERE path = ?", (path,))
                db.execute("DELETE FROM covmap_lines WHERE path = ?", (path,))
