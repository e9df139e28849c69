"""deskcheck auto vs mutmut 3.8.1 on the same files, in one run; writes bench/results/auto.md.

Scenarios, each a fresh temporary git repository:

* ``fixture``: tests/auto/fixture_repo.py — a branch changing single-process decision code and
  ``rank_pick``, which runs only inside two gloo ranks started by fork;
* ``tp``: a scratch branch of examples/tp_scheduler (tests/auto/tp_scratch.py) — one decision
  function (``group_count``) and the rank-only collective ``_all_reduce_min``;
  tests: the tp_head_congruence unit tests + the target's test modules that start gloo ranks;
* ``tp-full`` (mutmut only, the crash probe): the same files under the target's whole suite.

Per scenario: ``deskcheck auto`` as a PR would run it (1 mutant per line, PR cap 50), then
``--max-per-line 1000 --max-mutants -1`` (every mutmut operator on the changed lines: the
like-for-like set), then ``mutmut run`` on the changed files (whole files are mutated; the run is
restricted to the changed functions by mutant-name patterns, same test selection). Mutants are
matched by function and mutated line; verdicts are compared (killed/KILLED, survived/SURVIVED,
no tests/NO_COVERAGE).
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.auto.fixture_repo import make_fixture_repo  # noqa: E402
from tests.auto.tp_scratch import make_scratch_branch  # noqa: E402

PYTHON = sys.executable
MUTMUT = str(Path(sys.executable).with_name("mutmut"))
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"}
STATUS_TO_VERDICT = {"killed": "KILLED", "survived": "SURVIVED", "no tests": "NO_COVERAGE",
                     "timeout": "TIMEOUT", "suspicious": "SUSPICIOUS"}
TP_EXAMPLE = ROOT / "examples" / "tp_scheduler" / "tests"
TP_TESTS = ["tests/test_tp_head_congruence.py",
            *sorted(f"tests/{p.name}" for p in TP_EXAMPLE.glob("test_*.py")
                    if "gloo" in p.read_text(encoding="utf-8"))]
SCENARIOS = {
    "fixture": {"build": make_fixture_repo, "tests": ["tests"], "package": "fixpkg",
                "files": ["fixpkg/decide.py"], "timeout": 600},
    "tp": {"build": make_scratch_branch, "tests": TP_TESTS, "package": "tp_scheduler",
           "files": ["tp_scheduler/tp_head_congruence.py",
                     "tp_scheduler/scheduler_budget_mixin.py"], "timeout": 600},
}


def timed(command: list[str], cwd: Path, timeout: float) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        done = subprocess.CompletedProcess(command, 124, exc.stdout or "", exc.stderr or "")
        if isinstance(done.stdout, bytes):
            done = subprocess.CompletedProcess(command, 124, done.stdout.decode(errors="replace"),
                                               (done.stderr or b"").decode(errors="replace"))
    return time.perf_counter() - started, done


def run_deskcheck(repo: Path, tests: list[str], extra: list[str], out: Path) -> dict:
    wall, done = timed([PYTHON, "-m", "deskcheck.mutants.auto", "--changed-since", "main",
                        "--no-store", "--workers", "2", "--json", str(out), "--tests", *tests,
                        *extra], repo, 900)
    report = json.loads(out.read_text()) if out.is_file() else {"mutants": [], "counts": {}}
    return {"wall_s": wall, "rc": done.returncode, "report": report,
            "tail": (done.stdout + done.stderr)[-1500:]}


def _function_of(target: str) -> str:
    return target.split(":")[1].split(".")[-1]


def mangled_patterns(repo: Path, report: dict) -> list[str]:
    """mutmut mutant-name patterns for the functions deskcheck mutated."""
    patterns = set()
    for mutant in report["mutants"]:
        module, _, qualname = mutant["target"].partition(":")
        parts = qualname.split(".")
        name = (f"x_{parts[0]}" if len(parts) == 1 else "xǁ" + "ǁ".join(parts))
        patterns.add(f"{module}.{name}__mutmut_*")
    return sorted(patterns)


def run_mutmut(repo: Path, package: str, files: list[str], tests: list[str],
               patterns: list[str], timeout: float) -> dict:
    config = ("\n[tool.mutmut]\n"
              f"source_paths = [{json.dumps(package)}]\n"
              f"only_mutate = {json.dumps(files)}\n"
              f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n")
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(config)
    wall, done = timed([MUTMUT, "run", *patterns], repo, timeout)
    output = (done.stdout + done.stderr).replace("\r", "\n")
    crash = next((line.strip() for line in output.splitlines()[::-1]
                  if re.match(r"\s*(KeyError|[A-Za-z]+Error|[A-Za-z]+Exception)\b", line)
                  or "Exception:" in line), "")
    _, listing = timed([MUTMUT, "results", "--all", "true"], repo, 120)
    statuses = dict(re.findall(r"^\s+(\S+): (.+)$", listing.stdout, flags=re.M))
    return {"wall_s": wall, "rc": done.returncode, "crash": crash, "statuses": statuses,
            "tail": output[-3000:]}


def mutmut_changed(repo: Path, statuses: dict[str, str], patterns: list[str],
                   changed_text: set[str]) -> list[dict]:
    """mutmut's mutants of the changed functions, with the line they mutate."""
    regexes = [re.compile(re.escape(p).replace(r"\*", ".*") + "$") for p in patterns]
    found = []
    for name, status in statuses.items():
        if not any(r.match(name) for r in regexes):
            continue
        _, shown = timed([MUTMUT, "show", name], repo, 60)
        minus = [ln[1:].strip() for ln in shown.stdout.splitlines()
                 if ln.startswith("-") and not ln.startswith("---")]
        plus = [ln[1:].strip() for ln in shown.stdout.splitlines()
                if ln.startswith("+") and not ln.startswith("+++")]
        found.append({"name": name, "status": status, "minus": minus, "plus": plus,
                      "on_changed_line": bool(minus) and all(m in changed_text for m in minus)})
    return found


