"""Incremental sweeps without collecting: which files a mutant's verdict depends on, its
fingerprint, and the verdicts the store can give back before any pytest session starts.

The owner files are found from the catalog text and the test files on disk, never by
collecting, so the same fingerprint is computed before a session (the fast path: everything
reusable, no session, no baseline) and inside one (the engine, which records it):

* a node-id owner (``tests/test_x.py::T::t``) -> its file; a folder -> every ``.py`` under it;
* a ``uniformity:`` owner -> every ``.py`` file under the audit's source root and the
  pyproject that declares its sources (what the audit reads);
* a ``-k``/``-m`` owner, or a ``@pytest.mark.kills`` declaration naming the mutant -> every
  ``.py`` file of the test universe (``[sweep] tests``): what such a selection matches can
  only change through one of them;
* each of those files' ``conftest.py`` chain up to the project root (the first folder with a
  pyproject.toml, pytest.ini, tox.ini or setup.cfg).

A ``kills`` marker applied dynamically (a non-literal id, ``"kills"`` as a string, a marker
object passed around) is not tied to one mutant: any such file makes every mutant's
fingerprint cover the universe. Inside a session the engine also checks that every collected
owner lies in the set and widens the set to the universe if not, so that mutant is always
judged after collection (never wrongly reused).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from deskcheck import __version__
from deskcheck.mutants.catalog import Catalog, Mutant
from deskcheck.mutants.uniformity_owner import is_uniformity_owner
from deskcheck.pytest_ini import PYTEST_CONFIG_FILES
from deskcheck.report.fingerprint import file_digest, mutant_fingerprint
from deskcheck.report.records import MutantRecord

ROOT_MARKERS = PYTEST_CONFIG_FILES
_KILLS = re.compile(r"\bkills\b")
DYNAMIC = "*"  # a file whose kills markers name mutants we cannot read statically


def _python_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.suffix == ".py" else []
    if not path.is_dir():
        return []
    return sorted(p for p in path.rglob("*.py")
                  if not any(part == "__pycache__" or part.startswith(".")
                             for part in p.relative_to(path).parts))


def _conftests(file: Path, cache: dict[Path, tuple[Path, ...]] | None = None) -> list[Path]:
    """``conftest.py`` files pytest would load for ``file``: its folder up to the root.
    ``cache`` (folder -> its chain) makes a universe's files cost one look per folder."""
    cache = {} if cache is None else cache
    return list(_folder_conftests(file.resolve().parent, cache))


def _folder_conftests(folder: Path, cache: dict[Path, tuple[Path, ...]]) -> tuple[Path, ...]:
    chain = cache.get(folder)
    if chain is None:
        here = (folder / "conftest.py",) if (folder / "conftest.py").is_file() else ()
        at_root = any((folder / name).is_file() for name in ROOT_MARKERS)
        parent = folder.parent
        chain = here if at_root or parent == folder else here + _folder_conftests(parent, cache)
        cache[folder] = chain
    return chain


def declared_kills(text: str) -> set[str]:
    """Mutant ids a test file declares with ``kills`` markers; ``DYNAMIC`` among them when
    one cannot be read statically (then it may declare any id)."""
    if not _KILLS.search(text):
        return set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {DYNAMIC}
    ids: set[str] = set()
    calls: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "kills":
                calls.add(id(func))
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        ids.add(arg.value)
                    else:
                        ids.add(DYNAMIC)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "kills" and id(node) not in calls:
            ids.add(DYNAMIC)  # the marker used other than by a direct call
        elif isinstance(node, ast.Name) and node.id == "kills" and id(node) not in calls:
            ids.add(DYNAMIC)
        elif isinstance(node, ast.Constant) and node.value == "kills":
            ids.add(DYNAMIC)  # getattr(pytest.mark, "kills"), add_marker("kills")
    return ids


