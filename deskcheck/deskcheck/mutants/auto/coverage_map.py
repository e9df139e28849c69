"""Owners of auto mutants from the persistent coverage map: build it cold, refresh what a
change made stale, answer "who covers this line" without running the whole suite.

A test is re-measured when its file (or a ``conftest.py`` above it) changed, or when it ran a
line of a production file that changed (a replaced or deleted line, or a line next to an
insertion: the file is diffed against the text the map measured; every other test's lines
are renumbered). A changed line that ran at import time (module level: a constant, a
``def`` line, a decorator) makes every test that ran the file stale. A new test file is
measured whole; a deleted one is dropped.

Known limit: a test that uses a module-level name of a changed file without running any of
its lines, or code newly inserted at module level, is not re-measured until the nightly
rebuild; the nightly's cold build is the reference. Nothing stale is used silently: ``Refresh.reasons`` says what was re-measured and
why, and a map measured for other pytest arguments, another python or another deskcheck is
not used at all (``Refresh.unusable``: the caller runs the full pass and says so).
"""

from __future__ import annotations

import difflib
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from deskcheck import __version__
from deskcheck.mutants.auto.changes import is_test_path
from deskcheck.mutants.auto.owners import (
    IMPORT_TIME,
    CoveragePass,
    CoveragePassError,
    run_coverage_pass,
)
from deskcheck.report.coverage_map import PRODUCTION, TEST, CoverageMap

SKIP_FOLDERS = frozenset({"__pycache__", "node_modules", "build", "dist", "mutants"})


def scope_of(pytest_args: Sequence[str]) -> dict:
    """What a map is valid for: the same tests, python and deskcheck."""
    return {"pytest_args": list(pytest_args), "deskcheck": __version__,
            "python": ".".join(map(str, sys.version_info[:2]))}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def project_files(root: Path, test_paths: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Every Python file of the project: relative path -> (test | production, sha256).
    ``conftest.py`` files count as test files; hidden and build folders are skipped."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if any(p.startswith(".") or p in SKIP_FOLDERS or p.endswith(".egg-info")
               for p in relative.parts[:-1]):
            continue
        posix = relative.as_posix()
        kind = TEST if path.name == "conftest.py" or is_test_path(posix, test_paths) \
            else PRODUCTION
        try:
            found[posix] = (kind, _sha(path))
        except OSError:
            continue
    return found


def _test_file(nodeid: str) -> str:
    return nodeid.partition("::")[0]


@dataclass
class Refresh:
    """What a refresh did: the tests re-measured, and why, in words."""

    remeasured: int = 0
    reasons: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    unusable: str = ""  # why the map could not be used (the full pass runs instead)


def describe(refresh: Refresh | None) -> list[str]:
    """What the owners pass did with the coverage map, in words (terminal and Markdown)."""
    if refresh is None:
        return []
    if refresh.unusable:
        return [f"coverage map not used: {refresh.unusable}; the whole suite ran under "
                "coverage"]
    if not refresh.reasons:
        return ["coverage map: up to date, no test re-measured"]
    return [f"coverage map: {refresh.remeasured} test(s) re-measured in "
            f"{refresh.wall_s:.1f} s, because:", *(f"  - {r}" for r in refresh.reasons)]


def _texts(root: Path, files: dict[str, tuple[str, str]]) -> dict[str, str]:
    return {p: (root / p).read_text(encoding="utf-8", errors="replace")
            for p, (kind, _) in files.items() if kind == PRODUCTION}


def _store_pass(cmap: CoverageMap, measured: CoveragePass, root: Path,
                files: dict[str, tuple[str, str]], known: set[str], scope: dict,
                dropped: set[str], cold: bool) -> None:
    """Store a pass: its tests and their lines of production files, and the hashes (and
    production texts) of the files in ``files`` (all of them when cold)."""
    tests = {n: (_test_file(n), measured.outcomes.get(n, ""), measured.durations.get(n, 0.0))
             for n in measured.outcomes}
    production = {p for p, (kind, _) in files.items() if kind == PRODUCTION} | {
        p for p in known if p not in files}
    lines = {path: by_line for path, by_line in measured.lines.items() if path in production}
    cmap.replace(scope=scope, rootdir=str(measured.rootdir or measured.root), dropped=dropped,
                 tests=tests, lines=lines, files=files, texts=_texts(root, files), cold=cold)


