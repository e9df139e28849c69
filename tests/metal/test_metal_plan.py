"""`make metal` cannot rot between GPU lendings: its dry run is run here, on a CPU.

The plan must say what each step would run and why it skips; the plan for the lent GPU
machine (its recorded facts) must run every step that machine allows; a hung step must be
killed and reported while the run goes on; and the wheels carried to the machine must cover
every third-party module the METAL paths import.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from deskcheck.suites.metal import MetalOptions, run_metal
from deskcheck.suites.metal import plan as P
from deskcheck.suites.metal.plan import Step
from deskcheck.suites.metal.render import markdown, terminal
from deskcheck.suites.metal.run import run_steps

ROOT = Path(__file__).resolve().parents[2]
H200 = json.loads((Path(__file__).parent / "fixtures" / "h200-facts.json").read_text())
STEPS = ["group nccl w1", "group nccl w2", "group gloo-cuda w2", "group gloo-cuda w3",
         "suites", "sweep", "cpu-suite"]
DEVICE_CALL_S = 480  # the issue: one call of at most 8 minutes


def _options(**kw) -> MetalOptions:
    base = {"python": sys.executable, "catalog": "tests/metal/mutants.toml", "cpu_suite": True,
            "dry_run": True}
    return MetalOptions(**{**base, **kw})


def test_the_cpu_dry_run_says_what_it_would_run_and_why_each_part_skips(tmp_path):
    out = tmp_path / "metal.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OUT": "", "PYTHON": sys.executable,
           "DESKCHECK_METAL_SITE": str(tmp_path / "site")}
    done = subprocess.run([str(ROOT / ".ci" / "metal"), "--dry-run", "--json", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the dry run must exit 0:\n{done.stdout}{done.stderr}"
    assert not (tmp_path / "site").exists(), (
        "a dry run installs nothing, so it must leave no wheel folder behind in the temp dir")
    results = json.loads(out.read_text())
    assert results["dry_run"] and results["verdict"] == "DRY RUN", (
        f"a CPU dry run must say dry_run and verdict DRY RUN; it says {results['dry_run']}, "
        f"{results['verdict']!r}"
    )
    steps = {s["name"]: s for s in results["steps"]}
    assert list(steps) == STEPS, f"the plan's steps changed: {list(steps)}"
    no_gpu = "needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')"
    for name, step in steps.items():
        assert step["status"] == "skipped" and step["reason"], (
            f"{name} has no reason to skip on a machine without a GPU: {step}")
        assert step["seconds"] == 0, f"{name} ran during a dry run"
        assert f"why: {step['reason'][:30]}" in " ".join(done.stdout.split()), (
            f"the terminal does not say why {name} skips:\n{done.stdout}")
    for name in STEPS[:4]:
        assert no_gpu in steps[name]["reason"], steps[name]["reason"]
    for name in ("suites", "sweep", "cpu-suite"):
        assert "no GPU here (CUDA_VISIBLE_DEVICES='')" in steps[name]["reason"], steps[name]
    assert "tests/metal/mutants.toml" in steps["sweep"]["command"], (
        "the sweep step must sweep tests/metal/mutants.toml; its command is "
        f"{steps['sweep']['command']}"
    )
    assert "-m metal --deskcheck-backend nccl --deskcheck-backend gloo-cuda" in \
        " ".join(steps["suites"]["command"]), steps["suites"]["command"]
    assert "not metal" in steps["cpu-suite"]["command"], (
        "the cpu-suite step must run -m \"not metal\"; its command is "
        f"{steps['cpu-suite']['command']}"
    )
    assert done.stdout.count("would run:") == len(STEPS), done.stdout
    wide = [line for line in done.stdout.splitlines()
            if len(line) > 80 and not line.startswith("results: ")]  # a path is not wrapped
    assert not wide, f"the plan must read at 80 columns: {wide}"


@pytest.mark.skipif(not shutil.which("make"), reason="make is not installed here")
def test_make_metal_is_the_shell_entry_with_the_callers_gpus():
    # a nested make (this test under `make test`) would print "Entering directory" lines
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env["CUDA_VISIBLE_DEVICES"] = "1"
    done = subprocess.run(["make", "-n", "metal", "METAL_ARGS=--dry-run"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "CUDA_VISIBLE_DEVICES='1' .ci/metal --dry-run", (
        f"make metal must run .ci/metal with the GPUs the caller sees (every other target "
        f"hides them): {done.stdout!r}")


def test_the_plan_for_the_lent_h200_runs_what_one_gpu_allows():
    results = run_metal(_options(), facts=H200)
    status = {s["name"]: (s["status"], s["reason"]) for s in results["steps"]}
    for name in ("group nccl w1", "group gloo-cuda w2", "group gloo-cuda w3", "suites",
                 "sweep", "cpu-suite"):
        assert status.get(name) == ("planned", None), (
            f"{name} must run on one H200: {status.get(name, 'not in the plan')}")
    assert status.get("group nccl w2") == ("skipped", H200["unavailable"]["nccl-w2"]), (
        "on one GPU the NCCL hang arm (world 2) must be listed and skip, naming NCCL's "
        f"one-GPU-per-rank rule; the plan has {status.get('group nccl w2', 'no such step')}")
    text = terminal(results)
    assert "GPU NVIDIA H200; driver 580.159.03; Python 3.12.3; torch 2.11.0+cu130" in \
        " ".join(text.split()), text
    assert "## METAL" in markdown(results), (
        f"the Markdown results must have a ## METAL section:\n{markdown(results)}"
    )


def test_the_gloo_cuda_group_steps_run_the_hang_arm_like_the_nccl_ones():
    # docs/suites.md: `group gloo-cuda w2`, `w3` | "the same over CUDA tensors, hang arm
    # included" -- the same doctor call as `group nccl wN --hang`, timeout included
    steps = {s.name: s for s in P.build_plan(H200, _options(hang_timeout_s=7.5))}
    for name in ("group nccl w1", "group nccl w2", "group gloo-cuda w2", "group gloo-cuda w3"):
        command = steps[name].command
        hang = command[command.index("--hang-timeout") + 1] \
            if "--hang-timeout" in command else None
        assert "--hang" in command and hang == "7.5", (
            f"{name} must run the doctor with its hang arm (`--hang --hang-timeout 7.5`), "
            f"the same as the nccl groups, hang arm included; its command is {command}")
        if name != "group nccl w1":
            assert steps[name].title.endswith("+ hang arm"), (
                f"{name} must say it runs the hang arm; its title is {steps[name].title!r}")


def test_a_module_the_machine_lacks_skips_the_steps_that_import_it():
    facts = {**H200, "missing_modules": ["libcst"]}
    steps = {s.name: s for s in P.build_plan(facts, _options())}
    assert steps["sweep"].status == "skipped", (
        "a step that imports a module the machine lacks (libcst) must skip; the sweep is "
        f"{steps['sweep'].status!r}"
    )
    assert steps["sweep"].skip_reason.startswith("needs libcst, not importable with "), (
        steps["sweep"].skip_reason)
    assert "carry it as a wheel" in steps["sweep"].skip_reason, (
        f"the skip must say carry it as a wheel; it says {steps['sweep'].skip_reason!r}"
    )
    assert steps["suites"].status == "planned", "the suites do not import libcst"


def test_without_a_catalog_or_the_cpu_suite_those_steps_say_so():
    steps = {s.name: s for s in P.build_plan(H200, _options(catalog=None, cpu_suite=False))}
    assert steps["sweep"].skip_reason == ("no --catalog given: there is no CUDA mutant catalog "
                                          "to sweep"), (
        "without --catalog the sweep must say there is no CUDA mutant catalog to sweep; it says "
        f"{steps['sweep'].skip_reason!r}"
    )
    assert steps["cpu-suite"].skip_reason == "not asked for (--cpu-suite)", (
        "without --cpu-suite that step must say not asked for (--cpu-suite); it says "
        f"{steps['cpu-suite'].skip_reason!r}"
    )
    sweep = " ".join(steps["sweep"].command)
    assert "None" not in sweep, f"without a catalog the sweep step reads `--catalog None`: {sweep}"


def test_the_budget_fits_one_device_call_with_every_step_its_floor(bench_metal):
    BUDGET_S = bench_metal.BUDGET_S
    steps = P.build_plan(H200, _options(dry_run=False))
    assert BUDGET_S + 30 <= DEVICE_CALL_S, "the budget leaves the wheel install 30 s"
    assert sum(P.FLOORS[s.kind] for s in steps if s.status == "planned") <= BUDGET_S, (
        f"the planned steps' floors must fit the budget {BUDGET_S} s; they sum to "
        f"{sum(P.FLOORS[s.kind] for s in steps if s.status == 'planned')}"
    )
    from deskcheck.suites.metal.run import step_timeout

    for i, step in enumerate(steps):
        if step.status == "planned":
            assert step_timeout(step, steps[i + 1:], BUDGET_S) >= P.FLOORS[step.kind], (
                f"step {step.name} must get at least its floor {P.FLOORS[step.kind]} s; it gets "
                f"{step_timeout(step, steps[i + 1:], BUDGET_S)}"
            )


@pytest.fixture
def quick_caps(monkeypatch):
    monkeypatch.setitem(P.CAPS, "group", 2.0)
    monkeypatch.setitem(P.FLOORS, "group", 0.5)


def test_a_hung_step_is_killed_and_reported_and_the_run_goes_on(quick_caps, tmp_path):
    pid_file = tmp_path / "pid"
    hung = Step("group hung", "group", "sleeps", [
        sys.executable, "-c", f"import os, time; open({str(pid_file)!r}, 'w').write("
        "str(os.getpid())); time.sleep(600)"])
    fine = Step("group fine", "group", "answers", [
        sys.executable, "-c", 'print(\'{"groups": [{"ok": true, "world": 1}]}\')'])
    began = time.monotonic()
    run_steps([hung, fine], budget_s=30)
    assert hung.status == "timeout", hung
    assert hung.skip_reason == "still running after its 2 s limit: killed", (
        f"a hung step must be killed at its limit and say so; it says {hung.skip_reason!r}"
    )
    assert fine.status == "passed" and fine.detail == {"ok": True, "world": 1}, fine
    assert time.monotonic() - began < 25, "the hung step held the run past its limit"
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_a_spent_budget_skips_the_rest_with_the_numbers(quick_caps):
    step = Step("group late", "group", "late", [sys.executable, "-c", "pass"])
    run_steps([step], budget_s=0.1)
    assert step.status == "skipped", (
        f"a step past the spent budget must skip; it is {step.status!r} ({step.skip_reason!r})"
    )
    assert step.skip_reason.startswith("the run's 0 s budget is spent: 0 s left, this step "
                                       "needs at least 0 s"), step.skip_reason


# -- the wheels carried to the GPU machine --------------------------------------------------
GENERATED = {  # first-party modules the tests write into temporary folders at run time
    "gate_probe_pkg", "spk", "sp_probe", "boundpkg", "_deskcheck_gate_redirect", "dc_report_shop",
    "dk_rows_later"}


def _third_party_imports() -> dict[str, str]:
    """top-level module -> first file:line importing it, over deskcheck/, tests/, examples/."""
    local = {p.name.removesuffix(".py") for p in ROOT.rglob("*")
             if ".venv" not in p.parts and "_work" not in p.parts
             and (p.is_dir() or p.suffix == ".py")}
    found: dict[str, str] = {}
    for folder in ("deskcheck", "tests", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                         and node.module else [])
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top in local or top in GENERATED:
                        continue
                    found.setdefault(top, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_the_wheels_cover_every_third_party_import_the_metal_run_makes():
    manifest = tomllib.loads((ROOT / ".ci" / "metal-wheels.toml").read_text())
    there = set(manifest["machine"]["modules"])
    carried = {m for wheel in manifest["wheel"] for m in wheel["modules"]}
    imports = _third_party_imports()
    assert {"torch", "libcst", "pytest", "hypothesis"} <= set(imports), (
        f"the import scan found too little to be trusted: {sorted(imports)}")
    missing = {m: where for m, where in imports.items() if m not in there | carried}
    assert not missing, (
        "modules the METAL run imports that the GPU machine lacks and no wheel carries: "
        + ", ".join(f"{m} ({where})" for m, where in sorted(missing.items()))
        + "; fix: add a [[wheel]] to .ci/metal-wheels.toml and run `make metal-wheels`")
    names = [w["pin"].split("==")[0].lower() for w in manifest["wheel"]]
    assert len(names) == len(set(names)), "one version of each wheel: two stop the install"
    for wheel in manifest["wheel"]:
        assert "==" in wheel["pin"] and wheel["why"], f"{wheel} must be pinned and say why"


def test_the_wheel_download_is_for_the_machines_python_and_platform(bench_metal):
    command = bench_metal.download_command(Path("/tmp/w"))
    assert command[command.index("--python-version") + 1] == "3.12", (
        f"the wheel download must be for the machine's Python 3.12; the command is {command}"
    )
    assert "--no-deps" in command and "--only-binary=:all:" in command, (
        f"the wheel download must be --no-deps --only-binary=:all:; the command is {command}"
    )
    assert "manylinux_2_28_x86_64" in command and "libcst==1.9.0" in command, (
        "the wheel download must be libcst==1.9.0 for manylinux_2_28_x86_64; the command is "
        f"{command}"
    )


@pytest.fixture
def bench_metal():
    """bench/metal.py, the driver of `make metal` (bench/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_metal", ROOT / "bench" / "metal.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def benchmarks_builder():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_benchmarks_md",
                                                  ROOT / "bench" / "build_benchmarks_md.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _as_if_run_on_the_h200() -> dict:
    results = run_metal(_options(), facts=H200)
    results.update(dry_run=False, seconds=212.0, verdict="METAL-PROVEN", command="make metal")
    for step in results["steps"]:
        if step["status"] == "planned":
            step.update(status="passed", seconds=4.5, timeout_s=60)
    group = next(s for s in results["steps"] if s["name"] == "group gloo-cuda w3")
    group["detail"] = {"start_method": "fork", "start_seconds": 2.1, "round_trip_seconds": 0.004,
                       "hang": {"ok": True, "seconds": 4.2, "message": "x.py:1: f on world=3 "
                                "gloo-cuda (METAL): rank 2 skipped all_reduce #1: returned"}}
    suites = next(s for s in results["steps"] if s["name"] == "suites")
    suites["detail"] = {"counts": {"passed": 1}, "skip_reasons": [], "cases": [
        {"id": "tests/metal/test_x.py::test_y[gloo-cuda-w3]", "outcome": "passed",
         "seconds": 1.25, "message": ""}]}
    return results


def test_a_gpu_run_becomes_the_metal_section_of_benchmarks(tmp_path, benchmarks_builder):
    (tmp_path / "metal.json").write_text(json.dumps(_as_if_run_on_the_h200()))
    section = benchmarks_builder.metal_section(tmp_path)
    for shown in ("## METAL", "GPU NVIDIA H200", "driver 580.159.03", "Python 3.12.3",
                  "torch 2.11.0+cu130 (CUDA 13.0)", "**METAL-PROVEN**",
                  "| group gloo-cuda w3 | passed | 4.5 s |", "hang arm: named in 4.2 s",
                  "rank 2 skipped all_reduce", "`tests/metal/test_x.py::test_y[gloo-cuda-w3]` | "
                  "passed | 1.25 s", "| group nccl w2 | skipped | - | nccl needs one GPU per rank"):
        assert shown in section, f"the METAL section does not show {shown!r}:\n{section}"


def test_the_metal_section_is_empty_until_a_gpu_run(tmp_path, benchmarks_builder):
    assert "Empty until a GPU run happened" in benchmarks_builder.metal_section(tmp_path), (
        "the METAL section must say Empty until a GPU run happened; it is:\n"
        f"{benchmarks_builder.metal_section(tmp_path)}"
    )
    dry = run_metal(_options(), facts={**H200, "gpu_count": 0})
    (tmp_path / "metal.json").write_text(json.dumps(dry))
    assert benchmarks_builder.metal_section(tmp_path) == benchmarks_builder.METAL_EMPTY, (
        "a dry run must never fill the METAL section")


def test_the_terminal_says_why_each_step_skips():
    results = run_metal(_options(), facts={**H200, "gpu_count": 0, "unavailable": {}})
    text = " ".join(terminal(results).split())
    for step in results["steps"]:
        assert f"why: {step['reason']}" in text, (
            f"the plan does not say why {step['name']} skips ({step['reason']!r}):\n{text}")


JUNIT_ALL_SKIPPED = ('<testsuite><testcase classname="t" name="c[nccl-w2]"><skipped message='
                     '"nccl needs one GPU per rank"/></testcase></testsuite>')


def test_a_suites_step_where_every_case_skipped_proves_nothing(tmp_path):
    writes_junit = ("import sys; open(sys.argv[-1].split('=', 1)[1], 'w').write("
                    f"{JUNIT_ALL_SKIPPED!r})")
    step = Step("suites", "suites", "all skip", [sys.executable, "-c", writes_junit])
    run_steps([step], budget_s=300)
    assert step.status == "failed", (
        f"a METAL suites run in which every case skipped was judged {step.status}: it proves "
        f"nothing about the GPU tier")
    assert step.skip_reason == "no METAL case passed: 1 skipped: nccl needs one GPU per rank", (
        "an all-skipped METAL run must say no METAL case passed with the skip reason; it says "
        f"{step.skip_reason!r}"
    )


def test_a_source_tree_deskcheck_gets_its_entry_points(tmp_path, bench_metal, monkeypatch):
    """On the GPU machine deskcheck is not installed: every pytest the run starts (the sweep's
    own session included) must still load its plugin through the pytest11 entry point."""
    import importlib.metadata

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", not_installed)
    info = bench_metal.write_dist_info(tmp_path)
    (dist,) = [d for d in importlib.metadata.distributions(path=[str(tmp_path)])]
    assert dist.metadata["Name"] == "deskcheck" and info.parent == tmp_path, (
        f"the dist-info must name deskcheck and lie in {tmp_path}; it names "
        f"{dist.metadata['Name']!r} in {info.parent}"
    )
    entry = {(ep.group, ep.name): ep.value for ep in dist.entry_points}
    assert entry[("pytest11", "deskcheck")] == "deskcheck.pytest_plugin", entry
    assert entry[("console_scripts", "deskcheck")] == "deskcheck.cli:main", entry


@pytest.mark.parametrize("installed", [True, False], ids=["installed", "source-tree"])
def test_the_plugin_is_passed_with_p_only_where_deskcheck_is_not_installed(
        monkeypatch, installed):
    """docs/suites.md:386-388: without `-p`, the plugin is passed as `-p
    deskcheck.pytest_plugin` when deskcheck runs from a source tree rather than an install
    (whose pytest11 entry point loads it; passing it twice is a pytest error)."""
    import importlib.metadata

    ours = importlib.metadata.EntryPoint("deskcheck", "deskcheck.pytest_plugin", "pytest11")
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [ours] if installed else [])
    want = [] if installed else ["-p", "deskcheck.pytest_plugin"]
    got = P.plugin_args()
    assert got == want, (
        f"with deskcheck {'installed' if installed else 'run from a source tree'} the METAL "
        f"pytest steps must pass {want or 'no -p'} for the plugin; they pass {got}")
    suites = next(s for s in P.build_plan(H200, _options()) if s.name == "suites").command
    assert ("deskcheck.pytest_plugin" in suites) == (not installed), (
        f"the suites step's command must {'not ' * installed}name the plugin: {suites}")


