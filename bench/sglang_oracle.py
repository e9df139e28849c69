"""The SGLang drift oracle: SGLang's own unit tests, run for real in the SGLang env, say which
stand-ins drifted; `deskcheck standins` (static, and `--run`) is scored against that.

1. Truth: every manifest file (bench/sglang_tests.toml) runs in one pytest session with the
   env's python and the recorder plugin (bench/sglang_oracle_plugin.py; no deskcheck loaded).
   An AttributeError raised in SGLang code on a stand-in (SimpleNamespace, Mock, object(), a
   test's own class, or an SGLang instance whose class sets the name: built without
   ``__init__``), found anywhere on the exception chain, is a ground-truth drift; so is a
   signature TypeError raised in SGLang code. AttributeErrors on a class (a method the test
   calls that 0.5.23 lacks) are version skew of the test, listed but not drift.
2. deskcheck from this checkout (PYTHONPATH), with the env's python, over the env's installed
   SGLang: ``standins --json`` (static) and ``standins --json --run``.
3. Per (test file, missing name): recall and precision of static and --run against the truth.

Needs the env (``make sglang-env``, then ``python3 bench/sglang_env.py --with-deskcheck``; or
SGLANG_ENV=DIR) and the test files (bench/sglang_tests.py); says how to get each when absent.
Writes bench/results/sglang_oracle.md and bench/_work/sglang-oracle/*.json. Re-runnable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from sglang_env import BUILD_HINT, child_env, deskcheck_env, sglang_python, site_packages
from sglang_tests import ensure_tests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work" / "sglang-oracle"
RESULT = HERE / "results" / "sglang_oracle.md"


def _short(path: str) -> str:
    for known in _MANIFEST_PATHS:  # a test file's frame, wherever the folder lies
        at = path.find("/" + known)
        if at >= 0:
            return path[at + 1:]
    for marker in ("site-packages/", "/tests/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def _truth_session(python: Path, folder: Path, paths: list[str], out: Path) -> dict:
    env = child_env() | {"PYTHONPATH": str(HERE), "SGLANG_ORACLE_OUT": str(out)}
    proc = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "sglang_oracle_plugin", "--continue-on-collection-errors",
                           "-W", "ignore", *paths], cwd=folder, env=env,
                          capture_output=True, text=True)
    with (WORK / "truth.log").open("a", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    if not out.is_file():
        sys.exit(f"the truth run wrote nothing (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def run_truth(python: Path, folder: Path, paths: list[str], *,
              per_file: bool = False) -> tuple[dict, float]:
    """One pytest session for all files (fast), or one per file (``per_file``: no state leaks
    between files; SGLang's global runtime context is not always restored by its tests)."""
    (WORK / "truth.log").write_text("", encoding="utf-8")
    started = time.perf_counter()
    if not per_file:
        return _truth_session(python, folder, paths, WORK / "truth.json"), \
            time.perf_counter() - started
    merged: dict = {"outcomes": {}, "collection_errors": {}, "errors": []}
    for index, path in enumerate(paths):
        part = _truth_session(python, folder, [path], WORK / f"truth.{index}.json")
        for key in ("outcomes", "collection_errors"):
            merged[key].update(part[key])
        merged["errors"].extend(part["errors"])
    (WORK / "truth.json").write_text(json.dumps(merged, indent=1), encoding="utf-8")
    return merged, time.perf_counter() - started


def run_standins(python: Path, folder: Path, site: Path, paths: list[str],
                 *extra: str) -> tuple[dict, float]:
    started = time.perf_counter()
    proc = subprocess.run([str(python), "-m", "deskcheck.cli", "standins", "--json", *extra,
                           "--root", str(site), *paths], cwd=folder,
                          env=deskcheck_env(python, ROOT), capture_output=True, text=True)
    wall = time.perf_counter() - started
    name = "run" if extra else "static"
    (WORK / f"standins_{name}.err").write_text(proc.stderr, encoding="utf-8")
    if proc.returncode not in (0, 1):
        sys.exit(f"deskcheck standins {' '.join(extra)} failed ({proc.returncode}):\n"
                 f"{proc.stderr[-3000:]}\n(deskcheck's dependencies in the env: "
                 "python3 bench/sglang_env.py --with-deskcheck)")
    data = json.loads(proc.stdout)
    (WORK / f"standins_{name}.json").write_text(proc.stdout, encoding="utf-8")
    return data, wall


def _test_path(path: str) -> str:
    """A test file's manifest path (``test/registered/...``), however pytest or deskcheck
    rooted it: under a project of its own (bench/_work/sglang-tests lies under deskcheck's
    pyproject.toml) ids carry the folder's path in front."""
    return next((known for known in _MANIFEST_PATHS
                 if path == known or path.endswith("/" + known)), path)


_MANIFEST_PATHS: list[str] = []  # filled by main() from the manifest


def predicted(data: dict) -> dict[tuple[str, str], list[dict]]:
    """(test file, missing name) -> the stand-ins predicted to lack it."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for standin in data["standins"]:
        file = _test_path(standin["built_at"].rpartition(":")[0])
        for record in standin["drift"]:  # req.kv: an AttributeError names `kv`
            out[(file, record["name"].rpartition(".")[2])].append(standin)
    return out


def truth_pairs(truth: dict) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for error in truth["errors"]:
        if error["standin"] and error["kind"] != "signature":
            out[(_test_path(error["test"].split("::", 1)[0]), error["name"])].append(error)
    return out


def _form(errors: list[dict]) -> str:
    """How the stand-in that raised was handed to SGLang code: as ``self`` or not."""
    e = errors[0]
    if e["self_of"]:
        return f"{e['kind']} as self of {e['self_of']}"
    return f"{e['kind']} not self (an argument or a value inside one)"


def score(truth: set, guess: set) -> tuple[str, str]:
    hit = len(truth & guess)
    recall = f"{hit}/{len(truth)} = {hit / len(truth):.0%}" if truth else "n/a"
    precision = f"{hit}/{len(guess)} = {hit / len(guess):.0%}" if guess else "n/a"
    return recall, precision


def determinate(pairs: dict[tuple[str, str], list[dict]], truth_set: set,
                outcomes: dict[str, str]) -> tuple[set, set]:
    """Of the said pairs the truth did not see: those a driving test of the stand-in that
    says it ran and passed (false: the driven path ran without raising it), and those whose
    driving tests all failed first for another reason (undetermined: the read may lie past
    the failure)."""
    false, undetermined = set(), set()
    for pair, standins in pairs.items():
        if pair in truth_set:
            continue
        tests = {t for s in standins for d in s["driven"] for t in d["tests"]}
        if any(outcomes.get(t) == "passed" for t in tests):
            false.add(pair)
        else:
            undetermined.add(pair)
    return false, undetermined


def scored_determinate(truth_set: set, guess: dict, outcomes: dict[str, str]) -> str:
    false, undetermined = determinate(guess, truth_set, outcomes)
    hit = len(truth_set & set(guess))
    shown = f"{hit}/{hit + len(false)}" if hit + len(false) else "n/a"
    return f"{shown} ({len(undetermined)} undetermined)"


def per_file_rows(files: list, truth: dict, static: dict, run: dict) -> list[str]:
    rows = ["| test file | passed | failed | error | stand-in errors (truth) | static says | "
            "--run says |", "|---|---|---|---|---|---|---|"]
    truth_by = truth_pairs(truth)
    static_by, run_by = predicted(static), predicted(run)
    for f in files:
        outcomes = [o for node, o in truth["outcomes"].items()
                    if _test_path(node.split("::")[0]) == f.path]
        count = {k: outcomes.count(k) for k in ("passed", "failed", "error")}
        if f.path in {_test_path(p) for p in truth["collection_errors"]}:
            count["error"] += 1
        names = sorted({n for (p, n) in truth_by if p == f.path})
        shown = ", ".join(f"`{n}` ({len(truth_by[(f.path, n)])})" for n in names) or "-"
        said = [", ".join(sorted({f"`{n}`" for (p, n) in by if p == f.path})) or "-"
                for by in (static_by, run_by)]
        rows.append(f"| `{Path(f.path).name}` | {count['passed']} | {count['failed']} | "
                    f"{count['error']} | {shown} | {said[0]} | {said[1]} |")
    return rows


def error_rows(truth: dict) -> list[str]:
    rows = ["| test file | kind | object | missing | raised at (SGLang) | chain link | drift? |",
            "|---|---|---|---|---|---|---|"]
    seen: dict[tuple, int] = defaultdict(int)
    first: dict[tuple, dict] = {}
    for e in truth["errors"]:
        key = (e["test"].split("::")[0], e["kind"], e["type"], e["name"] or e["message"][:60],
               _short(e["production_site"] or e["raised_at"]), e["link"], e["standin"])
        seen[key] += 1
        first.setdefault(key, e)
    for key, n in sorted(seen.items()):
        file, kind, typ, name, site, link, standin = key
        link_words = "top" if link == 0 else f"{link} down the chain"
        rows.append(f"| `{Path(file).name}` | {kind} | `{typ.rpartition('.')[2] or '-'}` | "
                    f"`{name}` | `{site}` | {link_words} | "
                    f"{'yes' if standin else 'no'} ({n}x) |")
    return rows


def _matches(standin: dict, error: dict) -> bool:
    """Whether a truth error is about this stand-in: same test file, and the missing name read
    on an object of the stand-in's model class or on the ``self`` of one of its methods."""
    model = standin["model"].rpartition(":")[2]
    file = standin["built_at"].rpartition(":")[0]
    return error["test"].split("::", 1)[0] == file and (
        error["type"].rpartition(".")[2] == model or error["self_of"].startswith(f"{model}."))


def standin_rows(static: dict, run: dict, truth: dict) -> list[str]:
    run_at = {s["built_at"]: s for s in run["standins"]}
    errors = [e for e in truth["errors"] if e["standin"] and e["kind"] != "signature"]
    rows = ["| stand-in (built at) | form | model | static drift | --run drift | truth (errors) |",
            "|---|---|---|---|---|---|"]
    for s in static["standins"]:
        r = run_at.get(s["built_at"], {"drift": []})
        real: dict[str, int] = defaultdict(int)
        for error in errors:
            if _matches(s, error):
                real[error["name"]] += 1
        rows.append(f"| `{Path(s['built_at']).name}` | `{s['form'][:40]}` | "
                    f"{s['model'].rpartition(':')[2]} | "
                    f"{', '.join(sorted(d['name'] for d in s['drift'])) or '-'} | "
                    f"{', '.join(sorted(d['name'] for d in r['drift'])) or '-'} | "
                    f"{', '.join(f'{n} ({c})' for n, c in sorted(real.items())) or '-'} |")
    return rows


def main() -> int:
    python = sglang_python()
    folder, files = ensure_tests()
    WORK.mkdir(parents=True, exist_ok=True)
    site = site_packages(python)
    paths = [f.path for f in files]
    _MANIFEST_PATHS[:] = paths
    per_file = "--per-file" in sys.argv[1:]
    truth, truth_wall = run_truth(python, folder, paths, per_file=per_file)
    static, static_wall = run_standins(python, folder, site, paths)
    run, run_wall = run_standins(python, folder, site, paths, "--run")
    mode = ("one pytest process per file" if per_file else "one pytest session; `--per-file` "
            "runs each file in its own process, as SGLang global state set by one test file "
            "can leak into the next")
    truth_set = set(truth_pairs(truth))
    static_set, run_set = set(predicted(static)), set(predicted(run))
    s_recall, s_precision = score(truth_set, static_set)
    r_recall, r_precision = score(truth_set, run_set)
    s_determinate = scored_determinate(truth_set, predicted(static), truth["outcomes"])
    r_determinate = scored_determinate(truth_set, predicted(run), truth["outcomes"])
    outcomes = list(truth["outcomes"].values())
    truth_by = truth_pairs(truth)
    missed = sorted(truth_set - static_set - run_set)
    false_alarms = sorted((static_set | run_set) - truth_set)
    report = f"""# SGLang drift oracle: real runs vs `deskcheck standins`

{len(files)} of SGLang's own unit-test files (bench/sglang_tests.toml: repository path and
commit), run for real against SGLang 0.5.23 in the proving-ground env (`make sglang-env`;
CPU torch 2.13.0, SGLang's own triton mock): **{outcomes.count('passed')}
passed, {outcomes.count('failed')} failed, {len(truth['collection_errors'])} files not
collected**, {truth_wall:.0f} s ({mode}). Every AttributeError raised in SGLang code on a stand-in
(found down the exception chain too: SGLang's `CustomTestCase` re-raises a plain Exception)
is a ground-truth drift; they are compared per (test file, missing name) with what
`deskcheck standins` says, statically ({static_wall:.1f} s, nothing imported) and with
`--run` ({run_wall:.0f} s, the driving tests once under coverage), both run by the env's
python on the installed SGLang source.

Reproduce: `make sglang-env && python3 bench/sglang_env.py --with-deskcheck && python3
bench/sglang_tests.py && python3 bench/sglang_oracle.py` (without the env: {BUILD_HINT}).

| | recall (truth found) | precision (said and true) | precision where the run decides |
|---|---|---|---|
| `standins` static | {s_recall} | {s_precision} | {s_determinate} |
| `standins --run` | {r_recall} | {r_precision} | {r_determinate} |

The last column leaves out the said pairs the run cannot decide: every driving test of the
stand-in that says it fails first for another reason (version skew of the test file, an
earlier missing name), so the read may lie past the failure. A said pair is false there only
when one of those tests passes: the driven path ran without raising it.

Truth pairs missed by both (how the stand-in reached SGLang code):

{chr(10).join(f'- `{Path(p).name}`: `{n}` ({_form(truth_by[(p, n)])})' for p, n in missed) or '- none'}

Said but not seen failing: {', '.join(f'`{Path(p).name}`: `{n}`' for p, n in false_alarms) or 'none'}.

## Per test file

{chr(10).join(per_file_rows(files, truth, static, run))}

Not collected (version skew of the test file against 0.5.23, none a missing package or a GPU):

{chr(10).join(f'- `{Path(p).name}`: {m}' for p, m in sorted(truth['collection_errors'].items())) or '- none'}

## Every AttributeError and signature TypeError the failures carry

{chr(10).join(error_rows(truth))}

## Per stand-in (as `standins` finds them)

{chr(10).join(standin_rows(static, run, truth))}
"""
    RESULT.write_text(report, encoding="utf-8")
    (WORK / "summary.json").write_text(json.dumps({
        "truth": sorted(map(list, truth_set)), "static": sorted(map(list, static_set)),
        "run": sorted(map(list, run_set)), "walls": {"truth": truth_wall, "static": static_wall,
                                                     "run": run_wall}}, indent=1))
    print(report[:1800])
    print(f"wrote {RESULT}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    os.chdir(ROOT)
    sys.exit(main())