def mutmut_function(name: str) -> str:
    """``pkg.mod.xǁClassǁmethod__mutmut_3`` -> ``method``; ``pkg.mod.x_f__mutmut_1`` -> ``f``."""
    mangled = name.split("__mutmut_")[0].rsplit(".", 1)[-1]
    return mangled.split("ǁ")[-1] if "ǁ" in mangled else mangled.removeprefix("x_")


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


def agreement(deskcheck_all: dict, mutmut_mutants: list[dict], arid_text: set[str]) -> dict:
    ours = {}
    for m in deskcheck_all["report"]["mutants"]:
        auto = m["detail"]["auto"]
        after = auto["change"].rpartition(" -> ")[2]
        ours[(_function_of(m["target"]), _norm(after))] = m
    pairs, unmatched = [], []
    for mm in mutmut_mutants:
        if not mm["on_changed_line"]:
            continue
        key = (mutmut_function(mm["name"]), _norm(" ".join(mm["plus"])))
        if key in ours:
            pairs.append((mm, ours[key]))
        else:
            unmatched.append(mm)
    agree = [(a, b) for a, b in pairs if STATUS_TO_VERDICT.get(a["status"]) == b["verdict"]]
    arid = [m for m in unmatched if all(line in arid_text for line in m["minus"])]
    return {"pairs": pairs, "agree": agree, "unmatched": unmatched, "arid": arid}


def counts(values) -> str:
    tally: dict[str, int] = {}
    for value in values:
        tally[value] = tally.get(value, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(tally.items())) or "-"


