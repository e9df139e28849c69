"""Build the SGLang proving-ground venv: SGLang 0.5.23 importable on a CPU machine.

``make sglang-env`` (or ``python3 bench/sglang_env.py [--dir DIR]``) makes a fresh venv from
committed, pinned lists and checks that the seven scheduler-side modules import:

1. ``torch==2.13.0`` (the local CPU wheel) and the packages of ``sglang_requirements.txt``,
   under ``sglang_constraints.txt`` (every package of a built env, pinned), so that nothing
   installed on the side moves a pin;
2. ``pip install --no-deps sglang==0.5.23`` (its metadata asks for CUDA-only wheels), with
   the few packages of ``sglang_nodeps_requirements.txt`` (their metadata wants triton);
3. the two stand-in modules of ``bench/sglang_standin_modules/`` (SGLang's own triton mock,
   loaded without its platform gate, and a catch-all ``torchvision``), with a ``.pth`` line;
4. the import check: ``sglang.srt.managers.scheduler`` and six more, each timed, in a fresh
   interpreter with ``CUDA_VISIBLE_DEVICES`` unset (SGLang's ``sglang/test/test_utils.py``
   raises IndexError at import when it is set to "").

A built env carries a stamp (a hash of the lists and the stand-in modules); a second run with
the same inputs only repeats the import check. Nothing of SGLang is committed: the env lives
under ``bench/_work/sglang-env`` unless ``--dir`` or ``SGLANG_ENV`` says otherwise.
Other benchmarks call :func:`sglang_python`, which says how to build the env when it is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / "_work" / "sglang-env"
REQUIREMENTS = HERE / "sglang_requirements.txt"
CONSTRAINTS = HERE / "sglang_constraints.txt"
DESKCHECK_REQUIREMENTS = HERE / "sglang_deskcheck_requirements.txt"
NODEPS_REQUIREMENTS = HERE / "sglang_nodeps_requirements.txt"
STANDINS = HERE / "sglang_standin_modules"
STAMP = ".deskcheck-sglang-env.json"
TORCH = "torch==2.13.0"
SGLANG = "sglang==0.5.23"
MODULES = (
    "sglang.srt.managers.scheduler",
    "sglang.srt.managers.schedule_policy",
    "sglang.srt.managers.schedule_batch",
    "sglang.srt.managers.tokenizer_manager",
    "sglang.srt.mem_cache.radix_cache",
    "sglang.srt.disaggregation.decode",
    "sglang.srt.disaggregation.prefill",
)
BUILD_HINT = ("build it with `make sglang-env` (about 4-6 minutes on 2 cores, 1.8 GB), or "
              "`python3 bench/sglang_env.py --dir DIR` and SGLANG_ENV=DIR")

_CHECK = """
import importlib, json, sys, time
times = {}
for name in sys.argv[1:]:
    started = time.perf_counter()
    importlib.import_module(name)
    times[name] = time.perf_counter() - started
print(json.dumps(times))
"""


def env_dir() -> Path:
    """Where the env is: ``SGLANG_ENV`` when set, else bench/_work/sglang-env."""
    return Path(os.environ.get("SGLANG_ENV") or DEFAULT_DIR)


def sglang_python(directory: Path | None = None) -> Path:
    """The env's python; exits with how to build the env when it is not there."""
    directory = directory or env_dir()
    python = directory / "bin" / "python"
    if not (directory / STAMP).is_file() or not python.exists():
        sys.exit(f"no SGLang env at {directory}: {BUILD_HINT}")
    return python


def child_env() -> dict[str, str]:
    """The environment for SGLang processes: CUDA_VISIBLE_DEVICES unset (not ""), bytecode
    written (importing the scheduler compiles hundreds of modules), no outer venv or path."""
    drop = {"CUDA_VISIBLE_DEVICES", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def inputs_hash() -> str:
    digest = hashlib.sha256()
    for path in [REQUIREMENTS, CONSTRAINTS, NODEPS_REQUIREMENTS, *sorted(STANDINS.iterdir())]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _pip(python: Path, *args: str) -> None:
    command = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               *args]
    print("$", " ".join(command[2:]), flush=True)
    subprocess.run(command, check=True, env=child_env())


def site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                          "['purelib'])"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def install_standins(python: Path) -> Path:
    """Copy the stand-in modules and their ``.pth`` into the env's site-packages."""
    target = site_packages(python)
    for path in STANDINS.iterdir():
        if path.suffix in {".py", ".pth"}:
            shutil.copy2(path, target / path.name)
    return target


def build(directory: Path, *, fresh: bool = True) -> dict[str, float]:
    """Create the venv (``fresh``: from nothing; else bring an existing one up to the lists)
    and install everything; returns the seconds of each step."""
    steps: dict[str, float] = {}
    started = time.perf_counter()
    python = directory / "bin" / "python"
    if fresh or not python.exists():
        if directory.exists():
            shutil.rmtree(directory)
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
    steps["venv"] = time.perf_counter() - started
    started = time.perf_counter()
    _pip(python, TORCH, "-r", str(REQUIREMENTS), "-c", str(CONSTRAINTS))
    steps["packages"] = time.perf_counter() - started
    started = time.perf_counter()
    _pip(python, "--no-deps", SGLANG, "-r", str(NODEPS_REQUIREMENTS))
    install_standins(python)
    steps["sglang"] = time.perf_counter() - started
    return steps


