"""Read and parse Python source once per content hash (stdlib ``ast``: structure only).

``hollow=True`` parses with function bodies left out and parses each body when it is first
asked for (:mod:`._hollow`); any doubt falls back to the full parse. An *overlay* maps a path
to replacement text held in memory: the can-fail arm plants a read without writing a file.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.errors import SourceResolutionError
from deskcheck.static._hollow import Body, hollow, parse_body
from deskcheck.static._nodes import subnodes

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_TREES: dict[tuple[str, bool], ParsedFile] = {}
_BODIES: dict[tuple[str, int], FunctionNode] = {}
_LINES: dict[str, list[str]] = {}  # content digest -> its lines (bodies are parsed from them)
ALL = 0  # a read of every body of a file (a full parse): any change to it counts
_RECORDERS: list[set[tuple[str, int, str]]] = []  # the reads of the analyses now running


_AS: list[str] = []  # how bodies parsed now are read (``read_as``)


def note_read(path: str, line: int, how: str = "body") -> None:
    """Tell every running :func:`record_reads` that the def at ``path:line`` was read
    (``how``: ``body`` parsed, ``scan`` its text searched, ``calls`` only its call and
    condition texts looked at; ``line`` ALL: the whole file)."""
    if how == "body" and _AS and line != ALL:
        how = _AS[-1]
    for reads in _RECORDERS:
        reads.add((path, line, how))


def note_reads(reads: set[tuple[str, int, str]]) -> None:
    """:func:`note_read` for each of ``reads`` (what a memoised analysis read when it ran)."""
    if _AS:  # bodies read now are read as _AS[-1]: each read is told as note_read tells it
        for path, line, how in reads:
            note_read(path, line, how)
        return
    for recorder in _RECORDERS:
        recorder |= reads


@contextmanager
def read_as(how: str) -> Iterator[None]:
    """Bodies parsed inside are read only as ``how`` (``calls``: the texts of their calls'
    functions and of their if/while/ternary tests, nothing else)."""
    _AS.append(how)
    try:
        yield
    finally:
        _AS.pop()


@contextmanager
def record_reads() -> Iterator[set[tuple[str, int, str]]]:
    """Collect which hollowed bodies an analysis read: ``{(path, def line, how)}``. What it
    never read cannot have changed its answer (the audit cache relies on it)."""
    reads: set[tuple[str, int, str]] = set()
    _RECORDERS.append(reads)
    try:
        yield reads
    finally:  # by identity: two records holding the same reads are equal sets
        del _RECORDERS[next(i for i in range(len(_RECORDERS) - 1, -1, -1)
                            if _RECORDERS[i] is reads)]


@dataclass(frozen=True)
class ParsedFile:
    """One parsed file: path, content digest (the cache key), module tree, lazy bodies."""

    path: str
    digest: str
    tree: ast.Module
    data: bytes = b""
    bodies: dict[int, Body] = field(default_factory=dict)

    def full(self) -> ParsedFile:
        """This file parsed in full (bodies included); ``self`` when it already is."""
        if not self.bodies:
            return self
        note_read(self.path, ALL)
        return _parse_full(self.path, self.digest, self.data)

    def function(self, node: FunctionNode) -> FunctionNode:
        """The def with its real body (``node`` itself unless it was hollowed)."""
        body = self.bodies.get(node.lineno)
        if body is None or node.col_offset != body.indent:
            return node
        note_read(self.path, node.lineno)
        key = (self.digest, node.lineno)
        found = _BODIES.get(key)
        if found is None:
            try:
                lines = _LINES.get(self.digest)
                if lines is None:  # one split per file, not per body parsed
                    lines = _LINES[self.digest] = self.data.decode("utf-8").splitlines(
                        keepends=True)
                found = parse_body(lines, body, self.path)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                full = _parse_full(self.path, self.digest, self.data).tree
                found = next(n for n in subnodes(full) if isinstance(n, FunctionNode)
                             and n.lineno == node.lineno and n.col_offset == node.col_offset)
            if not found.decorator_list and node.decorator_list:
                found.declared_decorators = node.decorator_list  # see decorators()
            _BODIES[key] = found
        return found


def decorators(node: ast.AST) -> list[ast.expr]:
    """A def's decorators, also for a body parsed apart from its file (its def line on, so
    with none of its own: :meth:`ParsedFile.function` keeps the hollow def's)."""
    return getattr(node, "declared_decorators", None) or getattr(node, "decorator_list", [])


