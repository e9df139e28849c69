"""Can `deskcheck standins` fail? The deletion bench, on code deskcheck did not write.

For every stand-in that holds (static verdict, nothing imported), delete each hand-set
attribute in turn from a scratch copy of its test file (the statement ``obj.x = ...`` becomes
``pass``; a keyword ``x=...`` of ``SimpleNamespace(...)``/``Mock(...)`` is cut; line numbers
stay), and re-judge the copy. The truth for each deletion: do the stand-in's driving tests,
run on that copy where the production code imports, now fail with an AttributeError naming
the deleted attribute (and did not on the untouched copy)? A test that already fails on the
untouched copy (the test file is newer than the production code) decides only when the
deletion adds an AttributeError naming the attribute (the read was reached); otherwise the
deletion is undetermined unless a driving test that passes on the untouched copy still
passes. Scores:

- recall: true deletions reported as drift (a failing finding naming the attribute);
- precision: failing findings naming the deleted attribute that are true, plus the failing
  findings on the untouched files whose driving tests really fail with that AttributeError.

Targets: the reference target (examples/tp_scheduler, its tests run in deskcheck's venv) and
SGLang 0.5.23 with SGLang's own unit tests, in the CPU environment of bench/sglang_env.py
(``/work/_sglang/env`` by default; its READY file says how tests run). The truth runs in one
worker interpreter per target (bench/standins_worker.py) so the scheduler is imported once.
Writes bench/results/standins_deletions.md (and .json).

    .venv/bin/python bench/standins_deletions.py [--target reference|sglang|all]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from deskcheck.config import load_config  # noqa: E402
from deskcheck.drift_guard.standins import discover  # noqa: E402

SGLANG = Path(os.environ.get("DESKCHECK_SGLANG_DIR", "/work/_sglang"))
FAILING = ("drift", "silent_skips")


@dataclass
class Target:
    name: str
    project: Path          # copied whole into the scratch folder
    tests: str             # the test folder, relative to project
    roots: list[Path]      # production source (static judging)
    python: str            # the interpreter the truth runs in
    env: dict[str, str] = field(default_factory=dict)
    shims: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


@dataclass
class Deletion:
    standin: str
    model: str
    name: str
    file: str
    line: int
    tests: list[str]
    reported: bool = False
    reported_as: str = ""
    truth: bool | None = None
    raised_in_test: bool = False  # the new AttributeError came only from the test's own code
    note: str = ""


def targets() -> dict[str, Target]:
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    found = {"reference": Target("reference target (examples/tp_scheduler)",
                                 ROOT / "examples" / "tp_scheduler", "tests",
                                 [ROOT / "examples" / "tp_scheduler"], sys.executable,
                                 {**env, "CUDA_VISIBLE_DEVICES": ""})}
    python = SGLANG / "env" / "bin" / "python"
    site = next(iter(sorted((SGLANG / "env" / "lib").glob("python3*/site-packages"))), None)
    tests = sglang_tests()
    if python.exists() and site is not None and tests is not None:
        found["sglang"] = Target("SGLang 0.5.23 (its own unit tests)", tests, "test",
                                 [site], str(python), env, shims=truth_shims())
    return found


def sglang_tests() -> Path | None:
    """SGLang's test files: ``$SGLANG_TESTS``, else bench/_work/sglang-tests (placed and
    checked by bench/sglang_tests.py against bench/sglang_tests.toml), else the proving
    ground's folder; each holds MANIFEST.json once checked."""
    for folder in (os.environ.get("SGLANG_TESTS"), HERE / "_work" / "sglang-tests",
                   SGLANG / "tests"):
        if folder and (Path(folder) / "MANIFEST.json").exists():
            return Path(folder)
    return None


def truth_shims() -> dict[str, list[tuple[str, str]]]:
    """Per test file, the line replacements bench/sglang_tests.toml declares (``truth_shim``):
    an import of a name 0.5.23 lacks that the driving tests never use, dropped so that the
    file collects and its driving tests can give the truth. One line for one line: the line
    numbers stay."""
    data = tomllib.loads((HERE / "sglang_tests.toml").read_text(encoding="utf-8"))
    return {entry["path"]: [(s["old"], s["new"]) for s in entry["truth_shim"]]
            for entry in data["file"] if entry.get("truth_shim")}


