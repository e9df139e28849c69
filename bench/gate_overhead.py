"""Overhead of `deskcheck redfirst` against doing the same by hand.

Goal (issue 6): on a change adding k tests, ``redfirst`` costs <= 1.5x (running those k tests
twice -- once against the base code, once on the branch -- + creating the scratch worktree). Measured on synthetic repositories (k new tests, all
red on base) and on this repository's own first test-adding commit. Every timing is the
median of ``REPEATS`` wall-clock runs of a child process, as a user would run it.
Writes bench/results/gate.md.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "gate.md"
REPEATS = 3
KS = (1, 10, 50)
REPEATS = int(os.environ.get("GATE_BENCH_REPEATS", REPEATS))
GOAL = 1.5
ENV = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)},
       "CUDA_VISIBLE_DEVICES": "", "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@b",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _run(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True, check=check)


def _timed(args: list[str], cwd: Path, check: bool = False) -> float:
    started = time.perf_counter()
    _run(args, cwd, check=check)
    return time.perf_counter() - started


def _synthetic_repo(parent: Path, k: int) -> tuple[Path, str, list[str]]:
    """A package whose ``value()`` changes on the branch, and k new tests red on base."""
    root = parent / f"repo-k{k}"
    (root / "lib").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (root / "lib" / "__init__.py").write_text("def value():\n    return 1\n")
    (root / "tests" / "test_old.py").write_text(
        "from lib import value\n\n\ndef test_old():\n    assert value() > 0\n")
    _run(["git", "init", "-q", "-b", "main"], root)
    _run(["git", "add", "-A"], root)
    _run(["git", "commit", "-q", "-m", "base"], root)
    _run(["git", "checkout", "-q", "-b", "feature"], root)
    (root / "lib" / "__init__.py").write_text("def value():\n    return 2\n")
    body = "from lib import value\n" + "".join(
        f"\n\ndef test_new_{i}():\n    assert value() + {i} == {i + 2}\n" for i in range(k))
    (root / "tests" / "test_new.py").write_text(body)
    _run(["git", "add", "-A"], root)
    _run(["git", "commit", "-q", "-m", "feature"], root)
    return root, "main", ["tests/test_new.py"]


def _self_history(parent: Path) -> tuple[Path, str, list[str]] | None:
    """This repository at its first commit that adds tests, in a clone."""
    if not (ROOT / ".git").exists():
        return None
    log = _run(["git", "log", "--reverse", "--diff-filter=A", "--format=%H %P", "--",
                "tests/*.py"], ROOT).stdout.split("\n")
    commit = next((ln.split()[0] for ln in log if len(ln.split()) > 1), None)
    if commit is None:
        return None
    clone = parent / "self"
    _run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], parent)
    _run(["git", "checkout", "-q", "--detach", commit], clone)
    files = _run(["git", "diff", "--name-only", "--diff-filter=AM", f"{commit}~1", commit, "--",
                  "tests"], clone).stdout.split()
    return clone, f"{commit}~1", [f for f in files if f.endswith(".py")]


def _by_hand(root: Path, base: str, files: list[str]) -> float:
    """The manual red-first: scratch worktree at base, the branch's test files run from inside
    it (so the base's code is first on sys.path), the same files on the branch, clean up."""
    python = sys.executable
    wt = root.parent / f"{root.name}-wt"
    started = time.perf_counter()
    _run(["git", "worktree", "add", "--detach", "-q", str(wt), base], root)
    _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(root),
          *[str(root / f) for f in files]], wt, check=False)
    _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files], root, check=False)
    _run(["git", "worktree", "remove", "--force", str(wt)], root)
    _run(["git", "worktree", "prune"], root)
    return time.perf_counter() - started


def _measure(root: Path, base: str, files: list[str]) -> dict[str, float | int | str]:
    out = root.parent / f"{root.name}.json"
    # the console script: ``python -m`` would import the checked-out commit's own deskcheck
    gate = [str(Path(sys.executable).parent / "deskcheck"), "redfirst", "--base", base,
            "--json", str(out)]
    by_hand, gated, parallel = [], [], []
    for _ in range(REPEATS):
        by_hand.append(_by_hand(root, base, files))
        gated.append(_timed(gate, root))
        parallel.append(_timed([*gate, "--parallel"], root))
    report = json.loads(out.read_text())
    reference = statistics.median(by_hand)
    return {"tests": len(report["tests"]), "verdicts": ", ".join(
                f"{n} {v}" for v, n in report["counts"].items() if n),
            "by_hand": reference, "worktree": report["timings_s"].get("worktree", 0.0),
            "gate": statistics.median(gated), "ratio": statistics.median(gated) / reference,
            "parallel": statistics.median(parallel),
            "parallel_ratio": statistics.median(parallel) / reference,
            "base_run": report["timings_s"].get("base_run", 0.0),
            "branch_run": report["timings_s"].get("branch_run", 0.0)}


def main() -> int:
    rows: list[tuple[str, dict[str, float | int | str]]] = []
    with tempfile.TemporaryDirectory(prefix="gate-bench-") as tmp:
        parent = Path(tmp)
        for k in KS:
            root, base, files = _synthetic_repo(parent, k)
            rows.append((f"synthetic, k={k}", _measure(root, base, files)))
            print(rows[-1], flush=True)
        own = _self_history(parent)
        if own is not None:
            rows.append(("this repo, first test-adding commit", _measure(*own)))
            print(rows[-1], flush=True)
    lines = [
        "## gate: red-first overhead",
        "",
        f"`python bench/gate_overhead.py`; median of {REPEATS} runs each, wall clock, this "
        "machine (2 cores shared with other jobs, so single runs vary by +-30%). *by hand* = "
        "what the manual workflow does: `git worktree add` at base, the k tests run from "
        "inside it (`pytest -p no:cacheprovider BRANCH/FILES`, base code first on sys.path), "
        "the k tests run on the branch, `git worktree remove` + `prune`. *redfirst* = the "
        "whole `deskcheck redfirst --base REF` CLI process (ast selection, worktree, base run "
        "with the import redirect and the `__file__` audit, branch run, verdicts); "
        "base/branch run and worktree are its own timings from `--json`. "
        f"Goal: ratio <= {GOAL}.",
        "",
        "| change | tests judged | verdicts | by hand | redfirst | worktree | base run "
        "| branch run | ratio | `--parallel` | ratio |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in rows:
        lines.append(f"| {name} | {r['tests']} | {r['verdicts']} | {r['by_hand']:.2f} s | "
                     f"{r['gate']:.2f} s | {r['worktree']:.2f} s | {r['base_run']:.2f} s | "
                     f"{r['branch_run']:.2f} s | **{r['ratio']:.2f}x** | "
                     f"{r['parallel']:.2f} s | {r['parallel_ratio']:.2f}x |")
    worst = max(float(r["ratio"]) for _, r in rows)
    lines += ["", f"Worst ratio (default, sides one after the other) {worst:.2f}x: goal "
              f"{'met' if worst <= GOAL else 'NOT met'}. Every redfirst process also pays the "
              "`deskcheck` CLI start-up (it imports every part's commands) and the "
              "plugins every pytest child loads; `--parallel` runs the two sides at once "
              "(opt-in: two concurrent runs must not share fixed ports or files)."]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
