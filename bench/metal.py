"""`make metal`: deskcheck's METAL tier on a lent GPU machine, in one call of at most 8 minutes.

Runs ``deskcheck suites metal`` over this repository: groups and the hang-naming arm on
nccl and gloo-cuda at every world the GPUs allow, the ``-m metal`` suites, the CUDA mutant
catalog ``tests/metal/mutants.toml`` (owners in spawned ranks), and once the rest of the
suite (``-m 'not metal'``, ``-n 8``: the project's only Python 3.12 + other-torch run).

Results: ``$OUT/metal.json`` when ``OUT`` is set (the device tool's folder), else
``bench/results/metal.json`` for a run that found a GPU, else ``bench/_work/metal.json``
(a dry run never overwrites a GPU run's results). ``bench/build_benchmarks_md.py`` turns
``bench/results/metal.json`` into the METAL section of docs/BENCHMARKS.md.

``--download-wheels`` (``make metal-wheels``) fetches the pinned wheels of
``.ci/metal-wheels.toml`` into ``.whl/`` for Python 3.12 manylinux x86-64.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / ".ci" / "metal-wheels.toml"
WHEELS = ROOT / ".whl"
CATALOG = "tests/metal/mutants.toml"
BUDGET_S = 450.0  # 7.5 minutes: the device call gets 8, and 15 in all leaves a rerun
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64")
DESKCHECK_NEEDS = ("pytest", "xdist", "hypothesis", "rich", "libcst", "torch")


def manifest() -> dict:
    return tomllib.loads(MANIFEST.read_text(encoding="utf-8"))


def needed_modules() -> list[str]:
    """Every module the METAL steps import that is not in the standard library: deskcheck's
    dependencies and the carried wheels' modules (reported missing by the facts probe)."""
    carried = [m for wheel in manifest()["wheel"] for m in wheel["modules"]]
    return list(dict.fromkeys([*DESKCHECK_NEEDS, *carried]))


def download_command(dest: Path) -> list[str]:
    data = manifest()
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", data["machine"]["python"], "--implementation", "cp"]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    return command + ["-d", str(dest)] + [w["pin"] for w in data["wheel"]]


def download_wheels() -> int:
    WHEELS.mkdir(exist_ok=True)
    for old in WHEELS.glob("*.whl"):  # one version of each: two stop the install there
        old.unlink()
    return subprocess.run(download_command(WHEELS), cwd=ROOT).returncode


def write_dist_info(site: Path) -> Path | None:
    """Make deskcheck, run from this tree through PYTHONPATH, look installed to
    importlib.metadata (as an editable install does): its ``pytest11`` entry point then loads
    the plugin in every pytest the run starts (the sweep's, the tests' own). None when a
    deskcheck distribution is importable already."""
    import importlib.metadata

    try:
        importlib.metadata.distribution("deskcheck")
        return None
    except importlib.metadata.PackageNotFoundError:
        pass
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"deskcheck-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: deskcheck\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    groups = {"console_scripts": project.get("scripts", {}), **project.get("entry-points", {})}
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items())
        + "\n" for group, entries in groups.items()), encoding="utf-8")
    (info / "INSTALLER").write_text("make metal (source tree on PYTHONPATH)\n", encoding="utf-8")
    return info


def results_path(found_gpu: bool) -> Path:
    if os.environ.get("OUT"):
        return Path(os.environ["OUT"]) / "metal.json"
    if found_gpu:
        return ROOT / "bench" / "results" / "metal.json"
    return ROOT / "bench" / "_work" / "metal.json"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true",
                        help="say what would run and why each part skips; run nothing")
    parser.add_argument("--facts", metavar="PATH", help="plan for a recorded machine (dry run)")
    parser.add_argument("--budget", type=float, default=BUDGET_S, metavar="SECONDS")
    parser.add_argument("--json", metavar="PATH", help="results file (default: see above)")
    parser.add_argument("--download-wheels", action="store_true",
                        help="fetch .ci/metal-wheels.toml's pins into .whl/ (make metal-wheels)")
    args = parser.parse_args(argv)
    if args.download_wheels:
        return download_wheels()
    os.chdir(ROOT)
    site = os.environ.get("DESKCHECK_METAL_SITE")
    if site and not args.dry_run and not args.facts:
        written = write_dist_info(Path(site))
        if written:
            print(f"deskcheck runs from {ROOT} (entry points: {written})")
    from deskcheck.suites.metal import add_arguments, cmd_metal
    from deskcheck.suites.metal.render import write_json

    metal = argparse.ArgumentParser()
    add_arguments(metal)
    forwarded = ["--catalog", CATALOG, "--cpu-suite", "--cpu-workers", "8",
                 "--budget", str(args.budget)]
    forwarded += ["--dry-run"] * args.dry_run + (["--facts", args.facts] if args.facts else [])
    ns = metal.parse_args(forwarded)
    captured: dict = {}
    code = cmd_metal(ns, needs=needed_modules(), command="make metal",
                     on_results=captured.update)
    found_gpu = bool(captured["machine"].get("gpu_count")) and not captured["dry_run"]
    path = Path(args.json) if args.json else results_path(found_gpu)
    write_json(captured, path)
    print(f"results: {path}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
