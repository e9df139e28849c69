"""Run pytest once for one side of a gate, as a child process, and read back what happened.

The child gets the probe plugin (:mod:`deskcheck.gate.probe_plugin`) by a unique module name
and a plan file; results come back as the probe's JSON, never from pytest's text output.
Runner retries (rerun plugins) are blocked, pytest's cache is off (nothing is written into
the user's tree), and the whole child process group is killed if the gate is interrupted, and
dies with the gate even when the gate is killed with SIGKILL (:mod:`deskcheck.watchdog`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from deskcheck.errors import GateError
from deskcheck.gate.git import LOCATION_VARIABLES, location_from_environment

# not from probe_plugin: that imports pytest, which the gate's own process never needs
from deskcheck.gate.redirect import PLAN_ENV, PROBE_MODULE_NAME, SITECUSTOMIZE
from deskcheck.progress import COUNTS_ENV, child_progress, follow_child
from deskcheck.watchdog import DIE_WITH_ENV, SET_DEATH_SIGNAL, GroupWatchdog

RETRY_DISTRIBUTIONS = frozenset({"pytest-rerunfailures", "flaky", "pytest-retry",
                                 "pytest-flakefinder"})
FAILING = frozenset({"failed", "error"})
STARTUP_ERROR_ID = "<conftest import error: nothing collected>"
COUNTS_MODULE_NAME = "_deskcheck_progress_counts"  # deskcheck.progress_counts, by a unique name
_CHILD_ENV_DROP = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID",
                   "PYTEST_CURRENT_TEST", PLAN_ENV, COUNTS_ENV)
_OK_EXIT = (0, 1, 5)  # all passed, some failed, none collected
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()
_PROBE_LOCK = threading.Lock()


@dataclass(frozen=True)
class SideSpec:
    """One pytest run: tests from ``tests_root``, production code from ``modules``' roots."""

    side: str  # "base" | "branch"
    label: str  # unique per run, names the scratch folder
    code_root: Path
    tests_root: Path
    modules: dict[str, str | None]  # top-level name -> absolute import root (None: absent)
    paths: list[str]
    select: list[str] | None = None
    workers: int = 0


@dataclass
class SideResult:
    """What one side's pytest run did, from the probe's JSON."""

    side: str
    exitstatus: int | None
    tests: dict[str, dict[str, Any]]
    collection_errors: list[dict[str, Any]]
    startup_error: dict[str, Any] | None
    audits: list[dict[str, Any]] = field(default_factory=list)
    duration_s: float = 0.0

    def outcome(self, nodeid: str) -> str | None:
        record = self.tests.get(nodeid)
        return record["outcome"] if record else None

    def subtests_failed(self, nodeid: str) -> tuple[str, ...]:
        """The names of ``nodeid``'s failed subtests (``subTest`` / ``subtests.test``)."""
        record = self.tests.get(nodeid) or {}
        return tuple(record.get("subtests_failed") or ())

    def collection_error_for(self, nodeid: str) -> dict[str, Any] | None:
        """The collection error (or conftest startup error) that kept ``nodeid`` from running."""
        if self.startup_error is not None:
            return {"nodeid": "", "message": self.startup_error["message"]}
        for error in self.collection_errors:
            err = error["nodeid"]
            if err in ("", ".") or nodeid == err or nodeid.startswith((err + "::", err + "/")):
                return error
        return None

    def failing_ids(self) -> set[str]:
        ids = {n for n, r in self.tests.items() if r["outcome"] in FAILING}
        if self.startup_error is not None:
            ids.add(STARTUP_ERROR_ID)
        return ids | {e["nodeid"] for e in self.collection_errors}

    def counts(self) -> dict[str, int]:
        counts = {k: 0 for k in ("failed", "passed", "skipped", "error", "xfailed", "xpassed")}
        for record in self.tests.values():
            if record["outcome"] in counts:
                counts[record["outcome"]] += 1
        counts["collection_errors"] = len(self.collection_errors)
        return counts

    def isolation(self) -> dict[str, Any]:
        loaded = {k: v for a in self.audits for k, v in a["loaded"].items()}
        return {"processes": len(self.audits),
                "production_modules_loaded": len(loaded),
                "sample": dict(sorted(loaded.items())[:5]),
                "purged_before_run": sorted({p for a in self.audits for p in a["purged"]}),
                "violations": {k: v for a in self.audits for k, v in a["violations"].items()}}


def retry_plugin_blocks() -> list[str]:
    """``-p no:NAME`` for each installed pytest plugin that retries failing tests."""
    args: list[str] = []
    for ep in metadata.entry_points(group="pytest11"):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.name.lower() in RETRY_DISTRIBUTIONS:
            args += ["-p", f"no:{ep.name}"]
    return args


