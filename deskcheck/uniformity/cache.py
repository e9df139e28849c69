"""The audit cache: a finished audit kept in SQLite with everything it read, reused while
every one of those still reads the same.

Where: ``.deskcheck/uniformity_cache.sqlite`` beside the config file (``config.base``).
An entry is found by a key over deskcheck's version and analysis code (a digest of
deskcheck.static and deskcheck.uniformity), Python's version and ``sys.path``, the
target, root, root methods, the whole ``[tool.deskcheck.uniformity]`` config and the bytes of
every replica arm's test file. It lists each source file the audit parsed (path, content
digest; the text itself is kept once per digest) and each module lookup (name, folders
searched, what it found). It holds while every lookup finds the same file and every file
has the same content digest or, when the bytes differ, the same *code digest*: the file's
tree with every line and column (what ``ast.dump`` with attributes shows) plus its
``deskcheck:`` comment lines, which is all the audit reads of it (a comment or blank-space
edit inside a line keeps it; anything that moves a line does not). Anything else audits
from scratch; a corrupt cache is reported with a warning and replaced, never a crash.
"""

from __future__ import annotations

import ast
import hashlib
import pickle
import sqlite3
import sys
import time
import warnings
import zlib
from pathlib import Path

from deskcheck import __version__
from deskcheck.own_folders import ignore_own_folder
from deskcheck.static import ALL, Sources, probe_again, unread_change
from deskcheck.uniformity.config import UniformityConfig
from deskcheck.uniformity.model import AuditReport
from deskcheck.uniformity.module_state import STATE_READ, may_write_any
from deskcheck.uniformity.preconditions import DISPATCH_READ, calls_of

CACHE_FILE = "uniformity_cache.sqlite"
_CODE_FORM = f"{__version__}/1"  # code digests kept under it: a new form never meets an old one
KEEP = 8  # entries kept per key (a few branches' worth), the oldest dropped
_SCHEMA = ("CREATE TABLE IF NOT EXISTS audits (key TEXT, used REAL, deps BLOB, report BLOB);"
           "CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BLOB);"
           "CREATE TABLE IF NOT EXISTS codes (digest TEXT PRIMARY KEY, code TEXT)")


def default_cache_path(config: UniformityConfig) -> Path:
    return config.base / ".deskcheck" / CACHE_FILE


def code_digest(data: bytes) -> str | None:
    """The digest of what the audit reads of a file: its tree with positions and its
    ``deskcheck:`` comment lines (None when it does not parse)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    marks = [f"{n}:{line}" for n, line in
             enumerate(data.decode("utf-8", "replace").splitlines(), 1) if "deskcheck:" in line]
    flat: list = []
    _flatten(tree, flat)
    text = repr(flat) + "\n" + "\n".join(marks)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _flatten(node: ast.AST, out: list) -> None:
    """The tree in preorder: each node's type, positions and fields, each list with its
    length first (one reading only; what ``ast.dump(include_attributes=True)`` says, faster)."""
    out.append(type(node).__name__)
    for name in node._attributes:
        out.append(getattr(node, name, None))
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.append(len(value))
            for item in value:
                if isinstance(item, ast.AST):
                    _flatten(item, out)
                else:
                    out.append(item)
        elif isinstance(value, ast.AST):
            _flatten(value, out)
        else:
            out.append(value)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()  # as Sources keys its parses


def audit_key(target: str, root: Path, roots_methods: list[str] | None,
              config: UniformityConfig) -> str:
    arms = []
    for replica in config.replica:
        file = config.base / replica.arm.partition("::")[0]
        try:
            arms.append(f"{file}={_digest(file.read_bytes())}")
        except OSError:
            arms.append(f"{file}=absent")
    parts = [__version__, _analysis_digest(), sys.version, repr(sys.path), target, str(root),
             repr(roots_methods), repr(config), *arms]
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=16).hexdigest()


_ANALYSIS: list[str] = []


def _analysis_digest() -> str:
    """The analysis's own code (deskcheck.static and deskcheck.uniformity): a working copy
    of deskcheck changes it without a new version number."""
    if not _ANALYSIS:
        here = Path(__file__).resolve().parent
        digest = hashlib.blake2b(digest_size=16)
        for folder in (here, here.parent / "static"):
            for file in sorted(folder.glob("*.py")):
                digest.update(file.name.encode() + b"\x00" + file.read_bytes())
        _ANALYSIS.append(digest.hexdigest())
    return _ANALYSIS[0]


class AuditCache:
    """Finished audits by key, each valid while what it read still reads the same."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.hits = 0

    def _connect(self) -> sqlite3.Connection | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore_own_folder(self.path.parent)
            db = sqlite3.connect(self.path, timeout=30)
            db.executescript(_SCHEMA)
            return db
        except (OSError, sqlite3.Error) as exc:
            return self._corrupt(exc)

    def _corrupt(self, exc: Exception) -> None:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            warnings.warn(f"deskcheck: the uniformity cache {self.path} is busy ({exc}); "
                          "auditing from scratch without it", stacklevel=3)
            return None  # another run holds it: not corrupt, leave it
        warnings.warn(f"deskcheck: the uniformity cache {self.path} is unreadable ({exc}); "
                      "auditing from scratch and starting a new cache", stacklevel=3)
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass
        return None

    def lookup(self, key: str, sources: Sources) -> AuditReport | None:
        """The cached audit under ``key`` that still holds for what ``sources`` reads."""
        db = self._connect()
        if db is None:
            return None
        try:
            with db:
                rows = db.execute("SELECT rowid, deps, report FROM audits WHERE key = ? "
                                  "ORDER BY used DESC", (key,)).fetchall()
                for rowid, deps, report in rows:
                    if _holds(pickle.loads(deps), sources, db):
                        db.execute("UPDATE audits SET used = ? WHERE rowid = ?",
                                   (time.time(), rowid))
                        found = pickle.loads(report)
                        if not isinstance(found, AuditReport):
                            raise TypeError(f"an entry holds {type(found).__name__}")
                        self.hits += 1
                        return found
        except Exception as exc:  # a corrupt file or entry: never a crash
            db.close()
            return self._corrupt(exc)
        db.close()
        return None

    def store(self, key: str, sources: Sources, report: AuditReport,
              reads: set[tuple[str, int, str]] | None = None) -> None:
        """``reads``: the bodies the audit read (``record_reads``); without it every body
        of every file counts as read."""
        deps = pickle.dumps((sorted(sources.read.items()), dict(sources.probes),
                             _bodies(sources, reads)))
        db = self._connect()
        if db is None:
            return
        try:
            with db:
                db.execute("INSERT INTO audits VALUES (?, ?, ?, ?)",
                           (key, time.time(), deps, pickle.dumps(report)))
                have = {d for (d,) in db.execute("SELECT digest FROM blobs")}
                for path, digest in sources.read.items():
                    data = sources.text(path)
                    if digest not in have and data is not None and _digest(data) == digest:
                        db.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)",
                                   (digest, zlib.compress(data, 1)))
                        have.add(digest)
                db.execute("DELETE FROM audits WHERE key = ? AND rowid NOT IN (SELECT rowid "
                           "FROM audits WHERE key = ? ORDER BY used DESC LIMIT ?)",
                           (key, key, KEEP))
        except sqlite3.Error as exc:
            self._corrupt(exc)
        finally:
            db.close()


