"""Gate runs in the results store: each ``redfirst`` / ``regress`` that reaches a verdict is
a run of its kind (``deskcheck history --kind redfirst``), unless ``--no-store``."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from typing import Any

from deskcheck.config import load_config


def gate_summary(payload: dict[str, Any]) -> dict[str, Any]:
    """What ``history`` shows for a gate run, from the gate's JSON report."""
    counts = payload.get("counts", {})
    if payload.get("command") == "redfirst":
        tests = len(payload.get("tests", []))
        failing = counts.get("GREEN_ON_BASE", 0) + counts.get("RED_ON_BRANCH", 0)
        return {"tests": tests, "held": tests - failing, "counts": counts,
                "holds": payload.get("holds", False)}
    branch = payload.get("sides", {}).get("branch", {}).get("counts", {})
    return {"tests": sum(branch.values()), "counts": counts, "holds": payload.get("holds", False)}


def record_gate(kind: str, payload: dict[str, Any]) -> int:
    """Record one finished gate run (``payload``: its JSON report) in the project's store;
    its run id."""
    from deskcheck import __version__
    from deskcheck.report import RunRecord, Store

    context = payload.get("context", {})
    now = datetime.now(UTC).isoformat(timespec="seconds")
    run = RunRecord(kind=kind, commit=context.get("head", ""), branch=context.get("ref", ""),
                    started_at=now, machine=platform.node(), deskcheck_version=__version__)
    with Store.for_project(load_config().root) as store:
        run_id = store.begin_run(run)
        store.finish_run(run_id, "holds" if payload.get("holds") else "falls_short",
                         gate_summary(payload))
    return run_id