@dataclass
class TestUniverse:
    """The catalog's test files on disk, read once per sweep."""

    catalog: Catalog
    roots: Sequence[Path] = ()
    _texts: dict[Path, str] = field(default_factory=dict)
    _digests: dict[Path, str] = field(default_factory=dict)
    _chains: dict[Path, tuple[Path, ...]] = field(default_factory=dict)
    _found: dict[str, Path | None] = field(default_factory=dict)
    _under: dict[Path, list[Path]] = field(default_factory=dict)

    @cached_property
    def files(self) -> list[Path]:
        paths = [self.catalog.root / t for t in self.catalog.settings.tests] or [
            self.catalog.root]
        files = {p.resolve() for path in paths for p in _python_files(path)}
        return sorted(files | {c for f in files for c in _conftests(f, self._chains)})

    @cached_property
    def audit_files(self) -> list[Path] | None:
        """What the ``uniformity:`` owners' audit reads (None: the catalog has no audit)."""
        settings = self.catalog.uniformity
        return None if settings is None else settings.source_files(self.catalog.root)

    @cached_property
    def file_set(self) -> frozenset[Path]:
        return frozenset(self.files)

    @cached_property
    def digests(self) -> list[str]:
        """The sorted distinct digests of every universe file (shared by wide mutants)."""
        return sorted({self.digest(p) for p in self.files})

    def fingerprint(self, mutant: Mutant, target_source: str, owner_files: list[Path]) -> str:
        """``fingerprint`` with this universe's cached digests: a mutant whose owner files
        are the whole universe (``owner_files`` returned ``files`` itself) costs no walk."""
        return fingerprint(mutant, target_source, owner_files, digest=self.digest,
                           digests=self.digests if owner_files is self.files else None)

    def digest(self, path: Path) -> str:
        """``file_digest`` read once per file for this universe (a sweep's lifetime)."""
        found = self._digests.get(path)
        if found is None:
            found = self._digests[path] = file_digest(path)
        return found

    def _text(self, path: Path) -> str:
        if path not in self._texts:
            try:
                self._texts[path] = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                self._texts[path] = ""
        return self._texts[path]

    @cached_property
    def declarations(self) -> dict[str, set[Path]]:
        """Mutant id (or ``DYNAMIC``) -> the universe files that declare it a kills owner."""
        found: dict[str, set[Path]] = {}
        for path in self.files:
            for mutant_id in declared_kills(self._text(path)):
                found.setdefault(mutant_id, set()).add(path)
        return found

    def owner_files(self, mutant: Mutant) -> list[Path] | None:
        """The files the mutant's verdict depends on, or None when an owner names no file
        or folder on disk (the engine reports that, after collecting)."""
        wide = (DYNAMIC in self.declarations or mutant.id in self.declarations
                or any(o.startswith(("-k", "-m")) for o in mutant.owners))
        files: set[Path] = set()  # the owners' own files; the universe is added when wide
        for owner in mutant.owners:
            if owner.startswith(("-k", "-m")):
                continue
            if is_uniformity_owner(owner):
                if self.audit_files is None:
                    return None
                files.update(self.audit_files)
                continue
            hit = self._on_disk(owner.partition("::")[0])
            if hit is None:
                return None
            if hit.is_dir():
                if hit not in self._under:
                    self._under[hit] = _python_files(hit)
                files.update(self._under[hit])
            else:
                files.add(hit)
        if wide and files <= self.file_set:
            return self.files  # the universe itself (closed under conftest chains, sorted)
        if wide:
            files |= self.file_set
        return sorted(files | {c for f in files for c in _conftests(f, self._chains)})

    def _on_disk(self, part: str) -> Path | None:
        """The file or folder an owner's path names, under the first root that has it."""
        if part not in self._found:
            roots = list(self.roots) or [self.catalog.root, Path.cwd()]
            self._found[part] = next(
                (p for r in roots if (p := (r / part).resolve()).exists()), None)
        return self._found[part]


def definition_of(mutant: Mutant) -> dict:
    """The catalog entry, as fingerprinted."""
    return {"id": mutant.id, "target": mutant.target, "operator": mutant.operator,
            "params": mutant.params, "owners": list(mutant.owners), "expect": mutant.expect,
            "accepted_survivor": mutant.accepted_survivor, "timeout_s": mutant.timeout_s}


def fingerprint(mutant: Mutant, target_source: str, owner_files: Iterable[Path],
                digest: Callable[[Path], str] = file_digest,
                digests: Sequence[str] | None = None) -> str:
    return mutant_fingerprint(definition_of(mutant), target_source,
                              owner_files if digests is not None else sorted(owner_files),
                              __version__, digest=digest, file_digests=digests)


