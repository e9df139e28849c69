"""The METAL plan: which steps run on this machine, with which command and time limit, and
the precise reason each other step is skipped.

Built from the machine's facts (:mod:`deskcheck.suites.metal.facts`), so the same plan can be
drawn for a recorded machine (``--facts``) on a machine without a GPU: that is the dry run.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from typing import Any

GLOO_CUDA_WORLDS = (2, 3)
HANG_TIMEOUT_S = 3.0
NEEDS = {  # modules each kind of step imports (beyond the standard library and deskcheck)
    "group": ("torch",),
    "suites": ("pytest", "hypothesis", "torch"),
    "sweep": ("pytest", "libcst", "rich", "torch"),
    "cpu-suite": ("pytest", "xdist"),
}
CAPS = {"group": 60.0, "suites": 180.0, "sweep": 150.0, "cpu-suite": 300.0}
FLOORS = {"group": 10.0, "suites": 40.0, "sweep": 40.0, "cpu-suite": 60.0}


@dataclass
class MetalOptions:
    """What ``deskcheck suites metal`` was asked to do."""

    python: str
    tests: list[str] = field(default_factory=list)  # empty: pytest's own testpaths
    catalog: str | None = None
    cpu_suite: bool = False
    cpu_workers: int = 8
    budget_s: float = 450.0
    hang_timeout_s: float = HANG_TIMEOUT_S
    dry_run: bool = False


@dataclass
class Step:
    """One step: a command with a time limit, or the reason it does not run here."""

    name: str
    kind: str  # group | suites | sweep | cpu-suite
    title: str
    command: list[str]
    skip_reason: str | None = None
    status: str = "planned"  # planned | passed | failed | timeout | skipped | error
    seconds: float = 0.0
    timeout_s: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)
    output_tail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "title": self.title,
                "command": self.command, "status": self.status, "reason": self.skip_reason,
                "seconds": round(self.seconds, 3), "timeout_s": self.timeout_s,
                "detail": self.detail, "output_tail": self.output_tail}


def plugin_args() -> list[str]:
    """``-p deskcheck.pytest_plugin`` when deskcheck runs from a source tree (``PYTHONPATH``)
    rather than an install whose ``pytest11`` entry point loads the plugin by itself."""
    installed = any(ep.value == "deskcheck.pytest_plugin"
                    for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "deskcheck.pytest_plugin"]


def _nccl_worlds(facts: dict[str, Any]) -> list[int]:
    """1 .. the GPU count, and at least 2: world 2 always shows, naming why the NCCL hang arm
    cannot run where there is one GPU."""
    return list(range(1, max(2, int(facts.get("gpu_count") or 0)) + 1))


def _missing(kind: str, facts: dict[str, Any]) -> str | None:
    missing = [m for m in NEEDS[kind] if m in facts.get("missing_modules", [])]
    if not missing:
        return None
    return (f"needs {', '.join(missing)}, not importable with {facts.get('executable')} "
            f"(carry it as a wheel: pip install --no-index --target DIR, DIR on PYTHONPATH)")


def _no_gpu(facts: dict[str, Any]) -> str | None:
    if int(facts.get("gpu_count") or 0) > 0:
        return None
    return ("no GPU here (" + str(facts.get("count_how") or facts.get("torch_error")) + ")")


def build_plan(facts: dict[str, Any], options: MetalOptions) -> list[Step]:
    """Every step in run order; those that cannot run here carry their reason."""
    py = options.python
    steps: list[Step] = []
    unavailable = facts.get("unavailable", {})
    for backend, worlds in (("nccl", _nccl_worlds(facts)), ("gloo-cuda", GLOO_CUDA_WORLDS)):
        for world in worlds:
            hang = " + hang arm" if world >= 2 else ""
            reason = unavailable.get(f"{backend}-w{world}")
            if reason is None and f"{backend}-w{world}" not in unavailable:
                reason = _no_gpu(facts) or "not probed by the machine facts"
            steps.append(Step(
                f"group {backend} w{world}", "group",
                f"{backend} group at world {world}: start, all_reduce on the device{hang}",
                [py, "-m", "deskcheck.cli", "suites", "doctor", "--backend", backend,
                 "--world", str(world), "--hang", "--hang-timeout", f"{options.hang_timeout_s:g}",
                 "--json"],
                reason or _missing("group", facts)))
    tests = list(options.tests)
    steps.append(Step(
        "suites", "suites", "METAL-tier suites (-m metal) on nccl and gloo-cuda, every world",
        [py, "-m", "pytest", *plugin_args(), "-m", "metal", "--deskcheck-backend", "nccl",
         "--deskcheck-backend", "gloo-cuda", "-p", "no:randomly", "-q", "-rs",
         "--continue-on-collection-errors", *tests],
        _no_gpu(facts) or _missing("suites", facts)))
    if options.catalog:
        sweep_reason = _no_gpu(facts) or _missing("sweep", facts)
    else:
        sweep_reason = "no --catalog given: there is no CUDA mutant catalog to sweep"
    steps.append(Step(
        "sweep", "sweep", f"mutant sweep of {options.catalog or '(none)'}: owners run CUDA code "
                          "in spawned ranks (import hook, spawn fallback)",
        [py, "-m", "deskcheck.cli", "sweep",
         *(["--catalog", str(options.catalog)] if options.catalog else []), "--no-store",
         "--workers", "2"], sweep_reason))
    if not options.cpu_suite:
        cpu_reason = "not asked for (--cpu-suite)"
    else:
        cpu_reason = _no_gpu(facts)
        if cpu_reason:
            cpu_reason += ": the CPU suite is run here only to record how it fares on a GPU " \
                          "machine's Python and torch; on this machine it is the ordinary run"
        cpu_reason = cpu_reason or _missing("cpu-suite", facts)
    steps.append(Step(
        "cpu-suite", "cpu-suite",
        f"the rest of the suite once (-m 'not metal', -n {options.cpu_workers})",
        [py, "-m", "pytest", *plugin_args(), "-m", "not metal", "-n", str(options.cpu_workers),
         "--dist", "loadgroup", "-p", "no:randomly", "-q", "--continue-on-collection-errors",
         *tests], cpu_reason))
    for step in steps:
        if step.skip_reason:
            step.status = "skipped"
    return steps