def scenario(name: str, spec: dict, work: Path) -> dict:
    repo = spec["build"](work / name / "repo")
    results: dict = {"name": name}
    results["auto"] = run_deskcheck(repo, spec["tests"], [], work / name / "auto.json")
    results["auto_all"] = run_deskcheck(repo, spec["tests"],
                                        ["--max-per-line", "1000", "--max-mutants", "-1"],
                                        work / name / "auto_all.json")
    changed_text, arid_text = set(), set()
    for f in results["auto"]["report"].get("files", []):
        lines = (repo / f["path"]).read_text().splitlines()
        changed_text |= {lines[n - 1].strip() for n in f["changed_lines"]}
        arid_text |= {lines[s["line"] - 1].strip() for s in results["auto"]["report"]["suppressed"]
                      if s["path"] == f["path"]}
    results["arid_text"] = arid_text
    patterns = mangled_patterns(repo, results["auto_all"]["report"])
    mm_repo = work / name / "mutmut"
    shutil.copytree(repo, mm_repo)
    results["mutmut"] = run_mutmut(mm_repo, spec["package"], spec["files"], spec["tests"],
                                   patterns, spec["timeout"])
    results["mutmut_changed"] = mutmut_changed(mm_repo, results["mutmut"]["statuses"], patterns,
                                               changed_text)
    results["agreement"] = agreement(results["auto_all"], results["mutmut_changed"], arid_text)
    results["patterns"] = patterns
    return results


def crash_probe(work: Path) -> dict:
    """mutmut on the changed functions of the tp scratch branch under the whole suite."""
    repo = make_scratch_branch(work / "tp-full" / "repo")
    patterns = ["tp_scheduler.tp_head_congruence.x_group_count__mutmut_*",
                "tp_scheduler.scheduler_budget_mixin.xǁSchedulerBudgetMixinǁ_all_reduce_min"
                "__mutmut_*"]
    result = run_mutmut(repo, "tp_scheduler", SCENARIOS["tp"]["files"], ["tests"], patterns, 590)
    auto = run_deskcheck(repo, ["tests"], [], work / "tp-full" / "auto.json")
    return {"mutmut": result, "auto": auto}


def _split(run: dict) -> str:
    timings = run["report"].get("timings_s", {})
    return f"{timings.get('coverage_s', 0):.1f} s + {timings.get('sweep_s', 0):.1f} s"


def _verdicts(report: dict) -> str:
    return counts(m["verdict"] for m in report["mutants"])


