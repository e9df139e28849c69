"""What is wrong with a results store, in words, with the fix: never a raw SQLite traceback.

Four things can be wrong with a file deskcheck is asked to use as its store: it is damaged
(pages overwritten, truncated), it is not ours (another program's SQLite file, or not SQLite
at all), it is read-only, or a newer deskcheck wrote it. Each is a ``StoreError`` (exit 2)
naming the path, what is wrong, and what to do.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from deskcheck.errors import StoreError

T = TypeVar("T")

_ASIDE = "move it aside (`mv {path} {path}.bad`); the next sweep starts a fresh store"


def store_error(exc: BaseException, path: Path, *, writing: bool = True) -> StoreError:
    """The ``StoreError`` for a failure of SQLite (or of the file system) on ``path``."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, PermissionError) or "readonly" in lowered or "read-only" in lowered \
            or ("unable to open" in lowered and not writable(path)):
        return StoreError(
            f"the results store is read-only ({text})", location=str(path),
            fix=(f"make {path} and its folder writable, or pass --no-store" if writing else
                 f"make {path} and its folder readable, or copy the store and pass --db COPY"))
    if "not a database" in lowered:
        return StoreError(
            f"the file is not a SQLite database, so not a deskcheck store ({text})",
            location=str(path), fix="pass --db PATH of a deskcheck results store, or "
                                    + _ASIDE.format(path=path))
    if "malformed" in lowered or "corrupt" in lowered or "disk i/o" in lowered:
        return StoreError(
            f"the results store is damaged ({text})", location=str(path),
            fix=f"recover what is left with `sqlite3 {path} .recover | sqlite3 "
                f"{path}.recovered` and pass --db {path}.recovered, or "
                + _ASIDE.format(path=path))
    return StoreError(f"the results store cannot be used ({type(exc).__name__}: {text})",
                      location=str(path), fix=_ASIDE.format(path=path))


def writable(path: Path) -> bool:
    """The store and its folder can be written (SQLite writes its WAL beside the file)."""
    return os.access(path.parent, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def read_only_connection(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    """Read ``path`` without writing anything beside it: ``mode=ro``, or, where SQLite may
    not even create its WAL index (a read-only folder), ``immutable=1``."""
    if not path.is_file():
        raise StoreError(f"no results store at {path}", location=str(path),
                         fix="run `deskcheck sweep` first, or pass --db PATH")
    uri = path.resolve().as_uri()
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None,
                               timeout=busy_timeout_s)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        if "unable to open" not in str(exc) and "readonly" not in str(exc):
            raise
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)


def foreign_layout(path: Path, tables: dict[str, set[str]],
                   expected: dict[str, Iterable[str]]) -> StoreError | None:
    """A ``StoreError`` when ``tables`` (name -> columns of the file) are not a deskcheck
    store's: an empty file is fine (it becomes one), a missing table or column is not."""
    if not tables:
        return None
    missing = [f"{name}.{column}" for name, columns in expected.items()
               for column in columns if column not in tables.get(name, set())]
    if not missing:
        return None
    shown = ", ".join(sorted(tables)[:6]) + (", ..." if len(tables) > 6 else "")
    return StoreError(
        f"the file has a foreign layout (tables: {shown}; missing {', '.join(missing[:4])}"
        f"{', ...' if len(missing) > 4 else ''}): it is not a deskcheck results store",
        location=str(path), fix="pass --db PATH of a deskcheck results store, or "
                                + _ASIDE.format(path=path))


def table_columns(db: sqlite3.Connection) -> dict[str, set[str]]:
    names = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return {name: {row[1] for row in db.execute(f"PRAGMA table_info({name!r})")}
            for name in names}


def guarded(method: Callable[..., T]) -> Callable[..., T]:
    """A ``Store`` method whose SQLite errors become ``StoreError``s naming the store."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise store_error(exc, self.path, writing=not self.read_only) from exc

    return wrapper


def guard_public_methods(cls: type[T]) -> type[T]:
    """Wrap every public method of ``cls`` with ``guarded``."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and callable(value) and not isinstance(
                value, (classmethod, staticmethod, type)):
            setattr(cls, name, guarded(value))
    return cls
