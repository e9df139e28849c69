"""Gates and auto on public repositories of other test shapes, against the truth by hand
(issue 30). Part of ``bench/gates_real.py``'s results (run by it, or on its own).

Repositories (bare mirrors from the search tool's ``fetch``; override with
``GATES_REAL_MIRRORS``), cloned into the ignored ``bench/_work/gates_shapes/``; the manifest
(repository + commits) is ``bench/gates_shapes_manifest.json``:

- ``hukkin/tomli``: src layout, unittest tests whose data-driven cases are ``subTest`` blocks;
- ``python-semver/python-semver``: ``.pytest.ini`` with ``--cov`` (pytest-cov),
  ``--import-mode=importlib``, ``--doctest-glob='*.rst'`` and ``--doctest-modules``, a conftest,
  and a ``Version`` whose comparisons a decorator builds when the class is defined.

For each commit (a real fix with its tests; base = its parent):

- **truth by hand**: a worktree of the parent, the commit's changed test files and changed
  doctest files copied in, the same files run with pytest there and on the commit, the
  outcome of every item read by a tiny plugin that counts any failed report of an item
  (``SUBFAIL`` included) as its failure;
- **deskcheck redfirst** on a clone at the commit, ``--base`` the parent.

Agreement: every item redfirst judges has the truth's outcome on both sides, and every item
the truth finds red on base and green on the commit is among redfirst's (nothing missed:
subtests and doctests included). ``sweep --auto`` runs on one commit per repository and each
SURVIVED mutant is re-run on disk in a scratch copy (its diff applied, its covering tests
run): a survivor that fails on disk is a disagreement (goal 0).

Writes bench/results/gates_shapes.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "_work" / "gates_shapes"
RESULTS = ROOT / "bench" / "results" / "gates_shapes.md"
MANIFEST = ROOT / "bench" / "gates_shapes_manifest.json"
MIRRORS = Path(os.environ.get("GATES_REAL_MIRRORS", "/work/.mirror"))
ENV = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")},
       "CUDA_VISIBLE_DEVICES": "", "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "PYTHONDONTWRITEBYTECODE": "1",
       "COLUMNS": "120"}

TRUTH_PLUGIN = '''\
import json, os
_OUT = {}
def pytest_runtest_logreport(report):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    failed = report.failed
    if hasattr(report, "context") and hasattr(report.context, "kwargs"):  # a subtest
        if failed:
            _OUT[report.nodeid] = "failed"
        return
    prior = _OUT.get(report.nodeid)
    if failed:
        _OUT[report.nodeid] = "error" if report.when != "call" else "failed"
    elif report.when == "call" and prior is None:
        _OUT[report.nodeid] = "xfailed" if hasattr(report, "wasxfail") and report.skipped \\
            else report.outcome
    elif report.when == "setup" and report.skipped and prior is None:
        _OUT[report.nodeid] = "skipped"
def pytest_sessionfinish(session):
    with open(os.environ["TRUTH_OUT"], "w") as handle:
        json.dump(_OUT, handle)
'''


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env or ENV, capture_output=True, text=True,
                          check=check, timeout=timeout)


def _clone(name: str, mirror: str, commit: str) -> Path:
    repo = WORK / name
    if repo.exists():
        shutil.rmtree(repo)
    repo.parent.mkdir(parents=True, exist_ok=True)
    _run(["git", "clone", "-q", "--no-checkout", str(MIRRORS / mirror), str(repo)], ROOT)
    _run(["git", "checkout", "-q", "-b", "bench", commit], repo)
    return repo


def _changed(repo: Path) -> list[str]:
    out = _run(["git", "diff", "--name-only", "HEAD~1", "HEAD"], repo).stdout.split()
    return [p for p in out if (repo / p).is_file()]



def _truth(repo: Path, files: list[str], source: str) -> dict[str, dict[str, str]]:
    """Per item: its outcome on the parent's code with the commit's tests, and on the commit."""
    plugin_dir = Path(tempfile.mkdtemp(prefix="truth-plugin-"))
    (plugin_dir / "bench_truth.py").write_text(TRUTH_PLUGIN, encoding="utf-8")
    base = WORK / f"{repo.name}-base"
    shutil.rmtree(base, ignore_errors=True)
    _run(["git", "worktree", "add", "-q", "--detach", str(base), "HEAD~1"], repo)
    sides: dict[str, dict[str, str]] = {}
    try:
        for path in files:
            (base / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / path, base / path)
        for side, tree in (("base", base), ("branch", repo)):
            out = plugin_dir / f"{side}.json"
            env = {**ENV, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(tree / source)]),
                   "TRUTH_OUT": str(out)}
            _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                  "--rootdir", str(tree), "-p", "bench_truth", *files], tree, env, check=False)
            sides[side] = json.loads(out.read_text()) if out.is_file() else {}
    finally:
        _run(["git", "worktree", "remove", "--force", str(base)], repo, check=False)
        shutil.rmtree(plugin_dir, ignore_errors=True)
    return sides


def _deskcheck(repo: Path, *args: str, timeout: float = 900) -> dict:
    out = WORK / f"{repo.name}-out.json"
    out.unlink(missing_ok=True)
    done = _run([sys.executable, "-m", "deskcheck.cli", *args, "--json", str(out)], repo,
                check=False, timeout=timeout)
    if not out.is_file():
        return {"error": {"message": f"no JSON (exit {done.returncode}): "
                                     f"{(done.stderr or done.stdout)[-800:]}"}}
    return json.loads(out.read_text(encoding="utf-8"))


def _agreement(truth: dict[str, dict[str, str]], report: dict) -> dict:
    judged = {t["id"]: t for t in report.get("tests", [])}
    disagreements = []
    for nodeid, test in judged.items():
        for side in ("base", "branch"):
            want = truth[side].get(nodeid, "not collected")
            got = test[side]
            same = want == got or (want == "not collected" and got in (
                "not_collected", "collection_error", "not run")) or (
                side == "base" and got == "not run")
            if not same:
                disagreements.append(f"{nodeid} {side}: truth {want}, deskcheck {got}")
    red_green = sorted(n for n, o in truth["branch"].items()
                       if o == "passed" and truth["base"].get(n) in ("failed", "error"))
    missed = [n for n in red_green if n not in judged]
    return {"judged": len(judged), "truth_red_green": len(red_green), "missed": missed,
            "disagreements": disagreements,
            "subtest_items": sum(1 for t in judged.values()
                                 if t.get("base_subtests_failed")
                                 or t.get("branch_subtests_failed")),
            "doctest_items": sum(1 for n in judged if not n.split("::")[0].endswith(".py")),
            "verdicts": sorted({t["verdict"] for t in judged.values()})}


def _survivors_on_disk(repo: Path, report: dict) -> dict:
    """Each SURVIVED mutant's diff applied to a scratch copy, its covering tests run there."""
    survived = [m for m in report.get("mutants", []) if m.get("verdict") == "SURVIVED"]
    disagree = []
    for mutant in survived:
        scratch = Path(tempfile.mkdtemp(prefix="survivor-"))
        try:
            shutil.copytree(repo, scratch / "repo", ignore=shutil.ignore_patterns(".deskcheck"))
            patch = scratch / "m.diff"
            patch.write_text(mutant["diff"], encoding="utf-8")
            applied = _run(["git", "apply", str(patch)], scratch / "repo", check=False)
            if applied.returncode != 0:
                disagree.append(f"{mutant['id']}: diff does not apply ({applied.stderr[:200]})")
                continue
            owners = mutant.get("owners") or []
            done = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                         "-x", *owners], scratch / "repo", check=False)
            if done.returncode == 1:
                disagree.append(f"{mutant['id']}: SURVIVED in memory, a covering test fails "
                                "on disk")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return {"survived": len(survived), "disagreements": disagree}