def _parse_full(path: str, digest: str, data: bytes) -> ParsedFile:
    cached = _TREES.get((digest, False))
    if cached is not None and cached.path == path:
        return cached
    try:
        tree = cached.tree if cached is not None else ast.parse(data, filename=path)
    except SyntaxError as exc:
        raise SourceResolutionError(
            f"syntax error in production source: {exc.msg}",
            location=f"{path}:{exc.lineno or 1}",
            fix="fix the syntax error at that line (deskcheck parses, never imports)",
        ) from exc
    parsed = ParsedFile(path=path, digest=digest, tree=tree, data=data)
    _TREES[(digest, False)] = parsed
    return parsed


def _parse_hollow(path: str, digest: str, data: bytes) -> ParsedFile:
    cached = _TREES.get((digest, True))
    if cached is not None and cached.path == path:
        return cached
    try:
        split = hollow(data.decode("utf-8"))
        if split is None:
            return _parse_full(path, digest, data)
        text, bodies = split
        tree = cached.tree if cached is not None else ast.parse(text, filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return _parse_full(path, digest, data)  # reports a real syntax error with its line
    parsed = ParsedFile(path=path, digest=digest, tree=tree, data=data, bodies=bodies)
    _TREES[(digest, True)] = parsed
    return parsed


class Sources:
    """Reads files (or their overlay text) and parses each distinct content once."""

    def __init__(self, overlay: Mapping[str, str] | None = None, *, hollow: bool = True) -> None:
        self.overlay = {str(Path(p).resolve()): text for p, text in (overlay or {}).items()}
        self.hollow = hollow
        self._by_path: dict[str, ParsedFile] = {}
        self._scanned: dict[str, bytes | None] = {}  # path as asked -> its bytes (``scan``)
        # what an analysis depended on (a cached result is valid while these still hold):
        self.read: dict[str, str] = {}  # path -> digest of every file parsed
        self.probes: dict[tuple[str, tuple[str, ...]], str | None] = {}  # module lookups
        self._resolved: dict[str, str] = {}  # a path as asked -> its resolved form

    def _key(self, path: str | Path) -> str:
        """``str(Path(path).resolve())``, once per path asked (a resolve is a walk of stats)."""
        asked = str(path)
        found = self._resolved.get(asked)
        if found is None:
            found = self._resolved[asked] = str(Path(asked).resolve())
        return found

    def text(self, path: str | Path) -> bytes | None:
        """The bytes this reader sees at ``path`` (overlay first), None when unreadable."""
        key = self._key(path)
        if key in self.overlay:
            return self.overlay[key].encode("utf-8")
        try:
            return Path(key).read_bytes()
        except OSError:
            return None

    def scan(self, path: str | Path) -> bytes | None:
        """The bytes at ``path``, searched as text (not parsed): recorded as read, like a
        parse, so a cached result that depended on the search is checked against them."""
        asked = str(path)
        if asked in self._scanned:  # a subclass search scans every module once per class
            return self._scanned[asked]
        data = self.text(path)
        if data is not None:
            key = self._key(path)
            self.read.setdefault(key, hashlib.blake2b(data, digest_size=16).hexdigest())
        self._scanned[asked] = data
        return data

    def parse(self, path: str | Path) -> ParsedFile:
        key = self._key(path)
        cached = self._by_path.get(key)
        if cached is not None:
            return cached
        if key in self.overlay:
            data = self.overlay[key].encode("utf-8")
        else:
            try:
                data = Path(key).read_bytes()
            except OSError as exc:
                raise SourceResolutionError(
                    f"cannot read production source: {exc.strerror}", location=key,
                    fix="check the path and the --root folders") from exc
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        self.read[key] = digest
        parsed = (_parse_hollow if self.hollow else _parse_full)(key, digest, data)
        if not parsed.bodies:
            note_read(key, ALL)  # parsed in full: every body is there to be read
        self._by_path[key] = parsed
        return parsed


    def has_bodies(self, path: str | Path) -> bool:
        """Whether the file is read body by body (hollowed): from its parse where it was
        parsed, else from its text alone (a file only searched is not parsed for this)."""
        key = self._key(path)
        parsed = self._by_path.get(key)
        if parsed is not None:
            return bool(parsed.bodies)
        data = self.text(key) if self.hollow else None
        if data is None:
            return False
        try:
            split = hollow(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return False
        return split is not None and bool(split[1])


def clear_cache() -> None:
    """Forget every parsed tree (benchmarks use this to measure a cold run)."""
    _TREES.clear()
    _BODIES.clear()
    _LINES.clear()
    from deskcheck.static import _collect, _constants, _dataflow, _fields, _members  # no cycle

    _collect.clear_cache()
    _constants.clear_cache()
    _members.clear_cache()
    _dataflow.clear_flow_cache()
    _fields.clear_fields_cache()