def target_source(mutant: Mutant) -> tuple[str, str] | None:
    """Today's source of the target function and its file (importing its module, not the
    tests), or None when it cannot be resolved here (the engine then reports why)."""
    from deskcheck.errors import DeskcheckError
    from deskcheck.mutants.source import locate, scope_path_of
    from deskcheck.mutants.target import resolve

    try:
        code = resolve(mutant.target, location=mutant.location).function.__code__
        return (locate(code.co_filename, scope_path_of(code.co_qualname),
                       code.co_firstlineno).text, code.co_filename)
    except DeskcheckError:
        return None


def target_sources(mutants: Sequence[Mutant]) -> tuple[dict[str, tuple[str, str] | None],
                                                      list[str]]:
    """``target_source`` of each mutant, computed in a forked child: the target modules are
    imported there, so a sweep that goes on to collect imports them afresh, after the
    test configuration (conftest.py) has run, exactly as without this look-ahead.

    The child is a subreaper and dies with the sweep: a process a target module starts at
    import is stopped before the child answers, and reported (the second value: notes)."""
    if not mutants:
        return {}, []
    from deskcheck.interrupts import release_held, signals_held
    from deskcheck.mutants import import_guard, procs

    read_fd, write_fd = os.pipe()
    with signals_held():  # never interrupted inside the at-fork callbacks (logging's lock)
        pid = procs.real_fork()
    if pid == 0:  # child: never returns
        code = 1
        try:
            release_held()
            os.close(read_fd)
            procs.die_with_parent()
            procs.become_subreaper()
            sys.dont_write_bytecode = True
            with import_guard.watching_imports():
                found = {m.id: target_source(m) for m in mutants}
            strays = import_guard.stop_strays()
            notes = [import_guard.strays_note(strays, "the target modules were imported")
                     ] if strays else []
            data = json.dumps({"sources": found, "notes": notes}).encode()
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {m.id: None for m in mutants}, []  # the session will say what is wrong
    answer = json.loads(data)
    found = answer["sources"]
    return ({m.id: tuple(found[m.id]) if found.get(m.id) else None for m in mutants},
            answer["notes"])


@dataclass
class Reused:
    """What the store gave back before any session: verdicts by id, and the mutants that
    still need a session (in catalog order)."""

    records: dict[str, MutantRecord]
    remaining: list[Mutant]
    dropped: set[str]
    notes: list[str] = field(default_factory=list)


def reuse_before_collection(catalog: Catalog, mutants: Sequence[Mutant], recorder,
                            affected: Callable[[Mutant, Path, list[Path]], bool] | None,
                            stored: Callable[[str], MutantRecord | None]) -> Reused:
    """Take every verdict the store can vouch for without collecting: finished in the run
    being resumed, or a holding verdict under an unchanged fingerprint. A mutant that
    cannot be fingerprinted here (target does not import, owner file missing) needs a
    session. A kills marker naming an id of no mutant here owns nothing in this catalog
    (another catalog's id): it changes no verdict."""
    universe = TestUniverse(catalog)
    records: dict[str, MutantRecord] = {}
    remaining: list[Mutant] = []
    dropped: set[str] = set()
    owner_files_of = {m.id: universe.owner_files(m) for m in mutants}
    sources, notes = target_sources([m for m in mutants if owner_files_of[m.id] is not None])
    for mutant in mutants:
        owner_files, found = owner_files_of[mutant.id], sources.get(mutant.id)
        if found is None or owner_files is None:
            remaining.append(mutant)
            continue
        source, file = found
        if affected is not None and not affected(mutant, Path(file), owner_files):
            dropped.add(mutant.id)
            continue
        if recorder.is_done(mutant.id) and (previous := stored(mutant.id)) is not None:
            records[mutant.id] = previous
            continue
        reused = recorder.reuse(mutant.id, universe.fingerprint(mutant, source, owner_files))
        if reused is not None:
            records[mutant.id] = reused
        else:
            remaining.append(mutant)
    return Reused(records, remaining, dropped, notes)
