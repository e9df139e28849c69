"""The METAL run in words: the terminal plan/result, the JSON results file, the Markdown
section (docs/BENCHMARKS.md, a CI job summary). The same words in all three."""

from __future__ import annotations

import json
import shlex
import textwrap
from pathlib import Path
from typing import Any

GPU_KINDS = ("group", "suites", "sweep")


def verdict(steps: list[dict[str, Any]], dry_run: bool) -> str:
    """DRY RUN | FALLS SHORT (a GPU step failed or hung) | METAL-PROVEN | NOT PROVEN."""
    if dry_run:
        return "DRY RUN"
    gpu = [s for s in steps if s["kind"] in GPU_KINDS]
    if any(s["status"] in ("failed", "timeout", "error") for s in gpu):
        return "FALLS SHORT"
    ran = {s["kind"] for s in gpu if s["status"] == "passed"}
    return "METAL-PROVEN" if {"group", "suites"} <= ran else "NOT PROVEN"


def machine_line(facts: dict[str, Any]) -> str:
    gpus = facts.get("gpus") or []
    names = ", ".join(sorted({g["name"] for g in gpus}))
    count = f"{len(gpus)} x " if len(gpus) > 1 else ""
    driver = facts.get("driver") or "none"
    torch = facts.get("torch") or "not installed"
    cuda = facts.get("torch_cuda")
    torch_text = f"torch {torch}" + (f" (CUDA {cuda})" if cuda else " (CPU-only)")
    gpu_text = f"GPU {count}{names}" if gpus else "no GPU"
    return (f"{gpu_text}; driver {driver}; Python {facts.get('python')}; "
            f"{torch_text}; NCCL {facts.get('nccl') or 'none'}")


def _step_detail(step: dict[str, Any]) -> list[str]:
    detail = step.get("detail") or {}
    lines: list[str] = []
    if step["kind"] == "group" and "start_method" in detail:
        lines.append(f"{detail['start_method']}: group start {detail['start_seconds']:.3f} s, "
                     f"all_reduce {detail['round_trip_seconds'] * 1000:.1f} ms")
        hang = detail.get("hang") or {}
        if hang.get("ok"):
            lines.append(f"hang arm: named in {hang['seconds']:.1f} s: "
                         + hang["message"].split(": ", 2)[-1])
        elif hang:
            lines.append(("hang arm skipped: " if hang.get("skipped") else "hang arm FAILED: ")
                         + hang["reason"])
    elif step["kind"] == "group" and detail.get("reason"):
        lines.append("cannot run: " + detail["reason"])
    counts = detail.get("counts")
    if counts:
        lines.append(", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
        lines += [f"{s['count']} skipped: {s['reason']}" for s in detail.get("skip_reasons", [])]
        lines += [f"{c['outcome']}: {c['id']}: {c['message']}"
                  for c in detail.get("not_passed", [])]
        lines += [f"{c['outcome']}: {c['id']}: {c['message']}"
                  for c in detail.get("cases", []) if c["outcome"] in ("failed", "error")]
    if detail.get("summary"):
        lines.append(", ".join(f"{n} {v}" for v, n in sorted(detail["summary"].items())))
    return lines


def heading(results: dict[str, Any]) -> str:
    """The first lines: what kind of run, on which machine."""
    head = "deskcheck METAL " + ("plan (dry run: nothing runs)" if results["dry_run"] else "run")
    return head + "\n" + textwrap.fill("machine: " + machine_line(results["machine"]), 80,
                                       subsequent_indent="  ") + "\n"


def terminal(results: dict[str, Any]) -> str:
    """The run (or the plan) for a person at an 80-column terminal."""
    out = [heading(results).rstrip("\n")]
    for step in results["steps"]:
        status = step["status"].upper()
        out.append(textwrap.fill(f"{status:8} {step['name']}: {step['title']}", 80,
                                 subsequent_indent="           "))
        if step["reason"]:
            why = "why: " if step["status"] == "skipped" else ""
            out.append(textwrap.fill(why + step["reason"], 80, initial_indent="         ",
                                     subsequent_indent="           "))
        if step["status"] in ("planned", "skipped"):
            out.append(textwrap.fill("would run: " + shlex.join(step["command"]), 80,
                                     initial_indent="         ", subsequent_indent="           "))
        else:
            out.append(f"         {step['seconds']:.1f} s (limit {step['timeout_s']:.0f} s)")
        reason = step["reason"] or ""
        out += [textwrap.fill(line, 80, initial_indent="         ",
                              subsequent_indent="           ") for line in _step_detail(step)
                if line not in reason and line.removeprefix("cannot run: ") not in reason]
    out.append(f"verdict: {results['verdict']} ({results['seconds']:.1f} s)")
    return "\n".join(out) + "\n"


def markdown(results: dict[str, Any]) -> str:
    """A level-2 Markdown section (docs/BENCHMARKS.md's METAL section, a CI job summary)."""
    facts = results["machine"]
    cvd = facts.get("cuda_visible_devices")
    out = ["## METAL: the GPU tier on a real GPU", "",
           f"`{results.get('command', 'deskcheck suites metal')}` on {results['started']} "
           f"({results['seconds']:.0f} s in all, budget {results['budget_s']:.0f} s): "
           f"**{results['verdict']}**.", "",
           f"- machine: {machine_line(facts)}",
           f"- {facts.get('cpus')} CPUs, {facts.get('machine')}, CUDA_VISIBLE_DEVICES "
           + ("unset" if cvd is None else repr(cvd)), "",
           "| step | status | time | what it showed |", "|---|---|---|---|"]
    for step in results["steps"]:
        reason = step["reason"] or ""
        lines = [line for line in _step_detail(step) if line not in reason
                 and line.removeprefix("cannot run: ") not in reason]
        shown = "; ".join(([reason] if reason else []) + lines[:6])
        shown = shown.replace("|", "\\|").replace("\n", " ")
        time_text = f"{step['seconds']:.1f} s" if step["seconds"] else "-"
        out.append(f"| {step['name']} | {step['status']} | {time_text} | {shown} |")
    cases = next((s["detail"].get("cases") for s in results["steps"]
                  if s["kind"] == "suites" and s.get("detail")), None)
    if cases:
        out += ["", "METAL cases:", "", "| case | outcome | time |", "|---|---|---|"]
        out += [f"| `{c['id']}` | {c['outcome']} | {c['seconds']:.2f} s |" for c in cases]
    mutants = next((s["detail"].get("mutants") for s in results["steps"]
                    if s["kind"] == "sweep" and s.get("detail")), None)
    if mutants:
        out += ["", "CUDA mutants:", "", "| mutant | verdict | time |", "|---|---|---|"]
        out += [f"| `{m['id']}` | {m['verdict']} | {m['seconds']:.2f} s |" for m in mutants]
    differs = next((s["detail"].get("not_passed") for s in results["steps"]
                    if s["kind"] == "cpu-suite" and s.get("detail")), None)
    if differs:
        out += ["", "The CPU suite on this machine (Python and torch differ from the project's "
                    "standard machine): what did not pass", "",
                "| test | outcome | message |", "|---|---|---|"]
        out += [f"| `{c['id']}` | {c['outcome']} | {c['message'].replace('|', '/')} |"
                for c in differs]
    return "\n".join(out) + "\n"


def write_json(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