def _bodies(sources: Sources, reads: set[tuple[str, int, str]] | None
            ) -> dict[str, tuple[frozenset[int], ...] | None]:
    """Per file: (def lines of the bodies read, of those only searched, of those read for
    their call and test texts only; the (line, column) of calls into code outside the root,
    whose string arguments nothing reads), None for all."""
    if reads is None:
        return {}
    out: dict[str, tuple[set, set, set, set, set, set] | None] = {}
    kinds = {"body": 0, "scan": 1, "calls": 2}
    for path in sources.read:
        out[path] = None if not sources.has_bodies(path) \
            else (set(), set(), set(), set(), set(), set())
    for path, line, how in reads:
        entry = out.get(path)
        if entry is None:
            continue
        if line == ALL:
            out[path] = None
        elif how.startswith("inert:"):
            entry[3].add((line, int(how.removeprefix("inert:"))))
        elif how.startswith(STATE_READ):  # module-level names found written nowhere
            entry[4].update(n for n in how.removeprefix(STATE_READ).split(",") if n)
        elif how.startswith(DISPATCH_READ):  # searched for calls of the roots
            entry[5].update(n for n in how.removeprefix(DISPATCH_READ).split(",") if n)
        else:
            entry[kinds.get(how, 0)].add(line)
    return {p: None if e is None else (frozenset(e[0]), frozenset(e[1] - e[0]),
                                       frozenset(e[2] - e[0]), frozenset(e[3]),
                                       frozenset(e[4]), frozenset(e[5]))
            for p, e in out.items()}


def _holds(deps: tuple, sources: Sources, db: sqlite3.Connection) -> bool:
    files, probes = deps[:2]
    bodies = deps[2] if len(deps) > 2 else {}
    for (name, roots), found in probes.items():
        if probe_again(name, [Path(r) for r in roots]) != found:
            return False
    for path, digest in files:
        data = sources.text(path)
        if data is None:
            return False
        if _digest(data) != digest and not _reads_alike(db, digest, data, bodies.get(path)):
            return False
    return True


def _reads_alike(db: sqlite3.Connection, digest: str, data: bytes,
                 read: tuple[frozenset[int], ...] | None) -> bool:
    """Whether ``data`` reads, to the audit, as the cached content ``digest`` did: body by
    body where the audit recorded which bodies it read (an edit in a body it never parsed,
    or a comment), else as a whole file (its code digest)."""
    if read is not None and not (len(read) > 4 and may_write_any(data, read[4])):
        blob = db.execute("SELECT data FROM blobs WHERE digest = ?", (digest,)).fetchone()
        old = zlib.decompress(blob[0]) if blob is not None else None
        if old is not None and unread_change(old, data, *read[:4]) is None and not (
                len(read) > 5 and calls_of(old, read[5]) != calls_of(data, read[5])):
            return True  # (a call of a root added or removed: its precondition may differ)
    return _same_code(db, digest, data)


def _same_code(db: sqlite3.Connection, digest: str, data: bytes) -> bool:
    """Whether ``data`` reads, to the audit, as the cached file with ``digest`` did."""
    before = _code_of(db, digest, None)
    return before is not None and before == _code_of(db, _digest(data), data)


def _code_of(db: sqlite3.Connection, digest: str, data: bytes | None) -> str | None:
    """The code digest of the content ``digest`` (kept: a big file parses once)."""
    row = db.execute("SELECT code FROM codes WHERE digest = ?",
                     (f"{_CODE_FORM}:{digest}",)).fetchone()
    if row is not None:
        return row[0] or None
    if data is None:
        blob = db.execute("SELECT data FROM blobs WHERE digest = ?", (digest,)).fetchone()
        if blob is None:
            return None
        data = zlib.decompress(blob[0])
    code = code_digest(data)
    db.execute("INSERT OR REPLACE INTO codes VALUES (?, ?)", (f"{_CODE_FORM}:{digest}", code or ""))
    return code