def write_markdown(results: list[dict], probe: dict, total_s: float) -> str:
    lines = ["## auto: diff-scoped mutants vs mutmut 3.8.1", "",
             f"`python bench/auto_vs_mutmut.py` — one run, this machine ({platform.node()}, "
             f"{os.cpu_count()} shared cores, load from other work not controlled), "
             f"{total_s:.0f} s in all. deskcheck: `python -m deskcheck.mutants.auto "
             "--changed-since main --workers 2 --tests ...` (the whole CLI process: git diff, "
             "generation, the coverage pass with rank processes, the engine's sweep). mutmut: "
             "`mutmut run PATTERNS` on the changed files (it mutates whole files; the run is "
             "restricted to the changed functions by name patterns), same test selection.", ""]
    lines += ["| scenario | tool | mutants generated | run | verdicts | wall (deskcheck: "
              "coverage pass + sweep) |",
              "| --- | --- | ---: | ---: | --- | ---: |"]
    for r in results:
        auto, allops, mm = r["auto"], r["auto_all"], r["mutmut"]
        lines.append(f"| {r['name']} | deskcheck auto (PR caps) | {len(auto['report']['mutants'])}"
                     f" on changed lines | {len(auto['report']['mutants'])} | "
                     f"{_verdicts(auto['report'])} | {auto['wall_s']:.1f} s ({_split(auto)}) |")
        lines.append(f"| {r['name']} | deskcheck auto, every operator | "
                     f"{len(allops['report']['mutants'])} on changed lines | "
                     f"{len(allops['report']['mutants'])} | {_verdicts(allops['report'])} | "
                     f"{allops['wall_s']:.1f} s ({_split(allops)}) |")
        on_changed = [m for m in r["mutmut_changed"] if m["on_changed_line"]]
        ran = [s for s in mm["statuses"].values() if s != "not checked"]
        lines.append(f"| {r['name']} | mutmut run | {len(mm['statuses'])} in the whole file(s); "
                     f"{len(r['mutmut_changed'])} in the changed functions, {len(on_changed)} on "
                     f"changed lines | {len(ran)} | {counts(ran)}"
                     f"{'; crashed: ' + mm['crash'] if mm['rc'] not in (0,) else ''} | "
                     f"{mm['wall_s']:.1f} s |")
    lines += ["", "### Rank-only code", "",
              "Functions mutmut finds no test for but deskcheck's coverage pass does (the code "
              "runs only inside gloo rank processes started by a test):", ""]
    for r in results:
        mm_by_function: dict[str, set[str]] = {}
        for m in r["mutmut_changed"]:
            mm_by_function.setdefault(mutmut_function(m["name"]), set()).add(m["status"])
        blind = {f for f, statuses in mm_by_function.items() if statuses == {"no tests"}}
        ours = [m for m in r["auto_all"]["report"]["mutants"]
                if _function_of(m["target"]) in blind and m["owners"]]
        names = sorted({_function_of(m["target"]) for m in ours})
        theirs = [m for m in r["mutmut_changed"] if mutmut_function(m["name"]) in names]
        owners = sorted({o for m in ours for o in m["owners"]})
        lines.append(f"- **{r['name']}**: {', '.join(names) or 'none'} — mutmut: "
                     f"{counts(m['status'] for m in theirs)}; deskcheck: "
                     f"{counts(m['verdict'] for m in ours)}, owned by "
                     f"{', '.join(f'`{o}`' for o in owners[:3])}"
                     f"{' ...' if len(owners) > 3 else ''}.")
    lines += ["", "### Agreement on the same mutants", "",
              "Mutants of the changed lines that both tools generate (same function, same "
              "mutated line), deskcheck verdict vs mutmut status, split by whether mutmut found "
              "a test for the function:", ""]
    for r in results:
        ag = r["agreement"]
        seen = [(a, b) for a, b in ag["pairs"] if a["status"] != "no tests"]
        blind = [(a, b) for a, b in ag["pairs"] if a["status"] == "no tests"]
        seen_agree = [p for p in seen if p in ag["agree"]]
        lines.append(f"- **{r['name']}**: where mutmut found tests, {len(seen_agree)} of "
                     f"{len(seen)} verdicts agree; where mutmut says \"no tests\" "
                     f"({len(blind)}), deskcheck: {counts(b['verdict'] for _, b in blind)}. "
                     f"mutmut mutants on changed lines deskcheck does not generate: "
                     f"{len(ag['unmatched'])} ({len(ag['arid'])} on arid lines deskcheck "
                     "suppresses: logging, assert, docstring, ...).")
        for a, b in ag["pairs"]:
            if (a, b) in ag["agree"]:
                continue
            lines.append(f"  - `{' '.join(a['plus'])}`: mutmut {a['status']}, deskcheck "
                         f"{b['verdict']} (covering tests: {len(b['owners'])})")
    mm, auto = probe["mutmut"], probe["auto"]
    crashed = mm["rc"] != 0 or "KeyError" in mm["tail"]
    lines += ["", "### Crash probe: the target's whole suite", "",
              "mutmut on the tp scratch branch's changed functions under the whole "
              "examples/tp_scheduler suite (gloo arms whose ranks are raw `os.fork` children, "
              "a rank that skips the collective): "
              + (f"**crashed** (exit {mm['rc']}): `{mm['crash']}`" if crashed else
                 f"exit {mm['rc']}, no crash in this run (no `KeyError: <pid>`)")
              + f" after {mm['wall_s']:.1f} s; statuses: "
              f"{counts(s for s in mm['statuses'].values() if s != 'not checked')}. "
              f"deskcheck auto on the same branch and suite: exit {auto['rc']} after "
              f"{auto['wall_s']:.1f} s ({_split(auto)}); {_verdicts(auto['report'])}.", ""]
    if crashed:
        lines += ["<details><summary>mutmut output (tail)</summary>", "", "```text",
                  mm["tail"][-2000:], "```", "", "</details>", ""]
    return "\n".join(lines) + "\n"


def main() -> int:
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="deskcheck-bench-auto-"))
    try:
        results = [scenario(name, spec, work) for name, spec in SCENARIOS.items()]
        probe = crash_probe(work)
        text = write_markdown(results, probe, time.perf_counter() - started)
        out = ROOT / "bench" / "results" / "auto.md"
        out.write_text(text, encoding="utf-8")
        print(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