def build_map(cmap: CoverageMap, root: Path, pytest_args: Sequence[str],
              test_paths: Sequence[str], timeout_s: float) -> CoveragePass:
    """Measure the whole suite and store the map from scratch."""
    files = project_files(root, test_paths)
    measured = run_coverage_pass(root, [], pytest_args, timeout_s=timeout_s, measure_all=True)
    _store_pass(cmap, measured, root, files, set(), scope_of(pytest_args), set(), cold=True)
    return measured


def _under(conftest: str, test_file: str) -> bool:
    folder = PurePosixPath(conftest).parent
    return folder == PurePosixPath(".") or PurePosixPath(test_file).is_relative_to(folder)


def refresh_map(cmap: CoverageMap, root: Path, pytest_args: Sequence[str],
                test_paths: Sequence[str], timeout_s: float) -> Refresh:
    """Bring the map up to date with the files on disk, re-measuring only stale tests."""
    info = cmap.info()
    if info is None:
        return Refresh(unusable="no coverage map in the store (build one: "
                                "`deskcheck auto --build-coverage-map`)")
    scope = scope_of(pytest_args)
    if info.scope != scope:
        changed = sorted(k for k in scope if info.scope.get(k) != scope[k])
        return Refresh(unusable=f"the coverage map was measured for other {', '.join(changed)} "
                                f"({info.scope}); rebuild it with "
                                "`deskcheck auto --build-coverage-map`")
    now = project_files(root, test_paths)
    known_tests, known_prod = cmap.files(TEST), cmap.files(PRODUCTION)
    tests = cmap.tests()
    changed_tests = {p for p, (k, sha) in now.items() if k == TEST and known_tests.get(p) != sha}
    gone_tests = set(known_tests) - {p for p, (k, _) in now.items() if k == TEST}
    changed_prod = {p for p in known_prod if now.get(p, (PRODUCTION, ""))[1] != known_prod[p]}
    refresh = Refresh()
    stale: set[str] = set()
    rerun_files: set[str] = set()
    for path in sorted(changed_tests | gone_tests):
        if PurePosixPath(path).name == "conftest.py":
            hit = {n for n, (f, _, _) in tests.items() if _under(path, f)}
            rerun_files |= {f for n, (f, _, _) in tests.items() if n in hit}
            refresh.reasons.append(f"{path} changed: {len(hit)} test(s) under it re-measured")
            stale |= hit
        else:
            hit = {n for n, (f, _, _) in tests.items() if f == path}
            stale |= hit
            what = ("deleted" if path in gone_tests else "new" if path not in known_tests
                    else "changed")
            if path not in gone_tests:
                rerun_files.add(path)
            refresh.reasons.append(f"test file {path} {what}: "
                                   + (f"{len(hit)} test(s) dropped" if what == "deleted"
                                      else "measured again"))
    for path in sorted(changed_prod):
        hit, why = _stale_by_production(cmap, root, path, path in now)
        hit -= stale
        stale |= hit
        refresh.reasons.append(f"production file {path} {why}: {len(hit)} covering test(s) "
                               "re-measured")
    rerun_files = {f for f in rerun_files if f in now}
    nodeids = sorted(n for n in stale if tests[n][0] not in rerun_files
                     and tests[n][0] in now)
    args = [*sorted(rerun_files), *nodeids]
    differs = {p: v for p, v in now.items()
               if (known_tests if v[0] == TEST else known_prod).get(p) != v[1]}
    if args:
        measured = run_coverage_pass(root, [], [*_options(pytest_args), *args],
                                     timeout_s=timeout_s, measure_all=True)
        refresh.remeasured, refresh.wall_s = len(measured.outcomes), measured.wall_s
        _store_pass(cmap, measured, root, differs, set(known_prod), scope, stale, cold=False)
    elif stale or differs:
        cmap.replace(scope=scope, rootdir=cmap.rootdir(), dropped=stale, tests={}, lines={},
                     files=differs, texts=_texts(root, differs), cold=False)
    cmap.forget_files((set(known_tests) | set(known_prod)) - set(now))
    return refresh