def apply_shims(base: Path, shims: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Apply the shims to the scratch copy; returns what was applied, said for the report."""
    applied = []
    for rel, pairs in shims.items():
        path = base / rel
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            if "\n" in old or "\n" in new or text.count(old) != 1:
                sys.exit(f"truth_shim of {rel}: {old!r} must be one line found once")
            text = text.replace(old, new)
            applied.append(f"`{Path(rel).name}`: `{old.strip()}` -> `{new.strip()}`")
        path.write_text(text, encoding="utf-8")
    return applied


# -- deleting one set, keeping line numbers -----------------------------------------------
def delete_set(source: str, name: str, line: int) -> str | None:
    """``source`` without the set of ``name`` at ``line`` (None when no such set is there).
    A name inside a nested namespace (``req.rid``) is set at its own line as ``rid``."""
    name = attr(name)
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.lineno == line:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Attribute) \
                    and targets[0].attr == name:
                return _replace(lines, node, "pass")
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == name and kw.value.lineno == line:
                    return _cut_keyword(source, node, kw)
            if isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and node.lineno == line and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value == name:
                return _replace(lines, node, "None")
    return None


def _replace(lines: list[str], node: ast.AST, text: str) -> str:
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
    head = lines[first][: node.col_offset]
    tail = lines[last][node.end_col_offset:]  # type: ignore[attr-defined]
    blank = ["\n"] * (last - first)
    return "".join(lines[:first] + [head + text + tail] + blank + lines[last + 1:])


def _offset(source: str, line: int, col: int) -> int:
    """The character offset of ``ast``'s (line, UTF-8 byte column)."""
    lines = source.splitlines(keepends=True)
    before = sum(len(text) for text in lines[: line - 1])
    return before + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))


def _cut_keyword(source: str, call: ast.Call, kw: ast.keyword) -> str:
    start = _offset(source, kw.lineno, kw.col_offset)
    end = _offset(source, kw.end_lineno, kw.end_col_offset)  # type: ignore[arg-type]
    rest = source[end:]
    stripped = rest.lstrip(" \t")
    if stripped.startswith(","):
        end += len(rest) - len(stripped) + 1
    newlines = source[start:end].count("\n")
    return source[:start] + "\n" * newlines + source[end:]


# -- the static side -------------------------------------------------------------------------
def judge(project: Path, tests: str, roots: list[Path]) -> dict:
    found = discover([project / tests], load_config(project), roots=roots)
    return found.to_json()


