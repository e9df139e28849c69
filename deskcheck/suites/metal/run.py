"""Run the planned steps, each in its own process group under a time limit drawn from the
run's budget; a step that hangs is killed and reported as ``timeout``, and the run goes on.

Each step's own report is read back: the doctor's JSON (group start, all_reduce, hang arm),
pytest's JUnit XML (every METAL case; the CPU suite's failures and skip reasons), the sweep's
JSON (each mutant's verdict and time).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

from deskcheck.scratch import scratch_folder
from deskcheck.suites.metal.plan import CAPS, FLOORS, Step

TAIL_CHARS = 3000
KILL_GRACE_S = 5.0


def step_timeout(step: Step, later: list[Step], remaining: float) -> float:
    """The step's limit: its cap, less what the later runnable steps need at the least."""
    reserve = sum(FLOORS[s.kind] for s in later if s.status == "planned")
    return min(CAPS[step.kind], remaining - reserve)


def _run_command(command: list[str], timeout_s: float, log: Path) -> tuple[int | None, float]:
    """(exit code or None on timeout, seconds); the whole process group dies on a timeout."""
    began = time.perf_counter()
    with log.open("wb") as handle:
        proc = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code: int | None = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except OSError:
                    break
                try:
                    proc.wait(timeout=KILL_GRACE_S)
                except subprocess.TimeoutExpired:
                    continue
                if sig == signal.SIGTERM:
                    try:  # what the group left behind
                        os.killpg(proc.pid, signal.SIGKILL)
                    except OSError:
                        pass
                break
    return code, time.perf_counter() - began


def _tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace")
    return text if len(text) <= TAIL_CHARS else "...\n" + text[-TAIL_CHARS:]


def junit_cases(path: Path) -> list[dict[str, Any]]:
    """Every test case of a JUnit XML file: id, outcome, seconds, first line of the message."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error"}.get(child.tag, "skipped")
                message = (child.get("message") or child.text or "").strip().splitlines()
                message = message[0][:300] if message else ""
                break
        cases.append({"id": f"{case.get('classname')}::{case.get('name')}", "outcome": outcome,
                      "seconds": round(float(case.get("time") or 0), 3), "message": message})
    return cases


def summarize_cases(cases: list[dict[str, Any]], keep_all: bool) -> dict[str, Any]:
    counts = Counter(c["outcome"] for c in cases)
    skips = Counter(c["message"].removeprefix("Skipped: ") for c in cases
                    if c["outcome"] == "skipped")
    detail: dict[str, Any] = {"counts": dict(counts),
                              "skip_reasons": [{"reason": r, "count": n}
                                               for r, n in skips.most_common(12)]}
    if keep_all:
        detail["cases"] = cases
    else:
        detail["not_passed"] = [c for c in cases if c["outcome"] in ("failed", "error")][:60]
    return detail


def _read_group(stdout_json: str) -> dict[str, Any]:
    data = json.loads(stdout_json[stdout_json.index("{"):])
    return data["groups"][0]


def _read_sweep(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"summary": data.get("summary"), "holds": data.get("holds"),
            "duration_s": data.get("duration_s"),
            "mutants": [{"id": m["id"], "verdict": m["verdict"],
                         "seconds": round(m.get("duration_s", 0.0), 3),
                         "killed_by": m.get("killed_by", [])} for m in data.get("mutants", [])]}


def _execute(step: Step, timeout_s: float, work: Path) -> None:
    command = list(step.command)
    artifact = work / f"{step.name.replace(' ', '-')}"
    if step.kind in ("suites", "cpu-suite"):
        command.append(f"--junitxml={artifact}.xml")
    elif step.kind == "sweep":
        command += ["--json", f"{artifact}.json"]
    log = work / f"{artifact.name}.log"
    step.timeout_s = round(timeout_s, 1)
    code, step.seconds = _run_command(command, timeout_s, log)
    step.output_tail = _tail(log)
    if code is None:
        step.status = "timeout"
        step.skip_reason = f"still running after its {timeout_s:.0f} s limit: killed"
        return
    step.status = "passed" if code == 0 else "failed"
    try:
        if step.kind == "group":
            step.detail = _read_group(log.read_text(encoding="utf-8"))
        elif step.kind in ("suites", "cpu-suite") and Path(f"{artifact}.xml").exists():
            step.detail = summarize_cases(junit_cases(Path(f"{artifact}.xml")),
                                          keep_all=step.kind == "suites")
        elif step.kind == "sweep" and Path(f"{artifact}.json").exists():
            step.detail = _read_sweep(Path(f"{artifact}.json"))
    except (ValueError, KeyError, ET.ParseError, OSError) as exc:
        step.detail = {"unreadable": f"{type(exc).__name__}: {exc}"}
    if code != 0:
        step.skip_reason = step.detail.get("reason") or f"exit code {code}"
        if step.kind == "sweep" and step.detail.get("summary"):
            step.skip_reason += ": " + ", ".join(
                f"{n} {v}" for v, n in sorted(step.detail["summary"].items()))
        hang = step.detail.get("hang") or {}
        if step.kind == "group" and not hang.get("ok", True) and not hang.get("skipped"):
            step.skip_reason = "hang arm: " + hang.get("reason", "failed")
        if step.kind == "suites" and code == 5:
            step.skip_reason = "exit code 5: no METAL test was collected"
    elif step.kind == "suites" and not step.detail.get("counts", {}).get("passed"):
        step.status = "failed"  # all skipped proves nothing
        step.skip_reason = "no METAL case passed: " + ("; ".join(
            f"{s['count']} skipped: {s['reason']}" for s in step.detail.get("skip_reasons", []))
            or "none ran")


def run_steps(steps: list[Step], budget_s: float) -> None:
    """Run every planned step in order, within ``budget_s`` seconds in all."""
    began = time.monotonic()
    with scratch_folder("deskcheck-metal-") as tmp:
        for index, step in enumerate(steps):
            if step.status != "planned":
                continue
            remaining = budget_s - (time.monotonic() - began)
            timeout_s = step_timeout(step, steps[index + 1:], remaining)
            if timeout_s < FLOORS[step.kind]:
                step.status = "skipped"
                step.skip_reason = (f"the run's {budget_s:.0f} s budget is spent: {remaining:.0f} "
                                    f"s left, this step needs at least {FLOORS[step.kind]:.0f} s")
                continue
            print(textwrap.fill(f"-> {step.name}: {step.title} (limit {timeout_s:.0f} s)", 80,
                                subsequent_indent="     "), flush=True)
            _execute(step, timeout_s, Path(tmp))
            print(textwrap.fill(f"   {step.status} in {step.seconds:.1f} s"
                                + (f": {step.skip_reason}" if step.skip_reason else ""), 80,
                                subsequent_indent="     "), flush=True)
