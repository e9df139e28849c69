"""Item 5: a damaged, foreign, non-SQLite, newer or read-only store. Every command that
uses it ends with exit 2 naming the path, what is wrong and the fix (never a SQLite
traceback), and leaves the file as it was; a read-only store is still read, and never
called "not a deskcheck store"."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tests.reliability.battery import Bench
from tests.reliability.readonly import read_only

pytestmark = pytest.mark.xdist_group("reliability-stores")

COMMANDS = {
    "results": ("results",),
    "report": ("report", "--format", "json"),
    "history": ("history",),
    "sweep": ("sweep", "--workers", "1"),
}


def _pages_overwritten(path: Path) -> None:
    data = bytearray(path.read_bytes())
    assert len(data) > 8192, f"the store is too small to damage mid-file ({len(data)} bytes)"
    data[4096:] = b"\x55" * (len(data) - 4096)  # every page after the first
    path.write_bytes(bytes(data))


def _foreign(path: Path) -> None:
    path.unlink()
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("CREATE TABLE notes (body TEXT)")
        db.commit()


def _not_sqlite(path: Path) -> None:
    path.write_text("these are my notes, not a database\n" * 200)


def _newer(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:  # closed: nothing left in a -wal file
        db.execute("PRAGMA user_version = 99")
        db.commit()


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "damaged": (_pages_overwritten, "is damaged"),
    "foreign": (_foreign, "foreign layout"),
    "not-sqlite": (_not_sqlite, "not a SQLite database"),
    "newer": (_newer, "is newer than this deskcheck"),
}


def _store(bench: Bench) -> Path:
    for _ in range(3):  # a few runs, so the file spans several pages
        done = bench.run("sweep", "--workers", "1", "--no-incremental")
        assert done.returncode == 0, done.stdout + done.stderr
    path = bench.root / ".deskcheck" / "results.sqlite"
    assert path.is_file() and not Path(f"{path}-wal").exists(), "the store was not closed"
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_bad_store_is_exit_2_with_path_problem_and_fix(bench: Bench, damage: str) -> None:
    path = _store(bench)
    make, words = DAMAGE[damage]
    make(path)
    before = _digest(path)
    beside = sorted(p.name for p in path.parent.iterdir())  # the store and its .gitignore
    for name, args in COMMANDS.items():
        done = bench.run(*args)
        assert "Traceback" not in done.stderr, (
            f"`deskcheck {name}` on a {damage} store printed a traceback:\n{done.stderr}")
        assert done.returncode == 2, (f"`deskcheck {name}` on a {damage} store exited "
                                      f"{done.returncode}, expected 2:\n{done.stderr}")
        assert str(path) in done.stderr and words in done.stderr and "fix:" in done.stderr, (
            f"`deskcheck {name}` on a {damage} store does not say {words!r} with the path "
            f"and a fix:\n{done.stderr}")
        assert _digest(path) == before, f"`deskcheck {name}` changed the {damage} store file"
        assert sorted(p.name for p in path.parent.iterdir()) == beside, (
            f"`deskcheck {name}` left files beside the {damage} store: "
            f"{sorted(p.name for p in path.parent.iterdir())}")


def test_a_read_only_store_is_read_and_called_read_only(bench: Bench) -> None:
    path = _store(bench)
    before = _digest(path)
    with read_only(path, path.parent):
        reads = {name: bench.run(*COMMANDS[name]) for name in ("results", "report", "history")}
        sweep = bench.run(*COMMANDS["sweep"])
    for name, done in reads.items():
        assert done.returncode == 0, (f"`deskcheck {name}` could not read a read-only store "
                                      f"(exit {done.returncode}):\n{done.stderr}")
    assert sweep.returncode == 2 and "read-only" in sweep.stderr and str(path) in sweep.stderr \
        and "fix:" in sweep.stderr, (
            f"a sweep into a read-only store should be exit 2 saying it is read-only "
            f"(exit {sweep.returncode}):\n{sweep.stderr}")
    assert "not a deskcheck store" not in sweep.stderr, (
        f"a good read-only store was called not a deskcheck store:\n{sweep.stderr}")
    assert _digest(path) == before, "the read-only store changed"