def failing_names(report: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for category in FAILING:
        for rec in report[category]:
            out.setdefault(rec["name"], category)
    return out


def attr(name: str) -> str:
    """The attribute an AttributeError names for a missing ``name`` (``req.kv``: ``kv``)."""
    return name.rpartition(".")[2]


_MISSING = re.compile(r"has no method '([A-Za-z_][A-Za-z0-9_]*)'")


def missing_methods(static: dict, base: Path) -> list[dict]:
    """The missing-method problems as failing findings, one per (file, method), driven by
    the tests whose bodies (or the helpers they call) hold the drive."""
    grouped: dict[tuple[str, str], dict] = {}
    for problem in static["problems"]:
        found = _MISSING.search(problem["message"])
        if problem["kind"] != "missing-method" or found is None:
            continue
        rel = problem["file"]
        tests = tests_at(base / rel, rel, problem["line"])
        item = grouped.setdefault((rel, found.group(1)), {
            "standin": f"{rel}:{problem['line']}", "name": found.group(1),
            "category": "missing-method", "tests": []})
        item["tests"] = sorted(set(item["tests"]) | set(tests))
    return [f for f in grouped.values() if f["tests"]]


def tests_at(path: Path, rel: str, line: int) -> list[str]:
    """Node ids of the tests whose body holds ``line``: the test function around it, or the
    tests of the file that call the helper around it (one level)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests: dict[str, ast.AST] = {}
    owner: dict[str, str] = {}
    for node in tree.body:
        inner = node.body if isinstance(node, ast.ClassDef) else [node]
        for func in inner:
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                where = f"{rel}::{node.name}::{func.name}" if isinstance(node, ast.ClassDef) \
                    else f"{rel}::{func.name}"
                tests[where] = func
                owner[where] = func.name
    around = [w for w, f in tests.items() if f.lineno <= line <= f.end_lineno]
    if not around:
        return []
    if owner[around[0]].startswith("test"):
        return around[:1]
    helper = owner[around[0]]
    return sorted(w for w, f in tests.items() if owner[w].startswith("test") and any(
        isinstance(n, ast.Call) and (getattr(n.func, "id", None) == helper
                                     or getattr(n.func, "attr", None) == helper)
        for n in ast.walk(f)))


# -- the truth side --------------------------------------------------------------------------
class Worker:
    def __init__(self, target: Target) -> None:
        self.proc = subprocess.Popen(
            [target.python, str(HERE / "standins_worker.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=target.env)

    def run(self, rootdir: Path, node_ids: list[str]) -> dict:
        job = {"id": str(rootdir), "rootdir": str(rootdir), "args": node_ids,
               "extra": ["--continue-on-collection-errors"]}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the truth worker died")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _names_failing(result: dict, tests: list[str]) -> set[str]:
    return {n for t in tests for n in result["failed"].get(t, [])}


def _only_in_tests(result: dict, tests: list[str], name: str, folder: str) -> bool:
    """The AttributeErrors naming ``name`` were all raised in the test folder's own code (the
    test body or its helpers read the deleted attribute after the drive), none in
    production."""
    paths = [p for t in tests for p in result.get("origins", {}).get(t, {}).get(name, []) if p]
    return bool(paths) and all(not os.path.isabs(p) and p.startswith(f"{folder}/")
                               for p in paths)  # "": the same error repeated without a frame


def _ran(result: dict, tests: list[str]) -> bool:
    return any(result["outcomes"].get(t) in ("passed", "failed") for t in tests)


def bench(target: Target, limit: int | None) -> dict:
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="deskcheck-deletions-"))
    try:
        base = scratch / "base"
        shutil.copytree(target.project, base, ignore=shutil.ignore_patterns(
            "__pycache__", "*.egg-info", ".deskcheck", "*.pyc"))
        shims = apply_shims(base, target.shims)
        static = judge(base, target.tests, target.roots)
        static["shims"] = shims
        worker = Worker(target)
        try:
            return _bench(target, static, base, scratch, worker, limit, started)
        finally:
            worker.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _bench(target: Target, static: dict, base: Path, scratch: Path, worker: Worker,
           limit: int | None, started: float) -> dict:
    deletions: list[Deletion] = []
    baseline_findings: list[dict] = []
    for report in static["standins"]:
        tests = sorted({t for d in report["driven"] for t in d["tests"]})
        if not tests:
            continue
        if not report["holds"]:
            for name, category in failing_names(report).items():
                baseline_findings.append({"standin": report["built_at"], "name": name,
                                          "category": category, "tests": tests})
            continue
        for name, item in report["sets"].items():
            deletions.append(Deletion(report["built_at"], report["model"], name,
                                      report["built_at"].rpartition(":")[0], item["line"],
                                      tests))
    baseline_findings += missing_methods(static, base)
    deletions = deletions[:limit] if limit else deletions
    base_runs: dict[tuple[str, ...], dict] = {}

    def baseline(tests: list[str]) -> dict:
        key = tuple(tests)
        if key not in base_runs:
            base_runs[key] = worker.run(base, list(tests))
        return base_runs[key]

    for finding in baseline_findings:
        result = baseline(finding["tests"])
        named = attr(finding["name"]) in _names_failing(result, finding["tests"])
        green = any(result["outcomes"].get(t) == "passed" for t in finding["tests"])
        # determinate: the tests raise naming it (true), or a driving test passes (false);
        # tests that all fail for another reason (version skew) may never reach the read
        finding["ran"] = named or green
        finding["truth"] = named
        finding["undetermined"] = _ran(result, finding["tests"]) and not (named or green)
    for i, item in enumerate(deletions):
        copy = scratch / f"d{i}"
        shutil.copytree(base, copy, symlinks=True)
        path = copy / item.file
        edited = delete_set(path.read_text(encoding="utf-8"), item.name, item.line)
        if edited is None:
            item.note = "set not found at its line (set in a helper of another file)"
            shutil.rmtree(copy, ignore_errors=True)
            continue
        path.write_text(edited, encoding="utf-8")
        again = {r["built_at"]: r for r in judge(copy, item.file, target.roots)["standins"]}
        report = again.get(item.standin)
        if report is not None:
            failing = failing_names(report)
            item.reported = item.name in failing
            item.reported_as = failing.get(item.name, "") or report["status"]
            if not item.reported and item.name in {s["method"] for s in report["signature"]}:
                item.reported = True
        before = baseline(item.tests)
        ran = [t for t in item.tests if before["outcomes"].get(t) in ("passed", "failed")]
        green = [t for t in ran if before["outcomes"].get(t) == "passed"]
        if not ran:
            item.note = "driving tests do not run here (collection error)"
        else:
            result = worker.run(copy, ran)
            if attr(item.name) in _names_failing(result, ran) - _names_failing(before, ran):
                item.truth = True  # a new AttributeError naming it: the read was reached
                item.raised_in_test = _only_in_tests(result, ran, attr(item.name),
                                                     target.tests)
            elif green:
                item.truth = False  # the tests that pass on the untouched file still pass it
            else:
                item.note = ("driving tests fail on the untouched file (version skew) and "
                             "raise nothing new naming it: undetermined")
        shutil.rmtree(copy, ignore_errors=True)
        print(f"  {item.standin} -{item.name}: truth={item.truth} reported={item.reported}",
              file=sys.stderr)
    return score(target, static, deletions, baseline_findings, time.perf_counter() - started)


def score(target: Target, static: dict, deletions: list[Deletion], findings: list[dict],
          wall: float) -> dict:
    judged = [d for d in deletions if d.truth is not None]
    true = [d for d in judged if d.truth]
    caught = [d for d in true if d.reported]
    reported = [d for d in judged if d.reported]
    correct = [d for d in reported if d.truth]
    ran = [f for f in findings if f["ran"]]
    base_true = [f for f in ran if f["truth"]]
    precision_n = len(correct) + len(base_true)
    precision_d = len(reported) + len(ran)
    return {
        "target": target.name, "files": len(static["files"]),
        "standins": len(static["standins"]),
        "holding": len({d.standin for d in deletions}),
        "deletions": len(deletions), "judged": len(judged), "true": len(true),
        "caught": len(caught), "reported": len(reported), "reported_true": len(correct),
        "baseline_findings": len(findings), "baseline_ran": len(ran),
        "baseline_true": len(base_true),
        "recall": round(len(caught) / len(true), 3) if true else None,
        "true_production": len([d for d in true if not d.raised_in_test]),
        "caught_production": len([d for d in caught if not d.raised_in_test]),
        "precision": round(precision_n / precision_d, 3) if precision_d else None,
        "wall_s": round(wall, 1), "shims": static.get("shims", []),
        "per_file": per_file(static, deletions, findings),
        "rows": [d.__dict__ for d in deletions], "findings": findings,
    }


def per_file(static: dict, deletions: list[Deletion], findings: list[dict]) -> list[dict]:
    """Per test file that builds stand-ins: what was judged there. A file is *judged* when at
    least one deletion or failing finding of it has a truth (run, or a shim's run)."""
    files: dict[str, dict] = {}

    def row(rel: str) -> dict:
        return files.setdefault(rel, {"file": rel, "standins": 0, "deletions": 0,
                                      "deletions_judged": 0, "true": 0, "caught": 0,
                                      "findings": 0, "findings_judged": 0,
                                      "findings_true": 0})
    for report in static["standins"]:
        row(report["built_at"].rpartition(":")[0])["standins"] += 1
    for d in deletions:
        r = row(d.file)
        r["deletions"] += 1
        r["deletions_judged"] += d.truth is not None
        r["true"] += bool(d.truth)
        r["caught"] += bool(d.truth and d.reported)
    for f in findings:
        r = row(f["standin"].rpartition(":")[0])
        r["findings"] += 1
        r["findings_judged"] += bool(f["ran"])
        r["findings_true"] += bool(f["ran"] and f["truth"])
    for r in files.values():
        r["judged"] = bool(r["deletions_judged"] or r["findings_judged"])
    return sorted(files.values(), key=lambda r: r["file"])


def markdown(results: list[dict]) -> str:
    out = ["# Stand-in deletion bench (can `standins` fail?)", "",
           "`python bench/standins_deletions.py`: for every stand-in that holds, each hand-set "
           "attribute deleted in turn from a scratch copy of its test file and re-judged "
           "statically; the truth is whether the driving tests, run where production imports, "
           "then fail with an AttributeError naming it. Goals: recall >= 90 % (true deletions "
           "reported as drift), precision >= 95 % (failing findings that are true, deletions "
           "and untouched files together).", "",
           "| target | test files | stand-ins (holding) | deletions (run) | true | caught | "
           "recall | failing findings (true) | precision | time |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        recall = f"{r['recall']:.0%}" if r["recall"] is not None else "-"
        precision = f"{r['precision']:.0%}" if r["precision"] is not None else "-"
        out.append(f"| {r['target']} | {r['files']} | {r['standins']} ({r['holding']}) | "
                   f"{r['deletions']} ({r['judged']}) | {r['true']} | {r['caught']} | {recall} | "
                   f"{r['reported'] + r['baseline_ran']} ({r['reported_true'] + r['baseline_true']})"
                   f" | {precision} | {r['wall_s']:.0f} s |")
    for r in results:
        judged = [f for f in r["per_file"] if f["judged"]]
        out += ["", f"{r['target']}: {len(judged)} of {len(r['per_file'])} test files that "
                "build stand-ins judged (at least one deletion or failing finding with a "
                "truth)."]
    for r in results:
        missed = [d for d in r["rows"] if d["truth"] and not d["reported"]]
        false = [d for d in r["rows"] if d["reported"] and d["truth"] is False]
        wrong = [f for f in r["findings"] if f["ran"] and not f["truth"]]
        skipped = [d for d in r["rows"] if d["truth"] is None]
        out += ["", f"## {r['target']}", ""]
        out.append(f"Missed (true deletions not reported as drift): {len(missed)}")
        out += [f"- `{Path(d['standin']).name}` `{d['name']}` (verdict: {d['reported_as']})"
                + (": only the test's own code reads it (after the drive), no production "
                   "frame raises" if d.get("raised_in_test") else "")
                for d in missed]
        if r["true"]:
            out.append(f"\nCounting only deletions production itself trips over (the "
                       f"AttributeError raised in a production frame): "
                       f"{r['caught_production']} of {r['true_production']} caught.")
        out.append(f"\nFalse (reported, but the tests do not fail naming it): {len(false)}")
        out += [f"- `{Path(d['standin']).name}` `{d['name']}` ({d['reported_as']})"
                for d in false]
        undetermined = [f for f in r["findings"] if f.get("undetermined")]
        out.append(f"\nFailing findings on the untouched files: {r['baseline_findings']} "
                   f"({r['baseline_ran']} determinate here, {r['baseline_true']} true; "
                   f"{len(undetermined)} undetermined: their driving tests all fail first "
                   "for another reason)")
        out += [f"- undetermined: `{Path(f['standin']).name}` `{f['name']}` ({f['category']})"
                for f in undetermined]
        out += [f"- not confirmed: `{Path(f['standin']).name}` `{f['name']}` ({f['category']})"
                for f in wrong]
        out += ["", "| test file | commit | stand-ins | deletions (judged) | true | caught | "
                "failing findings (judged) | true | judged |", "|---|---|---|---|---|---|---|---|---|"]
        commits = manifest_commits()
        for f in r["per_file"]:
            rel = f["file"].split("/test/", 1)[-1] if "/test/" in f["file"] else f["file"]
            commit = next((c[:10] for p, c in commits.items() if f["file"].endswith(p)), "-")
            out.append(f"| `{rel}` | {commit} | {f['standins']} | {f['deletions']} "
                       f"({f['deletions_judged']}) | {f['true']} | {f['caught']} | "
                       f"{f['findings']} ({f['findings_judged']}) | {f['findings_true']} | "
                       f"{'yes' if f['judged'] else 'no'} |")
        if r["shims"]:
            out += ["", "Truth shims (the file did not collect on 0.5.23; the import its "
                    "driving tests never use is dropped, one line for one line, in the "
                    "scratch copies that are judged and run): " + "; ".join(r["shims"])]
        if skipped:
            out.append(f"\nNot judged ({len(skipped)}): " + "; ".join(
                sorted({f"{Path(d['standin']).name}: {d['note']}" for d in skipped})))
    return "\n".join(out) + "\n"


def manifest_commits() -> dict[str, str]:
    """Repository path -> commit of each SGLang test file in bench/sglang_tests.toml."""
    data = tomllib.loads((HERE / "sglang_tests.toml").read_text(encoding="utf-8"))
    return {entry["path"]: entry["commit"] for entry in data["file"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="all", choices=["all", "reference", "sglang"])
    parser.add_argument("--limit", type=int, default=None, help="at most N deletions each")
    args = parser.parse_args()
    available = targets()
    wanted = list(available) if args.target == "all" else [args.target]
    missing = [t for t in wanted if t not in available]
    if missing:
        sys.exit(f"target {missing[0]} is not available here: SGLang needs the environment of "
                 f"bench/sglang_env.py under {SGLANG} (env/ and tests/MANIFEST.json)")
    results = [bench(available[name], args.limit) for name in wanted]
    out = HERE / "results"
    kept = out / "standins_deletions.json"
    if kept.exists() and args.limit is None:  # the targets not run this time keep their rows
        ran = {r["target"] for r in results}
        earlier = [r for r in json.loads(kept.read_text()) if r["target"] not in ran]
        order = [t.name for t in available.values()]
        results = sorted(earlier + results, key=lambda r: order.index(r["target"])
                         if r["target"] in order else len(order))
        for r in results:
            r.setdefault("per_file", [])
            r.setdefault("shims", [])
            r.setdefault("true_production", r["true"])
            r.setdefault("caught_production", r["caught"])
    (out / "standins_deletions.json").write_text(json.dumps(results, indent=1, default=str))
    (out / "standins_deletions.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