def _has_xdist() -> bool:
    try:
        metadata.distribution("pytest-xdist")
    except metadata.PackageNotFoundError:
        return False
    return True


def _probe_folder(scratch: Path) -> Path:
    """The folder put first on the children's ``PYTHONPATH``: the probe plugin and the redirect
    under names no project uses, and the ``sitecustomize`` that activates the redirect.

    Both sides of a ``--parallel`` gate ask for it at the same moment: it is built whole in a
    private folder and renamed into place, so no side ever sees it half made."""
    folder = scratch / "probe"
    with _PROBE_LOCK:
        if folder.is_dir():
            return folder
        building = scratch / f".probe-{os.getpid()}-{threading.get_ident()}"
        building.mkdir(parents=True)
        here = Path(__file__).parent
        for source, name in ((here / "probe_plugin.py", PROBE_MODULE_NAME),
                             (here / "redirect.py", "_deskcheck_gate_redirect"),
                             (here.parent / "progress_counts.py", COUNTS_MODULE_NAME)):
            target = building / f"{name}.py"
            try:
                target.symlink_to(source)
            except OSError:
                target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        (building / "sitecustomize.py").write_text(
            "import os as _os\n" + SET_DEATH_SIGNAL + SITECUSTOMIZE, encoding="utf-8")
        try:
            building.rename(folder)
        except OSError:  # another process put a whole one there first
            shutil.rmtree(building, ignore_errors=True)
    return folder


def probe_environment(env: dict[str, str]) -> dict[str, str]:
    """``PYTEST_PLUGINS`` with the probe and the progress counts first (the user's own entries
    kept after them)."""
    ours = (PROBE_MODULE_NAME, COUNTS_MODULE_NAME)
    plugins = [p.strip() for p in env.get("PYTEST_PLUGINS", "").split(",")
               if p.strip() and p.strip() not in ours]
    return {"PYTEST_PLUGINS": ",".join([*ours, *plugins])}


def _git_location(env: dict[str, str], tests_root: Path) -> dict[str, str]:
    """Takes ``GIT_DIR``/``GIT_WORK_TREE`` out of ``env``; gives them back (absolute) only to
    a side that runs in the working tree they name: a scratch worktree has its own ``.git``,
    and the user's variables would point the tests' git commands at the other checkout."""
    location = location_from_environment(env, Path.cwd())
    for name in LOCATION_VARIABLES:
        env.pop(name, None)
    work_tree = Path(location.get("GIT_WORK_TREE", Path.cwd())).resolve()
    inside = tests_root.resolve() == work_tree or work_tree in tests_root.resolve().parents
    return location if location and inside else {}


def pytest_command(spec: SideSpec) -> list[str]:
    # The probe is loaded through PYTEST_PLUGINS (``probe_environment``), not ``-p``: ``-p``
    # makes pytest call ``PluginManager.unblock``, which a base's older pluggy lacks when the
    # project under the gate is one pytest itself imports (pluggy, iniconfig, packaging).
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
               *retry_plugin_blocks(), "--continue-on-collection-errors",
               "--rootdir", str(spec.tests_root), "-q", "--no-header"]
    if _has_xdist():
        command += ["-n", str(spec.workers)]
    return command + list(spec.paths)


def run_side(spec: SideSpec, scratch: Path, stop: threading.Event | None = None) -> SideResult:
    """Run pytest for ``spec``; :class:`GateError` when it could not run or ran the wrong code.
    ``stop``: set by a parallel run when the other side failed; no child starts after it."""
    out_dir = scratch / f"run-{spec.label}"
    out_dir.mkdir(parents=True, exist_ok=True)
    plan = {"side": spec.side, "side_root": str(spec.code_root), "modules": spec.modules,
            "select": spec.select, "out_dir": str(out_dir)}
    plan_path = out_dir / "plan.json"
    plan_path.write_text(json.dumps(plan, indent=1), encoding="utf-8")
    roots = list(dict.fromkeys(r for r in spec.modules.values() if r is not None))
    env = {k: v for k, v in os.environ.items() if k not in _CHILD_ENV_DROP}
    env.update(_git_location(env, spec.tests_root))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_probe_folder(scratch)), *roots, *filter(None, [os.environ.get("PYTHONPATH")])])
    env[PLAN_ENV] = str(plan_path)
    env.update(probe_environment(env))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[COUNTS_ENV] = str(out_dir / "counts.json")
    log_path = out_dir / "pytest.log"
    started = time.perf_counter()
    _run_child(pytest_command(spec), cwd=spec.tests_root, env=env, log_path=log_path, stop=stop,
               label=spec.side + (" (re-run)" if spec.label.endswith("rerun") else ""))
    duration = time.perf_counter() - started
    return _read_results(spec, out_dir, log_path, duration)


