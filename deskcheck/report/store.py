"""The results store: every run and every mutant verdict in SQLite under ``.deskcheck/``.

One connection per ``Store`` (per process). WAL mode and a busy timeout let two runs write at
once; every write is its own ``BEGIN IMMEDIATE`` transaction, so a mutant's verdict is on disk
the moment ``record_mutant`` returns and a ``kill -9`` loses nothing already recorded. A run
left ``running`` by a process that is gone can be claimed again with ``resumable_run``.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sqlite3
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deskcheck import __version__
from deskcheck.config import ProjectConfig, load_config
from deskcheck.errors import ConfigError, StoreError
from deskcheck.liveness import process_alive, process_token
from deskcheck.own_folders import ignore_own_folder
from deskcheck.report.locations import mutated_file, read_source
from deskcheck.report.records import (
    HOLDING_VERDICTS,
    RUN_KINDS,
    TIERS,
    VERDICTS,
    MutantRecord,
    RunRecord,
)
from deskcheck.report.store_errors import (
    foreign_layout,
    guard_public_methods,
    read_only_connection,
    store_error,
    table_columns,
    writable,
)
from deskcheck.report.summary import summarize

STORE_DIR = ".deskcheck"
STORE_FILE = "results.sqlite"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000
RESUMABLE_STATUSES = ("running", "interrupted", "error")

_RUN_COLUMNS = ("kind", "commit_sha", "branch", "started_at", "finished_at", "machine", "tier",
                "config_fingerprint", "deskcheck_version", "shard", "status", "summary_json")
_LIST_FIELDS = ("owners", "killed_by", "failed_non_owners")
_MUTANT_COLUMNS = ("mutant_id", "title", "target", "operator", "verdict", "owners", "killed_by",
                   "failed_non_owners", "duration_s", "excerpt", "diff", "source_file",
                   "source_line", "source_column", "source_end_line", "source_end_column",
                   "fingerprint", "reused", "detail", "extra")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL, commit_sha TEXT NOT NULL DEFAULT '', branch TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '',
    machine TEXT NOT NULL DEFAULT '', tier TEXT NOT NULL DEFAULT 'DESK',
    config_fingerprint TEXT NOT NULL DEFAULT '', deskcheck_version TEXT NOT NULL DEFAULT '',
    shard TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT 'running',
    summary_json TEXT NOT NULL DEFAULT '{}',
    owner_pid INTEGER NOT NULL DEFAULT 0, owner_token TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS mutants (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    mutant_id TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', target TEXT NOT NULL DEFAULT '',
    operator TEXT NOT NULL DEFAULT '', verdict TEXT NOT NULL,
    owners TEXT NOT NULL DEFAULT '[]', killed_by TEXT NOT NULL DEFAULT '[]',
    failed_non_owners TEXT NOT NULL DEFAULT '[]', duration_s REAL NOT NULL DEFAULT 0,
    excerpt TEXT NOT NULL DEFAULT '', diff TEXT NOT NULL DEFAULT '',
    source_file TEXT NOT NULL DEFAULT '', source_line INTEGER NOT NULL DEFAULT 0,
    source_column INTEGER NOT NULL DEFAULT 0, source_end_line INTEGER NOT NULL DEFAULT 0,
    source_end_column INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT NOT NULL DEFAULT '', reused INTEGER NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '{}', extra TEXT NOT NULL DEFAULT '{}',
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (run_id, mutant_id)
);
CREATE INDEX IF NOT EXISTS mutants_by_fingerprint ON mutants(fingerprint, verdict);
CREATE TABLE IF NOT EXISTS planned (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    mutant_id TEXT NOT NULL,
    PRIMARY KEY (run_id, mutant_id)
);
CREATE TABLE IF NOT EXISTS sources (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    path TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (run_id, path)
);
"""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_store_path(root: Path) -> Path:
    return Path(root) / STORE_DIR / STORE_FILE


def project_store_path(config: ProjectConfig) -> Path:
    """``[tool.deskcheck] store`` if set, else ``.deskcheck/results.sqlite`` of the root."""
    return config.path("store") or default_store_path(config.root)


