"""Owners of auto mutants: the tests that cover the mutated statement, rank processes included.

One pytest pass in a subprocess, restricted (``include``) to the changed files, with per-test
contexts recorded by ``coverage_plugin`` in the test process and in every process a test starts
(fork: ``patch = fork, _exit``; multiprocessing: ``concurrency``; spawn and ``subprocess``
pythons: ``COVERAGE_PROCESS_START``, with a ``sitecustomize`` bootstrap for this run only).
Code that runs only inside gloo rank processes is thereby owned by the test that started the
ranks.

The plugin starts coverage when the first test starts (``python -m pytest``): pytest's start-up,
plugin imports and collection run untraced, which on Python 3.11 (no ``sys.monitoring``) was
most of the pass's cost. Only ``measure_all`` (the persistent coverage map, which must know the
lines run at import time) runs ``coverage run -m pytest`` from interpreter start.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.errors import DeskcheckError
from deskcheck.mutants.auto.coverage_env import (
    CHILDREN_ENV,
    CONTEXT_ENV,
    LINES_ENV,
    OUTCOMES_ENV,
    RCFILE_ENV,
)
from deskcheck.mutants.pytest_config import xdist_off
from deskcheck.scratch import make_scratch, reap_stale

PLUGIN = "deskcheck.mutants.auto.coverage_plugin"
COUNTS_PLUGIN = "deskcheck.progress_counts"  # running counts for the progress line
WORK_PREFIX = "deskcheck-auto-cov-"  # the pass's scratch folder (owner-marked, reaped)
IMPORT_TIME = "<import>"  # the context of lines run outside any test (module level)

_RCFILE = """\
[run]
data_file = {data_file}
parallel = true
{children}context = ${{{context_env}-}}
include =
{include}
{omit}disable_warnings = module-not-measured, no-data-collected, module-not-imported
"""

_SITECUSTOMIZE = """\
# deskcheck auto owners pass: start coverage in every python a test starts, then hand over
# to the sitecustomize this one shadows (if any). Pythons started while nothing is measured
# (pytest itself, before its first test) do not even import coverage.
import importlib.machinery as _machinery
import importlib.util as _util
import os as _os
import sys as _sys

if _os.environ.get("COVERAGE_PROCESS_START") or _os.environ.get("COVERAGE_PROCESS_CONFIG"):
    try:
        import coverage as _coverage

        _coverage.process_startup()
    except Exception:  # never break the user's interpreter start
        pass

_here = _os.path.dirname(_os.path.abspath(__file__))
_spec = _machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in _sys.path if _os.path.abspath(p or ".") != _here])
if _spec is not None and _spec.loader is not None:
    _spec.loader.exec_module(_util.module_from_spec(_spec))
"""


class CoveragePassError(DeskcheckError):
    """The owners coverage pass could not run (not: some tests failed): a usage error."""

    exit_code = 2


@dataclass
class CoveragePass:
    """Which tests ran which lines of the changed files, and how each test fared."""

    root: Path
    rootdir: Path | None = None  # pytest's rootdir: node ids are relative to it
    lines: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    returncode: int = 0
    wall_s: float = 0.0
    command: list[str] = field(default_factory=list)
    output_tail: str = ""
    notes: list[str] = field(default_factory=list)  # what the pass did about coverage plugins

    def owners_for(self, path: str, lines: Iterable[int]) -> list[str]:
        """Covering tests of any of ``lines`` of ``path``, fastest first. A test that was
        skipped or xfailed on clean code cannot see a defect: it owns nothing while some
        covering test can (an ``xfail`` covering the line must not make it BASELINE_RED)."""
        by_line = self.lines.get(path, {})
        found: set[str] = set()
        for line in lines:
            found.update(by_line.get(line, ()))
        live = {t for t in found if self.outcomes.get(t) != "skipped"}
        return sorted(live or found, key=lambda t: (self.durations.get(t, 0.0), t))

    def failing(self, tests: Iterable[str]) -> list[str]:
        return [t for t in tests if self.outcomes.get(t) == "failed"]


def whole_lines_tail(output: str, chars: int = 2000) -> str:
    """The last ``chars`` of ``output``, starting at a line start (never mid-word)."""
    if len(output) <= chars:
        return output.strip()
    tail = output[-chars:]
    cut = tail.find("\n")
    return (tail[cut + 1:] if cut >= 0 else tail).strip()


PYTEST_COV_NOTE = ("pytest-cov's --cov (in the project's pytest options) is disabled for the "
                   "owners coverage pass (--no-cov): deskcheck measures each test itself")


def coverage_plugin_off(root: Path, pytest_args: Sequence[str]) -> tuple[list[str], list[str]]:
    """``--no-cov`` (and the note saying so) when pytest-cov would measure the pass: its
    collector and deskcheck's must not run at once."""
    from deskcheck.pytest_ini import pytest_config

    words = [*pytest_config(root).addopts(), *pytest_args]
    wants_cov = any(w == "--cov" or w.startswith("--cov=") for w in words)
    if wants_cov and importlib.util.find_spec("pytest_cov") is not None \
            and "--no-cov" not in words:
        return ["--no-cov"], [PYTEST_COV_NOTE]
    return [], []