_VALUED = frozenset({"-k", "-m", "-p", "-o", "-c", "-W", "--rootdir", "--confcutdir",
                     "--override-ini", "--import-mode", "--deselect", "--ignore"})


def _stale_by_production(cmap: CoverageMap, root: Path, path: str, exists: bool
                         ) -> tuple[set[str], str]:
    """Tests a change of production file ``path`` makes stale, and why (in words); the
    other tests' lines of it are renumbered to the new text."""
    by_line = cmap.lines(path)
    everyone = {n for tests in by_line.values() for n in tests} - {IMPORT_TIME}
    if not exists:
        return everyone, "deleted"
    old = cmap.text(path).splitlines()
    new = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
    moved: dict[int, int] = {}
    changed: set[int] = set()  # old line numbers replaced or deleted
    near: set[int] = set()  # old lines next to an insertion
    for tag, i1, i2, j1, _j2 in difflib.SequenceMatcher(None, old, new,
                                                         autojunk=False).get_opcodes():
        if tag == "equal":
            moved.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
        elif tag == "insert":
            near.update({i1, i1 + 1})
        else:
            changed.update(range(i1 + 1, i2 + 1))
    cmap.move_lines(path, moved)
    if any(IMPORT_TIME in by_line.get(line, ()) for line in changed):
        return everyone, "changed at module level"
    hit = {n for line in changed | near for n in by_line.get(line, ())} - {IMPORT_TIME}
    lines = len(changed) + len(near)
    return hit, f"changed ({lines} line(s) around the change)"


def _options(pytest_args: Sequence[str]) -> list[str]:
    """The map's pytest arguments minus its test paths (a refresh names its own tests);
    an option's value stays with it (``-k EXPR``, ``-p NAME``)."""
    kept: list[str] = []
    args = list(pytest_args)
    while args:
        arg = args.pop(0)
        if arg in _VALUED and args:
            kept += [arg, args.pop(0)]
        elif arg.startswith("-"):
            kept.append(arg)
    return kept


def owners_from_map(cmap: CoverageMap, root: Path, paths: Sequence[str]) -> CoveragePass:
    """The owners answer for ``paths`` from an up-to-date map (shape of a coverage pass)."""
    tests = cmap.tests()
    rootdir = cmap.rootdir()
    lines = {p: {line: tests - {IMPORT_TIME} for line, tests in cmap.lines(p).items()
                 if tests - {IMPORT_TIME}} for p in paths}
    return CoveragePass(root=root, rootdir=Path(rootdir) if rootdir else root, lines=lines,
                        outcomes={n: o for n, (_, o, _) in tests.items()},
                        durations={n: d for n, (_, _, d) in tests.items()})


def store_path(root: Path) -> Path | None:
    """The project's store file if it exists (the map lives there); never creates it."""
    from deskcheck.config import load_config
    from deskcheck.report.store import default_store_path, project_store_path

    config = load_config(root)
    path = (project_store_path(config) if config.root.resolve() == root.resolve()
            else default_store_path(root))
    return path if path.is_file() else None


def owners_coverage(root: Path, paths: Sequence[str], pytest_args: Sequence[str],
                    test_paths: Sequence[str], timeout_s: float, use_map: bool
                    ) -> tuple[CoveragePass, Refresh | None]:
    """Who covers ``paths``: from the refreshed map when the store has a usable one, else
    one coverage pass over the whole suite (as without a map). The ``Refresh`` says which."""
    from deskcheck.report.store import Store

    refresh = None
    path = store_path(root) if use_map else None
    if path is not None:
        with Store(path, root=root) as store:
            cmap = CoverageMap(store)
            try:
                refresh = refresh_map(cmap, root, pytest_args, test_paths, timeout_s)
            except CoveragePassError as exc:  # e.g. a stale node id pytest no longer knows
                refresh = Refresh(unusable=f"its refresh could not run ({exc.message})")
            if not refresh.unusable:
                return owners_from_map(cmap, root, paths), refresh
    return run_coverage_pass(root, paths, pytest_args, timeout_s=timeout_s), refresh