def _write_ahead(db: sqlite3.Connection) -> None:
    """Put the file in WAL mode (kept in the file: once any process did, every one finds it).
    Two processes switching a fresh store at once can get "database is locked" at once, not
    after the busy timeout (SQLite's deadlock avoidance skips the busy handler for this
    switch): retried until the timeout, re-reading the mode the other process may have set."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@guard_public_methods
class Store:
    """Runs and mutant verdicts in one SQLite file (created on first use).

    ``read_only``: only read an existing store (``results``, ``report``, ``history``,
    ``diff``, merge sources): nothing is created or migrated, and a store on a read-only
    file system can still be read. Every SQLite failure is a ``StoreError`` saying what is
    wrong with the file (``store_errors``)."""

    def __init__(self, path: Path | str, *, root: Path | None = None, read_only: bool = False):
        self.path = Path(path)
        self.root = Path(root) if root else self.path.resolve().parent.parent
        self.read_only = read_only
        self._snapshotted: set[tuple[int, str]] = set()
        self._conn: sqlite3.Connection | None = None
        try:
            if not read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connect()
            # What the file is, before anything is written to it (WAL mode, the schema).
            self._check_version()
            problem = foreign_layout(self.path, table_columns(self._conn), _EXPECTED)
            if problem is not None:
                raise problem
            if not read_only:
                self._set_up()
                ignore_own_folder(self.path.parent)  # a good store never makes the tree dirty
        except (sqlite3.DatabaseError, OSError, StoreError) as exc:
            if self._conn is not None:
                self._conn.close()  # a refused file keeps no -wal/-shm beside it
            if isinstance(exc, StoreError):
                raise
            raise store_error(exc, self.path, writing=not read_only) from exc

    def _set_up(self) -> None:
        """WAL and the schema (a store this process may write); nothing is written to a
        store that already has them."""
        db = self._conn
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        _write_ahead(db)
        if _SCHEMA_TABLES <= tables and \
                db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        with self._write() as db:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _check_version(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store schema {version} is newer than this deskcheck ({SCHEMA_VERSION})",
                location=str(self.path), fix="upgrade deskcheck or use another --db")

    def _connect(self) -> None:
        self._pid = os.getpid()
        if self.read_only and not writable(self.path):
            self._conn = read_only_connection(self.path, BUSY_TIMEOUT_MS / 1000)
        else:
            if self.read_only and not self.path.is_file():
                raise StoreError(f"no results store at {self.path}", location=str(self.path),
                                 fix="run `deskcheck sweep` first, or pass --db PATH")
            self._conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                         isolation_level=None)
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA synchronous = NORMAL")  # durable across process kills
            self._conn.execute("PRAGMA foreign_keys = ON")
        # Closed at exit even when the caller never closes it: the last close folds the WAL
        # back into the main file, so copying results.sqlite alone (a CI artifact) is enough.
        weakref.finalize(self, self._conn.close)

    @property
    def _db(self) -> sqlite3.Connection:
        """This process's connection: a forked worker gets its own (SQLite connections must
        not cross a fork); the parent's is left untouched."""
        if self._pid != os.getpid():
            self._connect()
        return self._conn

    @property
    def connection(self) -> sqlite3.Connection:
        """This process's connection, for reads by parts with their own tables."""
        return self._db

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction, committed on exit (parts with own tables)."""
        return self._write()

    @classmethod
    def for_project(cls, root: Path) -> Store:
        """The store of the project at ``root`` (honours its ``[tool.deskcheck] store``)."""
        config = load_config(Path(root))
        if config.root.resolve() != Path(root).resolve():  # a parent folder's pyproject
            return cls(default_store_path(root), root=root)
        return cls(project_store_path(config), root=root)

    def close(self) -> None:
        if self._pid == os.getpid():
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- runs -------------------------------------------------------------------------------

    def begin_run(self, run: RunRecord) -> int:
        """Record a new run (owned by this process) and return its id."""
        if run.kind not in RUN_KINDS:
            raise ConfigError(f"unknown run kind {run.kind!r}", location=str(self.path),
                              fix=f"use one of {', '.join(RUN_KINDS)}")
        if run.tier not in TIERS:
            raise ConfigError(f"unknown evidence tier {run.tier!r}", location=str(self.path),
                              fix="use DESK (CPU, gloo) or METAL (GPU, NCCL)")
        values = _run_values(run)
        values["started_at"] = values["started_at"] or now_iso()
        values["machine"] = values["machine"] or socket.gethostname()
        values["deskcheck_version"] = values["deskcheck_version"] or __version__
        values["status"] = "running"
        pid = os.getpid()
        with self._write() as db:
            cursor = db.execute(
                f"INSERT INTO runs ({', '.join(_RUN_COLUMNS)}, owner_pid, owner_token) "
                f"VALUES ({', '.join('?' * len(_RUN_COLUMNS))}, ?, ?)",
                (*(values[c] for c in _RUN_COLUMNS), pid, process_token(pid)))
        run.id = int(cursor.lastrowid or 0)
        return run.id

    def finish_run(self, run_id: int, status: str, summary: dict[str, Any] | None = None, *,
                   finished_at: str | None = None) -> None:
        """Close a run with a final ``status`` (``holds``, ``falls_short``, ``partial``, or
        ``interrupted`` / ``error``, which can be resumed). The stored summary is the verdict
        counts of its recorded mutants, updated with the caller's ``summary``."""
        if not status or status == "running":
            raise ValueError("finish_run needs a final status, e.g. 'holds' or 'falls_short'")
        # The standard keys (total, counts, held, holds, reused, never_judged, ...) always;
        # the caller's on top.
        summary = {**self.summary_of(run_id), **(summary or {})}
        with self._write() as db:
            updated = db.execute(
                "UPDATE runs SET status = ?, summary_json = ?, finished_at = ?, owner_pid = 0 "
                "WHERE id = ?",
                (status, json.dumps(summary, sort_keys=True), finished_at or now_iso(), run_id))
        if updated.rowcount != 1:
            raise StoreError(f"no run {run_id} in the store", location=str(self.path),
                             fix="pass an id listed by `deskcheck history`")
        # A finished run lands in the main file now, not only in the WAL (never blocks).
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def resumable_run(self, kind: str, commit: str, config_fingerprint: str,
                      shard: str = "") -> int | None:
        """Claim the newest unfinished run of the same kind, commit, config and shard whose
        process is gone (killed, interrupted, errored) and return its id; else ``None``.
        Put anything else that selects the mutants (e.g. ``--only``) in the config fingerprint.

        Claiming is atomic: two processes resuming at once never get the same run.
        """
        me = os.getpid()
        with self._write() as db:
            rows = db.execute(
                "SELECT id, owner_pid, owner_token FROM runs WHERE kind = ? AND commit_sha = ? "
                "AND config_fingerprint = ? AND shard = ? AND status IN (?, ?, ?) "
                "ORDER BY id DESC",
                (kind, commit, config_fingerprint, shard, *RESUMABLE_STATUSES)).fetchall()
            for run_id, pid, token in rows:
                if pid != me and process_alive(pid, token):
                    continue
                db.execute("UPDATE runs SET owner_pid = ?, owner_token = ?, status = 'running' "
                           "WHERE id = ?", (me, process_token(me), run_id))
                return int(run_id)
        return None

    def run(self, run_id: int) -> RunRecord:
        row = self._db.execute(f"SELECT id, {', '.join(_RUN_COLUMNS)}, {_OWNER} FROM runs "
                               "WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in the store", location=str(self.path),
                             fix="pass an id listed by `deskcheck history`")
        return self._current(_run_from_row(row), row)

    def runs(self, kind: str | None = None) -> list[RunRecord]:
        """Every run, oldest first (optionally of one kind)."""
        query = f"SELECT id, {', '.join(_RUN_COLUMNS)}, {_OWNER} FROM runs"
        params: tuple[Any, ...] = ()
        if kind:
            query, params = query + " WHERE kind = ?", (kind,)
        rows = self._db.execute(query + " ORDER BY id", params).fetchall()
        return [self._current(_run_from_row(row), row) for row in rows]

    def _current(self, run: RunRecord, row: tuple[Any, ...]) -> RunRecord:
        """A run still marked ``running`` (live, or killed with SIGKILL) is summarised from
        the verdicts stored so far: its stored summary is that of an earlier end, or none."""
        if row[1 + _RUN_COLUMNS.index("status")] == "running" and run.id is not None \
                and run.kind in ("sweep", "auto"):
            run.summary = {**run.summary, **self.summary_of(run.id)}
        return run

    # -- what a run set out to judge ----------------------------------------------------------

    def plan(self, run_id: int, mutant_ids: Iterable[str]) -> None:
        """Record the mutants ``run_id`` sets out to judge (added to any earlier plan of a
        run being resumed): those left without a verdict count as never judged."""
        with self._write() as db:
            db.executemany("INSERT OR IGNORE INTO planned (run_id, mutant_id) VALUES (?, ?)",
                           [(run_id, m) for m in mutant_ids])

    def unplan(self, run_id: int, mutant_id: str) -> None:
        """``mutant_id`` is not for this run after all (no change can affect it)."""
        with self._write() as db:
            db.execute("DELETE FROM planned WHERE run_id = ? AND mutant_id = ?",
                       (run_id, mutant_id))

    def planned(self, run_id: int) -> list[str] | None:
        """The ids ``run_id`` set out to judge; ``None`` when it recorded no plan."""
        try:
            rows = self._db.execute("SELECT mutant_id FROM planned WHERE run_id = ?",
                                    (run_id,)).fetchall()
        except sqlite3.OperationalError:  # read-only, written by a deskcheck before plans
            return None
        found = [row[0] for row in rows]
        return found or None

    def summary_of(self, run_id: int) -> dict[str, Any]:
        """The standard summary of ``run_id`` from its stored verdicts and its plan."""
        return summarize(self.mutants(run_id), self.planned(run_id))

    # -- mutants ----------------------------------------------------------------------------

    def record_mutant(self, run_id: int, mutant: MutantRecord) -> None:
        """Record (or replace) one mutant's verdict; committed before this returns."""
        if mutant.verdict not in VERDICTS:
            raise ValueError(f"{mutant.id}: unknown verdict {mutant.verdict!r}")
        values = _mutant_values(mutant)
        path = mutated_file(mutant)
        source = self._source_to_snapshot(run_id, path)
        with self._write() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM mutants WHERE run_id = ?",
                             (run_id,)).fetchone()[0]
            db.execute(
                f"INSERT OR REPLACE INTO mutants (run_id, seq, {', '.join(_MUTANT_COLUMNS)}, "
                f"recorded_at) VALUES (?, ?, {', '.join('?' * len(_MUTANT_COLUMNS))}, ?)",
                (run_id, seq, *(values[c] for c in _MUTANT_COLUMNS), now_iso()))
            if source is not None:
                db.execute("INSERT OR IGNORE INTO sources (run_id, path, text) VALUES (?, ?, ?)",
                           (run_id, path, source))
        if source is not None:
            self._snapshotted.add((run_id, path))

    def finished_ids(self, run_id: int) -> set[str]:
        """Ids of the mutants of ``run_id`` that already have a verdict (skip them on resume)."""
        rows = self._db.execute("SELECT mutant_id FROM mutants WHERE run_id = ?", (run_id,))
        return {row[0] for row in rows}

    def mutants(self, run_id: int) -> list[MutantRecord]:
        """The mutants of a run in the order they were recorded."""
        rows = self._db.execute(
            f"SELECT {', '.join(_MUTANT_COLUMNS)} FROM mutants WHERE run_id = ? ORDER BY seq",
            (run_id,))
        return [_mutant_from_row(row) for row in rows]

    def mutant_durations(self, kind: str = "sweep") -> dict[str, float]:
        """Each mutant's seconds in the newest ``kind`` run that ran it (reused verdicts and
        zero durations skipped): what ``--shard`` balances by."""
        rows = self._db.execute(
            "SELECT m.mutant_id, m.duration_s FROM mutants m JOIN runs r ON r.id = m.run_id "
            "WHERE r.kind = ? AND m.reused = 0 AND m.duration_s > 0 ORDER BY m.run_id, m.seq",
            (kind,))
        return {mutant_id: float(duration) for mutant_id, duration in rows}

    def reusable(self, fingerprint: str,
                 verdicts: frozenset[str] = HOLDING_VERDICTS) -> MutantRecord | None:
        """The newest verdict recorded for an identical fingerprint, marked ``reused``, when it is
        one of ``verdicts`` (default: the holding ones, KILLED and ACCEPTED_SURVIVOR); else
        ``None``. Only the newest counts: an older kill is never revived after a newer run
        with the same inputs did not kill (a flaky owner, a timeout) — the mutant runs again."""
        if not fingerprint:
            return None
        row = self._db.execute(
            f"SELECT run_id, {', '.join(_MUTANT_COLUMNS)} FROM mutants WHERE fingerprint = ? "
            "ORDER BY run_id DESC, seq DESC LIMIT 1", (fingerprint,)).fetchone()
        if row is None or row[1 + _MUTANT_COLUMNS.index("verdict")] not in verdicts:
            return None
        record = _mutant_from_row(row[1:])
        record.reused = True
        record.detail = {**record.detail, "reused_from_run": record.detail.get(
            "reused_from_run", row[0])}
        return record

    # -- source snapshots -------------------------------------------------------------------

    def snapshot_source(self, run_id: int, path: str, text: str) -> None:
        """Keep the text of a mutated file as it was during the run (for Stryker/HTML)."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO sources (run_id, path, text) VALUES (?, ?, ?)",
                       (run_id, path, text))
        self._snapshotted.add((run_id, path))

    def sources(self, run_id: int) -> dict[str, str]:
        rows = self._db.execute("SELECT path, text FROM sources WHERE run_id = ?", (run_id,))
        return dict(rows.fetchall())

    def _source_to_snapshot(self, run_id: int, source_file: str) -> str | None:
        if not source_file or (run_id, source_file) in self._snapshotted:
            return None
        if self._db.execute("SELECT 1 FROM sources WHERE run_id = ? AND path = ?",
                            (run_id, source_file)).fetchone():
            self._snapshotted.add((run_id, source_file))
            return None
        return read_source(self.root, source_file)


_SCHEMA_TABLES = frozenset({"runs", "mutants", "planned", "sources", "mutants_by_fingerprint"})
_EXPECTED = {"runs": ("id", *_RUN_COLUMNS), "mutants": ("run_id", "seq", *_MUTANT_COLUMNS)}


def _run_values(run: RunRecord) -> dict[str, Any]:
    values = {c: getattr(run, c) for c in _RUN_COLUMNS if c not in ("commit_sha",
                                                                     "summary_json")}
    values["commit_sha"] = run.commit
    values["summary_json"] = json.dumps(run.summary, sort_keys=True)
    return values


_OWNER = "owner_pid, owner_token"


def _status(data: dict[str, Any]) -> str:
    """The stored status, except that a ``running`` run whose owner process is gone from this
    machine (killed with SIGKILL, the machine rebooted) is ``interrupted``: it runs no more,
    and the next run of the same inputs resumes it."""
    if data["status"] == "running" and data["owner_pid"] and data["machine"] in (
            "", socket.gethostname(), platform.node()) and not process_alive(
            int(data["owner_pid"]), str(data["owner_token"] or "")):
        return "interrupted"
    return data["status"]


def _run_from_row(row: tuple[Any, ...]) -> RunRecord:
    data = dict(zip(("id", *_RUN_COLUMNS, "owner_pid", "owner_token"), row, strict=True))
    return RunRecord(
        id=data["id"], kind=data["kind"], commit=data["commit_sha"], branch=data["branch"],
        started_at=data["started_at"], finished_at=data["finished_at"], machine=data["machine"],
        tier=data["tier"], config_fingerprint=data["config_fingerprint"],
        deskcheck_version=data["deskcheck_version"], shard=data["shard"],
        status=_status(data), summary=json.loads(data["summary_json"]))


_MUTANT_FIELDS = tuple(f.name for f in fields(MutantRecord))
_COLUMN_FIELDS = frozenset(_MUTANT_COLUMNS) | {"id"}


def _mutant_values(mutant: MutantRecord) -> dict[str, Any]:
    data = mutant.to_json()
    values = {c: data.get(c) for c in _MUTANT_COLUMNS if c in data}
    values["mutant_id"] = mutant.id
    for name in _LIST_FIELDS:
        values[name] = json.dumps(list(data[name]))
    values["detail"] = json.dumps(data["detail"], sort_keys=True, default=str)
    # Fields added to MutantRecord after this schema travel in ``extra``.
    values["extra"] = json.dumps({k: v for k, v in data.items() if k not in _COLUMN_FIELDS},
                                 sort_keys=True, default=str)
    return values


def _mutant_from_row(row: tuple[Any, ...]) -> MutantRecord:
    data = dict(zip(_MUTANT_COLUMNS, row, strict=True))
    extra = json.loads(data.pop("extra"))
    data["id"] = data.pop("mutant_id")
    for name in _LIST_FIELDS:
        data[name] = json.loads(data[name])
    data["detail"] = json.loads(data["detail"])
    data["reused"] = bool(data["reused"])
    return MutantRecord.from_json({**extra, **data})