def _import_roots(root: Path, paths: Sequence[str]) -> list[str]:
    from deskcheck.mutants.auto.locate import module_name_for

    roots: list[str] = []
    for path in paths:
        import_root = str(module_name_for(root, path)[1])
        if import_root not in roots:
            roots.append(import_root)
    return roots


_CHILDREN = "concurrency = multiprocessing, thread\npatch = fork, _exit\n"


def _environment(work: Path, rcfile: Path, outcomes: Path, import_roots: list[str],
                 measure_children: bool, from_first_test: bool) -> dict[str, str]:
    env = dict(os.environ)
    for name in (CONTEXT_ENV, RCFILE_ENV, CHILDREN_ENV, LINES_ENV, "COVERAGE_PROCESS_CONFIG",
                 "COVERAGE_PROCESS_START", "COVERAGE_RCFILE"):
        env.pop(name, None)
    if from_first_test:  # the plugin starts coverage, and exports the two below, then
        env[RCFILE_ENV] = str(rcfile)
        if measure_children:
            env[CHILDREN_ENV] = "1"
    elif measure_children:
        env["COVERAGE_PROCESS_START"] = str(rcfile)
        env["COVERAGE_RCFILE"] = str(rcfile)
    env[OUTCOMES_ENV] = str(outcomes)
    # the measured copy must be the imported one, in this process and in every child
    python_path = [str(work / "boot"), *import_roots]
    if env.get("PYTHONPATH"):
        python_path.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(python_path)
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
         counts: Path) -> tuple[int, str]:
    """Run the pass; while it runs, its counts show on the active progress reporter."""
    from deskcheck.progress import COUNTS_ENV, child_progress, follow_child

    process = subprocess.Popen(command, cwd=cwd, env={**env, COUNTS_ENV: str(counts)},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        returncode, output = follow_child(process, counts,
                                          child_progress("coverage pass", "tests under coverage"),
                                          timeout_s=timeout_s)
    except subprocess.TimeoutExpired as exc:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        raise CoveragePassError(
            f"the owners coverage pass did not finish within {timeout_s:.0f} s",
            location=" ".join(command),
            fix="raise [tool.deskcheck] auto_coverage_timeout or narrow the tests with --tests",
        ) from exc
    finally:
        _kill_leftovers(process.pid)
    return returncode, output or ""


def _kill_leftovers(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def read_contexts(rcfile: Path, data_dir: Path, root: Path,
                  paths: Sequence[str] | None) -> dict[str, dict[int, frozenset[str]]]:
    """path -> line -> covering tests, for ``paths`` (``None``: every file measured under
    ``root``, by its root-relative POSIX path, and ``IMPORT_TIME`` among the tests of a line
    run outside any test: at import, during collection)."""
    from coverage import Coverage, CoverageData

    cov = Coverage(config_file=str(rcfile))
    cov.combine(data_paths=[str(data_dir)], keep=False)
    cov.save()
    data = CoverageData(basename=str(data_dir / ".coverage"))
    data.read()
    wanted = {str((root / p).resolve()): p for p in paths or ()}
    result: dict[str, dict[int, frozenset[str]]] = {p: {} for p in paths or ()}
    for measured in data.measured_files():
        resolved = Path(measured).resolve()
        relpath = wanted.get(str(resolved))
        if relpath is None and paths is None and resolved.is_relative_to(root):
            relpath = resolved.relative_to(root).as_posix()
            result.setdefault(relpath, {})
        if relpath is None:
            continue
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            tests = frozenset(c or IMPORT_TIME for c in contexts if c or paths is None)
            if tests:
                result[relpath][line] = result[relpath].get(line, frozenset()) | tests
    return result


def run_coverage_pass(root: Path, paths: Sequence[str], pytest_args: Sequence[str] = (), *,
                      python: str | None = None, timeout_s: float = 1800.0,
                      measure_children: bool = True, measure_all: bool = False
                      ) -> CoveragePass:
    """Run the tests once under coverage and return who covers which line of ``paths``.

    ``measure_children=False`` measures the test process only (what a single-process tool such
    as mutmut sees): code that runs only in rank processes then has no covering test.
    ``measure_all``: every Python file under ``root`` (hidden folders and installed packages
    left out) instead of ``paths``: what the persistent coverage map records, with the lines
    run at import time (``coverage run`` from interpreter start). Otherwise coverage starts
    with the first test: lines run only at import or collection are not measured (they had
    no owner before either: a line belongs to the tests that ran it).
    """
    if importlib.util.find_spec("coverage") is None:
        raise CoveragePassError("coverage.py is not installed",
                                fix="pip install 'deskcheck[auto]' (coverage>=7.10)")
    root = root.resolve()
    reap_stale(WORK_PREFIX)  # what passes killed with SIGKILL left
    work = make_scratch(WORK_PREFIX)
    try:
        data_dir = work / "data"
        data_dir.mkdir()
        (work / "boot").mkdir()
        (work / "boot" / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
        rcfile = work / "coveragerc"
        include = ("\n".join(f"    {(root / p).resolve()}" for p in paths) if not measure_all
                   else f"    {root}/*")
        omit = ("omit =\n    */.*/*\n    */site-packages/*\n    */dist-packages/*\n"
                if measure_all else "")
        rcfile.write_text(_RCFILE.format(data_file=data_dir / ".coverage", include=include,
                                         omit=omit,
                                         context_env=CONTEXT_ENV,
                                         children=_CHILDREN if measure_children else ""),
                          encoding="utf-8")
        outcomes_file = work / "outcomes.json"
        runner = (["-m", "coverage", "run", f"--rcfile={rcfile}"] if measure_all else [])
        plugin_off, notes = coverage_plugin_off(root, pytest_args)
        command = [python or sys.executable, *runner, "-m", "pytest", "-p", PLUGIN,
                   "-p", COUNTS_PLUGIN, "-q", "-rN", *xdist_off(), *plugin_off, *pytest_args]
        env = _environment(work, rcfile, outcomes_file, _import_roots(root, paths),
                           measure_children, from_first_test=not measure_all)
        lines_file = work / "lines.json"
        if not measure_all:  # the plugin combines and reads (coverage is imported there)
            request = work / "lines-request.json"
            request.write_text(json.dumps({"root": str(root), "paths": list(paths),
                                           "data": str(data_dir), "out": str(lines_file)}),
                               encoding="utf-8")
            env[LINES_ENV] = str(request)
        started = time.perf_counter()
        returncode, output = _run(command, root, env, timeout_s, work / "counts.json")
        wall = time.perf_counter() - started
        payload = (json.loads(outcomes_file.read_text(encoding="utf-8"))
                   if outcomes_file.is_file() else {"tests": {}})
        if returncode not in (0, 1) or not payload["tests"]:
            # 0/1: tests ran (some may fail: the engine's baseline judges that); anything else
            # (usage error, nothing collected, interrupted) would make every line look uncovered
            ran = len(payload["tests"])
            what = (f"ran {ran} tests, then pytest exited {returncode}"
                    + (" (an internal error: see pytest's words below)" if returncode == 3
                       else "") if ran else f"ran no tests (pytest exit code {returncode})")
            raise CoveragePassError(
                f"the owners coverage pass {what}",
                location=f"{root}: {' '.join(command[command.index('pytest'):])}",
                fix=("check the test selection (--tests / [tool.deskcheck] auto_tests); "
                     if not ran else "fix what pytest reports; ")
                + "pytest said:\n" + whole_lines_tail(output))
        results = payload["tests"]
        if lines_file.is_file():
            lines = {path: {int(line): frozenset(tests) for line, tests in by_line.items()}
                     for path, by_line in json.loads(lines_file.read_text("utf-8")).items()}
        else:
            lines = read_contexts(rcfile, data_dir, root, None if measure_all else paths)
        return CoveragePass(
            root=root, rootdir=Path(payload["rootdir"]),
            lines=lines,
            outcomes={k: v["outcome"] for k, v in results.items()},
            durations={k: float(v["duration_s"]) for k, v in results.items()},
            returncode=returncode, wall_s=wall, command=command,
            output_tail=whole_lines_tail(output, 4000),
            notes=[*notes, *payload.get("notes", [])])
    finally:
        shutil.rmtree(work, ignore_errors=True)
