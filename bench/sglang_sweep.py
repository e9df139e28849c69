"""Sweeps on SGLang: the named-defect catalog (bench/sglang_catalog.toml) with SGLang's real
unit tests, ``sweep --auto`` on a synthetic branch of the installed source, and mutmut 3.8.1 on
the same functions and tests; verdicts and times side by side in bench/results/sglang_sweeps.md.

The sweep needs SGLang as the project's own code, not an installed package: a scratch project
(bench/_work/sglang-project, or --project DIR) holds a git copy of the env's ``sglang/``, the
manifest's test files and the catalog; PYTHONPATH puts it (then this checkout's deskcheck)
before the env's site-packages. The synthetic branch ``change`` rewrites two functions the
tests pass on without changing what they do; ``--auto`` mutates those lines.

Needs the env with deskcheck's dependencies (``python3 bench/sglang_env.py --with-deskcheck``)
and the test files (bench/sglang_tests.py); says how to get each when absent.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from sglang_env import deskcheck_env, sglang_python, site_packages
from sglang_tests import ensure_tests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CATALOG = HERE / "sglang_catalog.toml"
DEFAULT_PROJECT = HERE / "_work" / "sglang-project"
RESULT = HERE / "results" / "sglang_sweeps.md"
PYPROJECT = """[tool.deskcheck]
catalog = "sglang_catalog.toml"

