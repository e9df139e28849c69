"""``deskcheck suites metal``: the METAL tier proven on this GPU machine, in one call.

Prints the GPU, driver, Python, torch and NCCL versions it finds, then runs, each step in its
own process under a time limit drawn from one budget (a hung step is killed and reported):

1. a group per backend and world the GPUs allow (NCCL one GPU per rank; gloo over CUDA
   tensors at world 2 and 3 on any GPU count), an all_reduce on the device, and the
   hang-naming arm (a rank skips the all_reduce and must be named within the timeout);
2. the METAL-tier suites: ``pytest -m metal`` on nccl and gloo-cuda;
3. a mutant sweep of ``--catalog`` (owners that run CUDA code in spawned ranks);
4. with ``--cpu-suite``, the rest of the suite once (``-m 'not metal'``, xdist).

Without a GPU (or with ``--dry-run``) it says what it would run and why each step skips.
Writes the results as JSON (``--json``) and Markdown (``--markdown``). Exit 0 when the METAL
tier is proven (or on a dry run), 1 when a GPU step failed, hung or could not run at all.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deskcheck.suites.metal.plan import MetalOptions, build_plan
from deskcheck.suites.metal.render import heading, markdown, terminal, verdict, write_json
from deskcheck.suites.metal.run import run_steps

FACTS_TIMEOUT_S = 90.0
DEFAULT_NEEDS = ("pytest", "xdist", "hypothesis", "rich", "libcst", "torch")


def probe_facts(python: str, modules: list[str]) -> dict[str, Any]:
    """The machine's facts from a throwaway process (a hung driver costs its timeout only)."""
    try:
        done = subprocess.run([python, "-m", "deskcheck.suites.metal.facts", *modules],
                              capture_output=True, text=True, timeout=FACTS_TIMEOUT_S)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError, OSError) as exc:
        return {"python": sys.version.split()[0], "executable": python, "gpu_count": 0,
                "count_how": f"the facts probe failed: {type(exc).__name__}: {exc}",
                "gpus": [], "missing_modules": []}


def run_metal(options: MetalOptions, facts: dict[str, Any] | None = None,
              needs: list[str] | None = None) -> dict[str, Any]:
    """Plan (from ``facts``, else probed here), run unless a dry run; the results."""
    started = datetime.datetime.now(datetime.UTC)
    began = time.monotonic()
    if facts is None:
        facts = probe_facts(options.python, list(needs or DEFAULT_NEEDS))
    steps = build_plan(facts, options)
    results: dict[str, Any] = {"kind": "deskcheck-metal", "version": 1,
                               "dry_run": options.dry_run,
                               "started": started.strftime("%Y-%m-%d %H:%M UTC"),
                               "budget_s": options.budget_s, "machine": facts}
    if not options.dry_run:
        print(heading(results), end="", flush=True)
        run_steps(steps, options.budget_s - (time.monotonic() - began))
    results["steps"] = [s.to_json() for s in steps]
    results["seconds"] = round(time.monotonic() - began, 1)
    results["verdict"] = verdict(results["steps"], options.dry_run)
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tests", nargs="*", help="test paths (default: pytest's testpaths)")
    parser.add_argument("--catalog", metavar="PATH",
                        help="a mutant catalog whose owners run CUDA code to sweep")
    parser.add_argument("--cpu-suite", action="store_true",
                        help="also run the rest of the suite once (-m 'not metal', xdist)")
    parser.add_argument("--cpu-workers", type=int, default=8, metavar="N",
                        help="xdist workers of the CPU suite (default 8)")
    parser.add_argument("--budget", type=float, default=450.0, metavar="SECONDS",
                        help="the whole run's time limit (default 450); each step gets a "
                             "share and is killed, and reported, past it")
    parser.add_argument("--dry-run", action="store_true",
                        help="say what would run here and why each step skips; run nothing")
    parser.add_argument("--facts", metavar="PATH",
                        help="plan for the machine recorded in this facts JSON (with --dry-run)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the results as Markdown")


def cmd_metal(args: argparse.Namespace, needs: list[str] | None = None,
              command: str = "deskcheck suites metal",
              on_results: Callable[[dict[str, Any]], Any] | None = None) -> int:
    """The command; ``needs``: modules the facts probe checks; ``on_results`` gets the
    results (a driver script that writes them somewhere of its own)."""
    facts = json.loads(Path(args.facts).read_text(encoding="utf-8")) if args.facts else None
    options = MetalOptions(python=sys.executable, tests=args.tests, catalog=args.catalog,
                           cpu_suite=args.cpu_suite, cpu_workers=args.cpu_workers,
                           budget_s=args.budget, dry_run=args.dry_run or bool(args.facts))
    results = run_metal(options, facts, needs)
    results["command"] = command
    sys.stdout.write(terminal(results))
    if args.json:
        write_json(results, Path(args.json))
    if args.markdown:
        Path(args.markdown).write_text(markdown(results), encoding="utf-8")
    if on_results is not None:
        on_results(results)
    return 0 if results["verdict"] in ("DRY RUN", "METAL-PROVEN") else 1
