"""The auto sweep, end to end: changed lines -> mutants -> covering tests -> engine -> verdicts."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from deskcheck.mutants.auto.changes import ChangeSet, changed_production_lines
from deskcheck.mutants.auto.coverage_map import Refresh, owners_coverage
from deskcheck.mutants.auto.entry import catalog_entry, suggested_id
from deskcheck.mutants.auto.generate import AutoMutant, Generation, generate_auto_mutants
from deskcheck.mutants.auto.operators import operator_filter
from deskcheck.mutants.auto.owners import CoveragePass
from deskcheck.mutants.auto.settings import AutoSettings
from deskcheck.progress import ProgressReporter
from deskcheck.report.records import HOLDING_VERDICTS, MutantRecord

NO_COVERAGE = "NO_COVERAGE"
NOT_RUN = "NOT_RUN"  # --no-run: generated and owned, not swept
SURVIVOR_VERDICTS = frozenset({"SURVIVED", "OWNER_MISSED"})


@dataclass
class AutoResult:
    """One auto sweep: what changed, what was mutated, who owns it, and the verdicts."""

    settings: AutoSettings
    changes: ChangeSet
    generation: Generation
    coverage: CoveragePass | None
    records: list[MutantRecord]
    mutants: dict[str, AutoMutant]
    owners: dict[str, list[str]]
    started_at: str
    timings: dict[str, float] = field(default_factory=dict)
    coverage_refresh: Refresh | None = None  # the coverage map's refresh (None: no map used)

    @property
    def holds(self) -> bool:
        return all(r.verdict in HOLDING_VERDICTS for r in self.records)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for record in self.records:
            counts[record.verdict] = counts.get(record.verdict, 0) + 1
        return counts

    def survivors(self) -> list[MutantRecord]:
        return [r for r in self.records if r.verdict in SURVIVOR_VERDICTS]


def _auto_detail(mutant: AutoMutant, owners: list[str]) -> dict[str, Any]:
    return {"auto": {
        "path": mutant.path, "line": mutant.line, "column": mutant.column,
        "family": mutant.family, "mutmut_operator": mutant.operator,
        "change": mutant.description, "covering_tests": owners,
        "suggested_id": suggested_id(mutant),
        "catalog_entry": catalog_entry(mutant, owners),
    }}


def _finish_record(record: MutantRecord, mutant: AutoMutant, owners: list[str]) -> MutantRecord:
    record.title = f"{mutant.function}: {mutant.description} ({mutant.family})"
    record.operator = f"auto:{mutant.family}:{mutant.operator}"
    record.source_file = mutant.path
    record.source_line = mutant.line
    record.diff = mutant.diff
    record.owners = record.owners or list(owners)
    record.detail = {**record.detail, **_auto_detail(mutant, owners)}
    return record


def _unswept(mutant: AutoMutant, verdict: str, excerpt: str) -> MutantRecord:
    return MutantRecord(id=mutant.id, title="", target=mutant.target, operator="",
                        verdict=verdict, excerpt=excerpt)


def _sweep(coverage: CoveragePass, changes: ChangeSet, owned: list[AutoMutant],
           owners: dict[str, list[str]], settings: AutoSettings, reporter: Any
           ) -> dict[str, MutantRecord]:
    """The engine's verdicts. A target the engine cannot resolve is BROKEN (named, with the
    engine's message) and the others are swept again without it, instead of failing all."""
    from deskcheck.errors import CatalogError
    from deskcheck.mutants.auto.engine import run_through_engine

    records: dict[str, MutantRecord] = {}
    for _attempt in range(2):
        try:
            sweep = run_through_engine(coverage.rootdir or changes.root, owned, owners,
                                       workers=settings.workers, reporter=reporter,
                                       timeout_s=settings.timeout_s,
                                       timeout_factor=settings.timeout_factor,
                                       wrong_failure_types=settings.wrong_failure_types,
                                       crash_kills=settings.crash_kills)
        except CatalogError as exc:
            located = {e.location: e for e in exc.errors}
            unresolved = [m for m in owned if f"{m.path}:{m.line}" in located]
            if not unresolved or len({f"{m.path}:{m.line}" for m in unresolved}) < len(located):
                raise  # not (only) unresolvable targets: report the engine's error as is
            for mutant in unresolved:
                error = located[f"{mutant.path}:{mutant.line}"]
                records[mutant.id] = _unswept(mutant, "BROKEN", error.render())
            owned = [m for m in owned if m.id not in records]
            if not owned:
                break
            continue
        records.update({r.id: r for r in sweep.records})
        break
    return records


def run_pipeline(settings: AutoSettings, reporter: ProgressReporter | None = None
                 ) -> AutoResult:
    """Run the auto sweep described by ``settings`` (never writes a user file)."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    changes = changed_production_lines(settings.root, settings.changed_since,
                                       settings.test_paths)
    generation = generate_auto_mutants(
        changes, per_line=settings.max_per_line, max_mutants=settings.max_mutants,
        keep=operator_filter(settings.operators), arid_calls=settings.arid_calls)
    timings["generate_s"] = time.perf_counter() - clock
    mutants = {m.id: m for m in generation.mutants}
    result = AutoResult(settings=settings, changes=changes, generation=generation,
                        coverage=None, records=[], mutants=mutants, owners={},
                        started_at=started, timings=timings)
    if not mutants:
        return result
    clock = time.perf_counter()
    paths = sorted({m.path for m in generation.mutants})
    if reporter is not None:  # the coverage pass shows its own counts (deskcheck.progress)
        reporter.line(f"generated {len(mutants)} mutant(s) on the changed lines of "
                      f"{len(paths)} file(s); finding their owners (tests under coverage)")
    coverage, result.coverage_refresh = owners_coverage(
        changes.root, paths, settings.tests, settings.test_paths,
        settings.coverage_timeout_s, settings.use_coverage_map)
    timings["coverage_s"] = time.perf_counter() - clock
    result.coverage = coverage
    result.owners = {m.id: coverage.owners_for(m.path, m.coverage_lines)
                     for m in generation.mutants}
    owned = [m for m in generation.mutants if result.owners[m.id]]
    records: dict[str, MutantRecord] = {
        m.id: _unswept(m, NO_COVERAGE, "no test runs this line (coverage pass over the "
                       "tests, rank and subprocesses included)")
        for m in generation.mutants if not result.owners[m.id]}
    if owned and settings.run_mutants:
        clock = time.perf_counter()
        if reporter is not None:
            reporter.start(f"running {len(owned)} owned mutant(s) against their owners")
        records.update(_sweep(coverage, changes, owned, result.owners, settings, reporter))
        timings["sweep_s"] = time.perf_counter() - clock
    elif owned:
        records.update({m.id: _unswept(m, NOT_RUN, "generated and owned; not run (--no-run)")
                        for m in owned})
    result.records = [_finish_record(records[m.id], m, result.owners[m.id])
                      for m in generation.mutants]
    return result