def main() -> int:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    rows, auto_rows, failures = [], [], 0
    only = os.environ.get("GATES_SHAPES_ONLY")
    for repo_spec in manifest["repositories"]:
        if only and repo_spec["name"] != only:
            continue
        for commit in repo_spec["commits"]:
            repo = _clone(repo_spec["name"], repo_spec["mirror"], commit["commit"])
            changed = _changed(repo)
            files = [p for p in changed if (p.endswith(".py") and Path(p).name.startswith("test"))
                     or (p.endswith((".rst", ".txt")) and ">>>" in (repo / p).read_text(
                         encoding="utf-8", errors="replace")
                         and any(p.startswith(t + "/") for t in repo_spec["doctest_roots"]))]
            truth = _truth(repo, files, repo_spec["source"])
            report = _deskcheck(repo, "redfirst", "--base", "HEAD~1")
            if "error" in report:
                rows.append((repo_spec["name"], commit, {"error": report["error"]["message"]}))
                failures += 1
                continue
            agree = _agreement(truth, report)
            failures += bool(agree["missed"] or agree["disagreements"])
            rows.append((repo_spec["name"], commit, agree))
            if commit.get("auto"):
                auto = _deskcheck(repo, "sweep", "--auto", "--changed-since", "HEAD~1",
                                  "--no-store", "--workers", "2", timeout=1800)
                disk = _survivors_on_disk(repo, auto) if "error" not in auto else {
                    "survived": 0, "disagreements": [auto["error"]["message"]]}
                failures += bool(disk["disagreements"])
                auto_rows.append((repo_spec["name"], commit, auto, disk))
    RESULTS.write_text(_markdown(rows, auto_rows), encoding="utf-8")
    print(RESULTS.read_text(encoding="utf-8"))
    return 1 if failures else 0