@pytest.mark.parametrize(("out", "found_gpu", "where"), [
    ("OUT", True, "OUT/metal.json"), ("OUT", False, "OUT/metal.json"),
    ("", True, "bench/results/metal.json"), ("", False, "bench/_work/metal.json")],
    ids=["out-gpu", "out-no-gpu", "gpu", "no-gpu"])
def test_the_results_go_to_out_else_results_for_a_gpu_run_else_work(
        bench_metal, monkeypatch, tmp_path, out, found_gpu, where):
    """docs/suites.md:428-429: `$OUT/metal.json` when OUT is set, else
    bench/results/metal.json when a GPU was found, else bench/_work/metal.json (a dry run
    never overwrites a GPU run's)."""
    monkeypatch.setenv("OUT", str(tmp_path / out) if out else "")
    got = bench_metal.results_path(found_gpu)
    want = tmp_path / where if out else ROOT / where
    assert got == want, (
        f"with OUT {'set' if out else 'unset'} and {'a' if found_gpu else 'no'} GPU found the "
        f"METAL results must go to {where}; they go to {got}")


def test_a_dry_run_for_a_recorded_gpu_machine_never_overwrites_the_gpu_runs_results(
        bench_metal, monkeypatch, tmp_path, capsys):
    """docs/suites.md:428-429: a dry run never overwrites a GPU run's results, even when the
    facts it plans for (`--facts`, the lent H200) show a GPU."""
    monkeypatch.delenv("OUT", raising=False)
    monkeypatch.delenv("DESKCHECK_METAL_SITE", raising=False)
    monkeypatch.setattr(bench_metal, "ROOT", tmp_path)
    monkeypatch.setattr(os, "chdir", lambda path: None)  # main() works from ROOT
    code = bench_metal.main(["--facts", str(Path(__file__).parent / "fixtures" / "h200-facts.json")])
    capsys.readouterr()
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("metal.json"))
    assert code == 0 and written == ["bench/_work/metal.json"], (
        "a dry run for the recorded H200 must write bench/_work/metal.json, never the GPU "
        f"run's bench/results/metal.json; it exited {code} and wrote {written}")
