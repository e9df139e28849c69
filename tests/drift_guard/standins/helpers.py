"""Shared by the standins tests: run discovery on a project folder, pick a stand-in."""

from __future__ import annotations

from pathlib import Path

from deskcheck.config import load_config
from deskcheck.drift_guard.standins.discover import Discovery, discover
from deskcheck.drift_guard.standins.judge import StandInReport


def discover_in(project: Path, *paths: str, **kwargs) -> Discovery:
    config = load_config(project)
    return discover([project / p for p in (paths or ("tests",))], config, **kwargs)


def standin(found: Discovery, built_at: str) -> StandInReport:
    by_site = {r.built_at: r for r in found.reports}
    assert built_at in by_site, (
        f"no stand-in reported as built at {built_at}; discovery reported "
        f"{sorted(by_site)} and problems {[p.where for p in found.problems]}")
    return by_site[built_at]


def names(report: StandInReport, category: str) -> set[str]:
    return {r.name for r in report.records(category)}