def run_sides(specs: list[SideSpec], scratch: Path, *, parallel: bool) -> list[SideResult]:
    """Run the sides one after the other, or at the same time (``parallel``: only for suites
    that share no fixed ports or files between two concurrent runs). In parallel, the first
    side that cannot run stops the other at once: its error is raised, no child is left."""
    if not parallel:
        return [run_side(spec, scratch) for spec in specs]
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=len(specs), thread_name_prefix="gate-side") as pool:
        futures = [pool.submit(run_side, spec, scratch, stop) for spec in specs]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                if future.exception() is not None:
                    raise future.exception()  # type: ignore[misc]
            return [future.result() for future in futures]
        except BaseException:
            stop.set()
            kill_live_children()
            raise


def kill_live_children() -> None:
    """Kill every pytest child (and its process group) still running."""
    with _LIVE_LOCK:
        children = list(_LIVE)
    for child in children:
        _kill_group(child)


def _run_child(command: list[str], *, cwd: Path, env: dict[str, str], log_path: Path,
               stop: threading.Event | None = None, label: str = "pytest") -> int:
    with log_path.open("wb") as log:
        with _LIVE_LOCK:  # started and registered at once: a kill never misses a child
            if stop is not None and stop.is_set():
                raise GateError("the other side of the parallel gate failed; this side was not "
                                "started", fix="see the other side's error")
            child = subprocess.Popen(command, cwd=cwd, env={**env, DIE_WITH_ENV: str(os.getpid())},
                                     stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
            _LIVE.add(child)
        watchdog = None
        try:
            watchdog = GroupWatchdog(child.pid)
            code, _ = follow_child(child, Path(env[COUNTS_ENV]), child_progress(label))
            _kill_group(child)  # what the tests started and left behind goes with it
            return code
        except BaseException:
            _kill_group(child)
            raise
        finally:
            if watchdog is not None:
                watchdog.release()
            with _LIVE_LOCK:
                _LIVE.discard(child)


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            child.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    try:  # the group may still hold workers after the leader is gone
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(log_path: Path, chars: int = 3000) -> str:
    try:
        return log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return "<no log>"


def _read_results(spec: SideSpec, out_dir: Path, log_path: Path,
                  duration: float) -> SideResult:
    results_path = out_dir / "results.json"
    if not results_path.is_file():
        raise GateError(f"pytest did not report on the {spec.side} side "
                        f"(it crashed or could not start):\n{_tail(log_path)}",
                        location=str(spec.tests_root),
                        fix="run the same tests with plain pytest to see why they cannot run")
    data = json.loads(results_path.read_text(encoding="utf-8"))
    if data["retry_plugins"]:
        raise GateError(f"runner retries are active on the {spec.side} side: "
                        f"{data['retry_plugins']}", location=str(spec.tests_root),
                        fix="remove the retry plugin from the pytest invocation/addopts")
    if data["startup_error"] is None and data["exitstatus"] not in _OK_EXIT:
        raise GateError(f"pytest exited {data['exitstatus']} on the {spec.side} side:\n"
                        f"{_tail(log_path)}", location=str(spec.tests_root),
                        fix="fix the pytest configuration error shown above")
    audits = [json.loads(p.read_text(encoding="utf-8"))
              for p in sorted(out_dir.glob("modules-*.json"))]
    result = SideResult(side=spec.side, exitstatus=data["exitstatus"], tests=data["tests"],
                        collection_errors=data["collection_errors"],
                        startup_error=data["startup_error"], audits=audits, duration_s=duration)
    _assert_isolated(spec, result)
    return result


def _assert_isolated(spec: SideSpec, result: SideResult) -> None:
    """Fail loudly unless every production module that ran came from the side's own tree."""
    if result.startup_error is not None:
        return  # nothing ran
    missing_finder = [a["process"] for a in result.audits if not a["finder_active"]]
    violations = result.isolation()["violations"]
    if not result.audits or missing_finder or violations:
        shown = "\n".join(f"  {name}: {origin}" for name, origin in sorted(violations.items())[:20])
        raise GateError(
            f"the {spec.side} side did not run the {spec.side} commit's code "
            f"(expected every production module under {spec.code_root}):\n{shown}"
            + (f"\n  the redirect was not installed in {missing_finder}"
               if missing_finder else "")
            + ("\n  no process reported its imported modules" if not result.audits else ""),
            location=str(spec.tests_root),
            fix="report this: a plugin or sitecustomize imported production code in a way the "
                "gate cannot redirect; or set [tool.deskcheck] source_paths")