[tool.pytest.ini_options]
addopts = "-p no:cacheprovider -W ignore"
"""
# The synthetic branch: behaviour-preserving rewrites of lines the real tests drive.
CHANGES = [
    ("sglang/srt/managers/scheduler_components/new_token_ratio_tracker.py",
     "self.current = max(self.current - self.decay, self.min)",
     "decayed = self.current - self.decay\n        self.current = decayed if decayed > self.min "
     "else self.min"),
    ("sglang/srt/managers/scheduler_components/idle_sleeper.py",
     "        self.poller.poll(1000)\n        if (\n            self.empty_cache_interval > 0\n"
     "            and real_time() - self.last_empty_time > self.empty_cache_interval\n"
     "        ):",
     "        self.poller.poll(1000)\n        elapsed = real_time() - self.last_empty_time\n"
     "        if self.empty_cache_interval > 0 and elapsed > self.empty_cache_interval:"),
]
# The tests of those two files that pass on clean 0.5.23 (mutmut needs a green run first; the
# files' other tests are version-skewed, see bench/results/sglang_oracle.md).
_SC = "test/registered/unit/managers/scheduler_components"
AUTO_TESTS = [
    f"{_SC}/test_new_token_ratio_tracker.py::TestNewTokenRatioTrackerDecayAndReset",
    f"{_SC}/test_new_token_ratio_tracker.py::TestEstimateNewTokenRatioAfterRetract",
    f"{_SC}/test_idle_sleeper.py::TestIdleSleeper",
    f"{_SC}/test_idle_sleeper.py::TestRustServerIdleSleeper::"
    "test_empty_cache_not_called_at_or_below_interval",
    f"{_SC}/test_idle_sleeper.py::TestRustServerIdleSleeper::"
    "test_empty_cache_called_once_and_last_empty_time_reset_past_interval",
]


def _git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True,
                          text=True).stdout


def make_project(project: Path, site: Path, tests: Path, paths: list[str]) -> float:
    """The scratch project: sglang/ (from the env) under git on ``main``, tests, catalog."""
    started = time.perf_counter()
    if project.exists():
        shutil.rmtree(project)
    project.mkdir(parents=True)
    shutil.copytree(site / "sglang", project / "sglang",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for path in paths:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tests / path, project / path)
    shutil.copy2(CATALOG, project / "sglang_catalog.toml")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (project / ".gitignore").write_text("__pycache__/\n.deskcheck/\nmutants/\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "-c", "user.email=bench@deskcheck", "-c", "user.name=bench", "add", "-A")
    _git(project, "-c", "user.email=bench@deskcheck", "-c", "user.name=bench", "commit", "-qm",
         "sglang 0.5.23 as installed, SGLang unit tests, catalog")
    return time.perf_counter() - started


def make_branch(project: Path) -> list[str]:
    _git(project, "checkout", "-q", "-B", "change", "main")
    for path, old, new in CHANGES:
        file = project / path
        text = file.read_text(encoding="utf-8")
        if text.count(old) != 1:
            sys.exit(f"{path}: the synthetic change's old text occurs {text.count(old)} times "
                     "(SGLang's source moved): update CHANGES in bench/sglang_sweep.py")
        file.write_text(text.replace(old, new), encoding="utf-8")
    _git(project, "-c", "user.email=bench@deskcheck", "-c", "user.name=bench", "commit", "-qam",
         "behaviour-preserving rewrites of decay_step and IdleSleeper.maybe_sleep")
    return [path for path, _, _ in CHANGES]


def _env(python: Path, project: Path) -> dict[str, str]:
    env = deskcheck_env(python, ROOT)
    env["PYTHONPATH"] = f"{project}:{ROOT}"
    env["COLUMNS"] = "200"
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str], timeout: float,
          log: Path) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout)
        rc, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        rc = 124
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
            else (exc.stdout or "")
    log.write_text(out, encoding="utf-8")
    return time.perf_counter() - started, rc


def catalog_sweep(python: Path, project: Path, work: Path) -> dict:
    out = work / "catalog.json"
    wall, rc = timed([str(python), "-m", "deskcheck.cli", "sweep", "--catalog",
                      "sglang_catalog.toml", "--no-store", "-n", "2", "--json", str(out)],
                     project, _env(python, project), 1800, work / "catalog.log")
    return {"wall_s": wall, "rc": rc,
            "report": json.loads(out.read_text()) if out.is_file() else None}


def auto_sweep(python: Path, project: Path, work: Path, extra: list[str], name: str) -> dict:
    out = work / f"{name}.json"
    wall, rc = timed([str(python), "-m", "deskcheck.cli", "sweep", "--auto", "--changed-since",
                      "main", "--no-store", "-n", "2", "--json", str(out), "--tests",
                      *AUTO_TESTS, *extra], project, _env(python, project), 1800,
                     work / f"{name}.log")
    return {"wall_s": wall, "rc": rc,
            "report": json.loads(out.read_text()) if out.is_file() else None}


def mutmut_run(python: Path, project: Path, work: Path, files: list[str],
               timeout: float) -> dict:
    config = ("\n[tool.mutmut]\n"
              'source_paths = ["sglang"]\n'
              f"only_mutate = {json.dumps(files)}\n"
              f"pytest_add_cli_args_test_selection = {json.dumps(AUTO_TESTS)}\n")
    with (project / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(config)
    mutmut = str(python.with_name("mutmut"))
    patterns = ["sglang.srt.managers.scheduler_components.new_token_ratio_tracker."
                "xǁNewTokenRatioTrackerǁdecay_step__mutmut_*",
                "sglang.srt.managers.scheduler_components.idle_sleeper."
                "xǁIdleSleeperǁmaybe_sleep__mutmut_*"]
    env = _env(python, project)
    wall, rc = timed([mutmut, "run", *patterns], project, env, timeout, work / "mutmut.log")
    statuses: dict[str, str] = {}
    if rc != 124:
        _, _ = timed([mutmut, "results", "--all", "true"], project, env, 300,
                     work / "mutmut_results.log")
        listing = (work / "mutmut_results.log").read_text(encoding="utf-8")
        statuses = dict(re.findall(r"^\s+(\S+): (.+)$", listing, flags=re.M))
    tail = (work / "mutmut.log").read_text(encoding="utf-8")[-1500:]
    return {"wall_s": wall, "rc": rc, "statuses": statuses, "tail": tail}


def _verdicts(report: dict | None) -> list[dict]:
    return (report or {}).get("mutants", [])


def render(catalog: dict, auto: dict, auto_all: dict, mm: dict, build_s: float) -> str:
    rows = ["| mutant | target | verdict | killed by | s |", "|---|---|---|---|---|"]
    for m in _verdicts(catalog["report"]):
        killer = ", ".join(Path(k.split("::")[0]).name + "::" + k.split("::")[-1]
                           for k in (m.get("killed_by") or [])[:2]) or "-"
        rows.append(f"| `{m['id']}` | `{m['target'].rpartition(':')[2]}` | {m['verdict']} | "
                    f"{killer} | {m.get('duration_s', m.get('seconds', 0)) or 0:.1f} |")
    counts: dict[str, int] = {}
    for m in _verdicts(catalog["report"]):
        counts[m["verdict"]] = counts.get(m["verdict"], 0) + 1
    auto_counts = [(name, (r["report"] or {}).get("counts", {}), r) for name, r in
                   (("`sweep --auto` (PR caps)", auto), ("`--auto`, every operator", auto_all))]
    mm_counts: dict[str, int] = {}
    in_functions = {n: st for n, st in mm["statuses"].items()
                    if "xǁNewTokenRatioTrackerǁdecay_step__mutmut_" in n
                    or "xǁIdleSleeperǁmaybe_sleep__mutmut_" in n}
    for status in in_functions.values():
        mm_counts[status] = mm_counts.get(status, 0) + 1
    side = ["| run | mutants | verdicts | wall |", "|---|---|---|---|"]
    for name, c, r in auto_counts:
        side.append(f"| {name} | {sum(v for v in c.values() if isinstance(v, int))} | "
                    f"{json.dumps(c)} | {r['wall_s']:.0f} s (exit {r['rc']}) |")
    side.append(f"| mutmut 3.8.1 (`decay_step`, `IdleSleeper.maybe_sleep`) | "
                f"{len(in_functions)} (of {len(mm['statuses'])} in the two files) | "
                f"{json.dumps(mm_counts) if mm_counts else '-'} | "
                f"{mm['wall_s']:.0f} s (exit {mm['rc']}"
                f"{', timed out' if mm['rc'] == 124 else ''}) |")
    return f"""# Sweeps on SGLang: the named-defect catalog, `sweep --auto`, mutmut