def _markdown(rows: list, auto_rows: list) -> str:
    lines = ["# Gates on other test shapes, against the truth by hand (issue 30)", "",
             "Written by `bench/gates_shapes.py` (repositories and commits: "
             "`bench/gates_shapes_manifest.json`). Agreement: every item `redfirst` judges has "
             "the by-hand outcome on both sides, and no item red on base and green on the "
             "commit is missed (subtests and doctests included). A GREEN_ON_BASE or "
             "RED_ON_BRANCH below agrees with the by-hand outcomes: it is what that commit's "
             "tests do on this machine.", "",
             "| repository | commit | what | judged | red→green by hand | missed | "
             "disagreements | subtest / doctest items | verdicts |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, commit, agree in rows:
        if "error" in agree:
            lines.append(f"| {name} | `{commit['commit']}` | {commit['what']} | error: "
                         f"{agree['error'][:120]} | | | | | |")
            continue
        lines.append(f"| {name} | `{commit['commit']}` | {commit['what']} | {agree['judged']} | "
                     f"{agree['truth_red_green']} | {len(agree['missed'])} | "
                     f"{len(agree['disagreements'])} | {agree['subtest_items']} / "
                     f"{agree['doctest_items']} | "
                     f"{', '.join(agree['verdicts'])} |")
    details = [f"- {name} `{c['commit']}`: " + "; ".join(a["missed"] + a["disagreements"])
               for name, c, a in rows if "error" not in a and (a["missed"] or a["disagreements"])]
    if details:
        lines += ["", "Disagreements:", *details]
    if auto_rows:
        lines += ["", "## `sweep --auto` on these repositories, survivors re-run on disk", "",
                  "| repository | commit | mutants | verdicts | SURVIVED | fail on disk |",
                  "|---|---|---|---|---|---|"]
        for name, commit, auto, disk in auto_rows:
            counts = auto.get("counts", {})
            lines.append(f"| {name} | `{commit['commit']}` | {len(auto.get('mutants', []))} | "
                         f"{', '.join(f'{k} {v}' for k, v in sorted(counts.items()))} | "
                         f"{disk['survived']} | {len(disk['disagreements'])} |")
        notes = [f"- {d}" for *_, disk in auto_rows for d in disk["disagreements"]]
        lines += ["", *notes] if notes else []
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