def add_deskcheck_deps(python: Path) -> float:
    """deskcheck's own dependencies into the env (not deskcheck: PYTHONPATH brings the checkout)."""
    started = time.perf_counter()
    _pip(python, "-r", str(DESKCHECK_REQUIREMENTS), "-c", str(CONSTRAINTS))
    return time.perf_counter() - started


def deskcheck_env(python: Path, root: Path) -> dict[str, str]:
    """The environment to run deskcheck from checkout ``root`` with the SGLang env's python."""
    env = child_env()
    env["PYTHONPATH"] = str(root)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def import_check(python: Path) -> dict[str, float]:
    """Import the seven modules in one fresh interpreter; seconds each (cumulative order)."""
    out = subprocess.run([str(python), "-c", _CHECK, *MODULES], capture_output=True, text=True,
                         env=child_env())
    if out.returncode:
        sys.exit(f"import check failed in {python}:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file() and not p.is_symlink())


def record(result: dict, load_before: float) -> None:
    """bench/results/sglang_env.md: what this build measured (``--record``)."""
    how = "from nothing" if result["built"] and "packages" in result["steps"] else \
        ("updated in place" if result["built"] else "already built: import check only")
    steps = "\n".join(f"| {k} | {v:.1f} s |" for k, v in result["steps"].items())
    imports = "\n".join(f"| `{k}` | {v:.2f} s |" for k, v in result["imports"].items())
    (HERE / "results" / "sglang_env.md").write_text(f"""# The SGLang proving-ground env

`make sglang-env` ({how}): **{result['seconds']:.0f} s** wall on {result['cores']} cores
(load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end: the
machine is shared), {result['size_mb'] or '-'} MB; goal: from nothing in <= 6 minutes.
Pinned lists: bench/sglang_requirements.txt, sglang_constraints.txt,
sglang_nodeps_requirements.txt; torch==2.13.0 (CPU), sglang==0.5.23 `--no-deps`, SGLang's own
triton mock and a catch-all torchvision (bench/sglang_standin_modules/).

| step | time |
|---|---|
{steps}

Import check, one fresh interpreter, CUDA_VISIBLE_DEVICES unset (cumulative: the first
import brings in most of the others; it also compiles SGLang's bytecode on a first run):

| module | import |
|---|---|
{imports}
""", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the venv goes (default: $SGLANG_ENV or bench/_work/sglang-env)")
    parser.add_argument("--rebuild", action="store_true",
                        help="rebuild from nothing (default: build when absent, update in "
                             "place when the pinned lists changed, else only check)")
    parser.add_argument("--check", action="store_true",
                        help="only run the import check on an existing env")
    parser.add_argument("--with-deskcheck", action="store_true",
                        help="also install deskcheck's own dependencies (sglang_deskcheck_"
                             "requirements.txt), for running deskcheck with the env's python")
    parser.add_argument("--record", action="store_true",
                        help="write the build's numbers to bench/results/sglang_env.md")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    directory = (args.dir or env_dir()).resolve()
    python = directory / "bin" / "python"
    stamp = directory / STAMP
    wanted = inputs_hash()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    steps: dict[str, float] = {}
    built = False
    if args.check:
        python = sglang_python(directory)
    elif args.rebuild or not stamp.is_file():
        steps = build(directory)
        built = True
    elif json.loads(stamp.read_text())["inputs"] != wanted:  # the lists moved: update in place
        steps = build(directory, fresh=False)
        built = True
    else:
        install_standins(python)  # cheap; keeps the stand-ins current
    if args.with_deskcheck:
        steps["deskcheck deps"] = add_deskcheck_deps(python)
    imports = import_check(python)
    total = time.perf_counter() - started
    if built:
        stamp.write_text(json.dumps({"inputs": wanted, "build_s": round(total, 1),
                                     "steps": {k: round(v, 1) for k, v in steps.items()},
                                     "python": str(python)}, indent=1))
    result = {"dir": str(directory), "python": str(python), "built": built,
              "seconds": round(total, 1), "steps": {k: round(v, 1) for k, v in steps.items()},
              "imports": {k: round(v, 2) for k, v in imports.items()},
              "size_mb": round(_size(directory) / 2**20) if built else None,
              "cores": os.cpu_count(), "python_version": sysconfig.get_python_version()}
    if args.record:
        record(result, load)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"SGLang env {'built' if built else 'up to date'}: {directory} ({total:.0f} s"
          + (f", {result['size_mb']} MB" if built else "") + ")")
    for step, seconds in steps.items():
        print(f"  {step:<10} {seconds:6.1f} s")
    print("import check (fresh interpreter, CUDA_VISIBLE_DEVICES unset):")
    for name, seconds in imports.items():
        print(f"  ok  {name:<42} {seconds:6.2f} s")
    print(f"run a test: env -u CUDA_VISIBLE_DEVICES {python} -m pytest -q <SGLang test file>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