SGLang 0.5.23 (the proving-ground env) as a scratch git project (sglang/ copied from the
env, the manifest's SGLang unit tests, bench/sglang_catalog.toml): built in {build_s:.0f} s.
Reproduce: `python3 bench/sglang_sweep.py` (after `make sglang-env`,
`python3 bench/sglang_env.py --with-deskcheck` and `python3 bench/sglang_tests.py`).

## The catalog: named defects, SGLang's real tests as owners

`deskcheck sweep --catalog sglang_catalog.toml -n 2`: {catalog['wall_s']:.0f} s, exit
{catalog['rc']}; {json.dumps(counts)}.

{chr(10).join(rows)}

## `sweep --auto` on a synthetic branch, and mutmut on the same functions

Branch `change` rewrites `NewTokenRatioTracker.decay_step` and `IdleSleeper.maybe_sleep`
without changing behaviour; `sweep --auto --changed-since main` mutates the changed lines and
runs the owners coverage finds among the {len(AUTO_TESTS)} selections of
{', '.join(sorted({f"`{Path(t.split('::')[0]).name}`" for t in AUTO_TESTS}))} that pass on 0.5.23;
mutmut 3.8.1 mutates the same two functions (whole functions) under the same tests.

{chr(10).join(side)}

mutmut's last lines: ```{mm['tail'][-600:].strip()}```
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=DEFAULT_PROJECT)
    parser.add_argument("--mutmut-timeout", type=float, default=900.0)
    parser.add_argument("--skip-mutmut", action="store_true")
    args = parser.parse_args(argv)
    python = sglang_python()
    folder, files = ensure_tests()
    site = site_packages(python)
    project = args.project.resolve()
    work = project.parent / f"{project.name}-results"
    work.mkdir(parents=True, exist_ok=True)
    build_s = make_project(project, site, folder, [f.path for f in files])
    catalog = catalog_sweep(python, project, work)
    print(f"catalog sweep: exit {catalog['rc']} in {catalog['wall_s']:.0f} s", flush=True)
    changed = make_branch(project)
    auto = auto_sweep(python, project, work, [], "auto")
    auto_all = auto_sweep(python, project, work, ["--max-per-line", "1000", "--max-mutants",
                                                  "-1"], "auto_all")
    print(f"auto: exit {auto['rc']} in {auto['wall_s']:.0f} s; every operator: exit "
          f"{auto_all['rc']} in {auto_all['wall_s']:.0f} s", flush=True)
    mm = {"wall_s": 0.0, "rc": -1, "statuses": {}, "tail": "skipped (--skip-mutmut)"}
    if not args.skip_mutmut:
        mm = mutmut_run(python, project, work, changed, args.mutmut_timeout)
    RESULT.write_text(render(catalog, auto, auto_all, mm, build_s), encoding="utf-8")
    print(f"wrote {RESULT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
