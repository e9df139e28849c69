"""The sweep engine: catalog -> targets -> owners -> baseline -> a fork per mutant -> verdicts.

One pytest session runs in this (warm) process and collects the test universe once; the
``SweepPlugin`` then takes over pytest's run loop. Nothing runs tests in the warm process:
the baseline and every mutant run in forked children (so pools of rank processes always
belong to the child that made them, and see its in-memory mutant).

Before that session, ``run_sweep`` takes from the store every verdict it can vouch for
without collecting (``deskcheck.mutants.reuse``); when nothing is left, no session starts.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import pytest

from deskcheck.errors import (
    CatalogError,
    ConfigError,
    DeskcheckError,
    SourceResolutionError,
    UnknownTargetError,
)
from deskcheck.interrupts import as_interrupted
from deskcheck.mutants import crash_verdict, import_guard, procs
from deskcheck.mutants.catalog import Catalog, Mutant, SweepSettings
from deskcheck.mutants.import_hooks import ImportGuardPlugin, uncollected_notes
from deskcheck.mutants.injection import compile_mutated
from deskcheck.mutants.mutated import (
    BrokenMutant,
    MutatedFunction,
    OccurrenceOutOfRange,
    StaleOperator,
)
from deskcheck.mutants.mutation import build_mutation
from deskcheck.mutants.occurrence_check import OCCURRENCE_FIX
from deskcheck.mutants.owner_index import OtherItems, OwnerIndex
from deskcheck.mutants.owners import foreign_kills, resolve_owners
from deskcheck.mutants.pytest_config import config_file, xdist_off
from deskcheck.mutants.reuse import TestUniverse, reuse_before_collection
from deskcheck.mutants.roots import outside_project
from deskcheck.mutants.runner import SCRATCH_PREFIX, Budget, JobOutcome, Runner
from deskcheck.mutants.static_owners import StaticOwners
from deskcheck.mutants.target import resolve
from deskcheck.mutants.verdicts import (
    PROCESS_CRASH,
    ItemResult,
    Verdict,
    crash_kills_rule,
    decide,
)
from deskcheck.mutants.worker import ChildJob
from deskcheck.report.records import MutantRecord
from deskcheck.scratch import make_scratch


def mutant_budget(mutant: Mutant, settings: SweepSettings,
                  durations: dict[str, float]) -> Budget:
    """A mutant's budget (docs/mutants.md): its own ``timeout_s`` (else ``[sweep] timeout_s``)
    + ``timeout_factor`` x the clean durations of the tests it runs; the non-owner search's
    budget is ``search_timeout_s``, by default max(60, 6 x timeout_s)."""
    return Budget(constant=mutant.timeout_s or settings.timeout_s,
                  factor=settings.timeout_factor, baseline=durations,
                  search_s=settings.search_timeout_s or max(60.0, 6 * settings.timeout_s))


class Reporter(Protocol):
    def phase(self, name: str, total: int) -> None: ...
    def advance(self, label: str) -> None: ...


class Recorder(Protocol):
    """Where verdicts are recorded as they are decided (``deskcheck.report.RunRecorder``)."""

    def is_done(self, mutant_id: str) -> bool: ...
    def reuse(self, mutant_id: str, fingerprint: str) -> MutantRecord | None: ...
    def record(self, mutant: MutantRecord) -> None: ...


class _Silent:
    def phase(self, name: str, total: int) -> None:
        pass

    def advance(self, label: str) -> None:
        pass


@dataclass
class SweepOptions:
    catalog: Catalog
    only: Sequence[str] = ()
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    full_matrix: bool = False
    pytest_args: Sequence[str] = ()
    recorder: Recorder | None = None
    # keep only mutants this says are affected (``--changed-since``): (mutant, file, owners)
    affected: Callable[[Mutant, Path, list[Path]], bool] | None = None


@dataclass
class SweepResult:
    records: list[MutantRecord]
    baseline: dict[str, ItemResult]
    started_at: str
    finished_at: str
    duration_s: float
    workers: int
    timing: dict[str, float] = field(default_factory=dict)  # seconds per phase
    session: bool = True  # a pytest session ran (False: every verdict came from the store)
    reused_before_session: int = 0  # verdicts the store gave back before any collection
    notes: list[str] = field(default_factory=list)  # said after the table; never a failure

    @property
    def holds(self) -> bool:
        return all(r.verdict in ("KILLED", "ACCEPTED_SURVIVOR") for r in self.records)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for record in self.records:
            counts[record.verdict] = counts.get(record.verdict, 0) + 1
        return counts


def _record(mutant: Mutant, verdict: str, *, excerpt: str = "", diff: str = "",
            owners: Sequence[str] = (), **extra: Any) -> MutantRecord:
    return MutantRecord(id=mutant.id, title=mutant.title, target=mutant.target,
                        operator=mutant.operator, verdict=verdict, owners=list(owners),
                        excerpt=excerpt, diff=diff, source_file=mutant.catalog_file,
                        source_line=mutant.line, **extra)


def _chunk_name(items: Sequence[pytest.Item]) -> str:
    """``"12 tests: test_ballot.py, test_limits.py +1 file"``: a baseline group as a person
    names it (the files it runs), not a job key."""
    files = list(dict.fromkeys(Path(str(i.path)).name for i in items))
    more = f" +{len(files) - 2} file(s)" if len(files) > 2 else ""
    return f"{len(items)} test(s): {', '.join(files[:2])}{more}"


def _chunks(items: Sequence[pytest.Item], count: int) -> list[list[pytest.Item]]:
    """Split items into ``count`` groups, keeping each test module together."""
    by_module: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_module.setdefault(str(item.path), []).append(item)
    groups: list[list[pytest.Item]] = [[] for _ in range(max(1, count))]
    for module_items in sorted(by_module.values(), key=len, reverse=True):
        min(groups, key=len).extend(module_items)
    return [g for g in groups if g]


class SweepPlugin:
    """A per-sweep pytest plugin: collects once, then runs the sweep instead of the tests.

    Subclass hooks: ``probe_non_owners`` (False: never look for a non-owner kill) and ``_job``.
    """

    probe_non_owners: bool = True
    note_foreign_kills: bool = True  # note kills markers naming ids of no mutant here

    def __init__(self, options: SweepOptions, reporter: Reporter | None = None):
        self.options = options
        self.catalog = options.catalog
        self.mutants = self.catalog.select(list(options.only))
        self.static = StaticOwners(self.catalog, self.mutants)  # the ``uniformity:`` owners
        self.reporter = reporter or _Silent()
        self.collect_errors: dict[Path, str] = {}
        self.result: SweepResult | None = None
        self.error: DeskcheckError | None = None
        self.timing: dict[str, float] = {}
        self.fingerprints: dict[str, str] = {}
        self.owner_files: dict[str, list[Path]] = {}
        self.index: OwnerIndex | None = None
        self._views: list[Any] = []
        self.clean_crashes: set[tuple[str, str, str]] = set()  # crashes clean code has too
        self._clock = time.monotonic()

    def _lap(self, phase: str) -> None:
        now = time.monotonic()
        self.timing[phase] = round(now - self._clock, 3)
        self._clock = now

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.option.tbstyle = "line"  # the failure line + exception text: 10x cheaper than "short"
        # The terminal plugin stays loaded, so the options it owns that a project's addopts
        # give (-ra, -q, -v, --tb, ...) are accepted; its reporter is unregistered (silent).
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            config.pluginmanager.unregister(reporter)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            path = Path(str(report.fspath)).resolve() if report.fspath else Path(report.nodeid)
            self.collect_errors[path] = report.longreprtext

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        capman = session.config.pluginmanager.getplugin("capturemanager")
        if capman is not None:
            capman.suspend_global_capture(in_=True)
        # pytest's base temp folder is made here, once, before the first fork: a child that
        # made it itself would empty it under the children running beside it
        factory = getattr(session.config, "_tmp_path_factory", None)
        if factory is not None:
            factory.getbasetemp()
        try:
            self.result = self._sweep(session)
        except DeskcheckError as exc:
            self.error = exc
        return True

    # -- the steps -------------------------------------------------------------------------

    def _mutations(self, roots: Sequence[Path] = ()
                   ) -> tuple[dict[str, MutatedFunction], dict[str, MutantRecord],
                              list[CatalogError]]:
        mutations: dict[str, MutatedFunction] = {}
        decided: dict[str, MutantRecord] = {}
        errors: list[CatalogError] = []
        for mutant in self.mutants:
            try:
                live = resolve(mutant.target, location=mutant.location)
                why = outside_project(live.function.__code__.co_filename, roots)
                if why is not None:
                    errors.append(CatalogError(
                        f"mutant {mutant.id!r}: target {mutant.target!r} is not this "
                        f"project's code: {why}", location=mutant.location,
                        fix="target a function of the project's own source; deskcheck, "
                            "pytest and the libraries they use run on the code a mutant "
                            "changes"))
                    continue
                mutated = build_mutation(mutant, live)
                compile_mutated(live.function, mutated)
            except (UnknownTargetError, SourceResolutionError) as exc:
                errors.append(CatalogError(exc.message, location=mutant.location, fix=exc.fix))
            except OccurrenceOutOfRange as exc:  # the entry is wrong, not the code: exit 2
                errors.append(CatalogError(f"mutant {mutant.id!r}: {exc}",
                                           location=mutant.location, fix=OCCURRENCE_FIX))
            except StaleOperator as exc:
                decided[mutant.id] = _record(mutant, "STALE", excerpt=str(exc),
                                             owners=mutant.owners)
            except BrokenMutant as exc:
                decided[mutant.id] = _record(mutant, "BROKEN", excerpt=str(exc),
                                             owners=mutant.owners)
            else:
                mutations[mutant.id] = mutated
        return mutations, decided, errors

    def _sweep(self, session: pytest.Session) -> SweepResult:
        started, wall = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
        self._lap("startup_and_collection_s")
        items = list(session.items)
        roots = [self.catalog.root, Path.cwd(), Path(str(session.config.rootpath))]
        mutations, decided, errors = self._mutations(roots)
        strays = import_guard.stop_strays()  # started by importing tests or targets
        self.index = OwnerIndex(items, roots)  # one pass over the universe (issue 13)
        owners, uncollectable, owner_errors = resolve_owners(
            self.mutants, {m.id for m in self.catalog.mutants}, items, roots,
            set(self.collect_errors), index=self.index)
        errors += owner_errors
        errors += self.static.errors(self.mutants)  # runs the clean audit (once) if needed
        notes = foreign_kills(items, {m.id for m in self.catalog.mutants}) \
            if self.note_foreign_kills else []
        if strays:
            notes.insert(0, import_guard.strays_note(strays, "the tests were collected"))
        notes[:0] = uncollected_notes(self.collect_errors, Path(str(session.config.rootpath)))
        self._fingerprint_all(mutations, owners, roots)
        if errors:
            raise CatalogError(f"{len(errors)} problem(s) in catalog {self.catalog.path}",
                               location=str(self.catalog.path), errors=errors)
        for mutant_id, selection in uncollectable.items():
            if mutant_id not in decided:
                mutant = self.catalog.get(mutant_id)
                file_part = selection.partition("::")[0]
                text = next((t for p, t in self.collect_errors.items()
                             if any(p == (r / file_part).resolve() for r in roots)), "")
                decided[mutant_id] = _record(mutant, "BASELINE_RED", excerpt=(
                    f"owner {selection!r} is in a file that does not collect:\n{text[-1500:]}"))
        self._select(owners, mutations, decided)
        for record in decided.values():
            self._record(record)
        to_run = [m for m in self.mutants if m.id not in decided]
        runner = Runner(self.options.workers)
        try:
            baseline_items = {i.nodeid: i for m in to_run for i in owners[m.id]}
            if self.options.full_matrix:
                baseline_items = {i.nodeid: i for i in items}
            self._lap("mutation_s")
            baseline = self._baseline(runner, list(baseline_items.values()))
            self._lap("baseline_s")
            jobs = []
            for mutant in to_run:
                static = self._static_verdict(mutant, mutations[mutant.id], owners[mutant.id])
                if static is not None:  # red on clean code, or only the audit owns it
                    decided[mutant.id] = static
                    self._record(static)
                    continue
                red = [i.nodeid for i in owners[mutant.id]
                       if baseline.get(i.nodeid, ItemResult(i.nodeid, "failed")).outcome
                       != "passed"]
                if red:
                    first = baseline.get(red[0])
                    decided[mutant.id] = _record(
                        mutant, "BASELINE_RED", owners=[i.nodeid for i in owners[mutant.id]],
                        excerpt=f"owner(s) not green on clean code: {', '.join(red)}\n"
                        + (f"{first.message}\n{first.text[-1500:]}" if first else ""))
                    self._record(decided[mutant.id])
                    continue
                jobs.append(self._job(mutant, mutations[mutant.id], owners[mutant.id], items,
                                      baseline))
            self.reporter.phase("mutants", len(jobs))
            records: dict[str, MutantRecord] = {}
            by_id = {m.id: m for m in to_run}

            def judged(outcome: JobOutcome) -> None:
                mutant = by_id[outcome.key]
                record = self._judge(mutant, mutations[mutant.id], owners[mutant.id], outcome,
                                     baseline)
                records[mutant.id] = record
                if not [n for n in record.failed_non_owners if n not in baseline]:
                    self._record(record)  # final now; the others wait for the recheck
                self.reporter.advance(f"{outcome.key} {record.verdict}")

            outcomes = runner.run(jobs, on_done=judged)
            self._lap("mutants_s")
            self._recheck_non_owners(runner, records, owners, mutations, outcomes, items,
                                     baseline)
        finally:
            runner.close()
        decided.update(records)
        ordered = [decided[m.id] for m in self.mutants]
        self._lap("recheck_s")
        return SweepResult(records=ordered, baseline=baseline, started_at=started,
                           finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
                           duration_s=time.monotonic() - wall, workers=runner.workers,
                           timing=dict(self.timing), notes=notes)

    def _select(self, owners: dict[str, list[pytest.Item]],
                mutations: dict[str, MutatedFunction], decided: dict[str, MutantRecord]) -> None:
        """Drop mutants a change cannot affect; take finished or reusable verdicts from the
        store (a resumed run, or an unchanged mutant whose verdict holds)."""
        recorder, affected = self.options.recorder, self.options.affected
        keep = []
        for mutant in self.mutants:
            mutated = mutations.get(mutant.id)
            owner_files = self.owner_files.get(mutant.id, [])
            if affected is not None and mutated is not None and not affected(
                    mutant, Path(mutated.file), owner_files):
                decided.pop(mutant.id, None)
                if recorder is not None and hasattr(recorder, "drop"):
                    recorder.drop(mutant.id)  # not this run's to judge: never "not judged"
                continue
            keep.append(mutant)
            if recorder is None or mutated is None or mutant.id in decided:
                continue
            if recorder.is_done(mutant.id):
                previous = self._stored(mutant.id)
                if previous is not None:
                    decided[mutant.id] = previous
                    continue
            reused = recorder.reuse(mutant.id, self.fingerprints[mutant.id])
            if reused is not None:
                decided[mutant.id] = reused
        self.mutants = keep

    def _fingerprint_all(self, mutations: dict[str, MutatedFunction],
                         owners: dict[str, list[pytest.Item]], roots: list[Path]) -> None:
        """Each mutant's fingerprint over the owner files found on disk (``reuse``), the
        same one computed before a session; widened to the whole test universe when a
        collected owner lies outside those files (a dynamic ``kills`` marker), so such a
        mutant is only ever reused after collecting."""
        universe = TestUniverse(self.catalog, roots=roots)
        for mutant in self.mutants:
            mutated = mutations.get(mutant.id)
            if mutated is None:
                continue
            found = universe.owner_files(mutant)
            index = self.index
            collected = {index.resolved(i) if index is not None else Path(str(i.path)).resolve()
                         for i in owners.get(mutant.id, [])}
            if found is universe.files and collected <= universe.file_set:
                self.owner_files[mutant.id] = universe.files  # shared, not copied per mutant
            else:
                files = set(found or ())
                if found is None or not collected <= files:
                    files |= set(universe.files) | collected
                self.owner_files[mutant.id] = sorted(files)
            self.fingerprints[mutant.id] = universe.fingerprint(
                mutant, mutated.original, self.owner_files[mutant.id])

    def _stored(self, mutant_id: str) -> MutantRecord | None:
        return None if self.options.recorder is None else _stored(self.options.recorder,
                                                                  mutant_id)

    def _record(self, record: MutantRecord) -> None:
        recorder = self.options.recorder
        if recorder is not None and not record.reused and not recorder.is_done(record.id):
            recorder.record(record)

    def _baseline(self, runner: Runner, items: list[pytest.Item],
                  label: str = "baseline") -> dict[str, ItemResult]:
        if not items:
            return {}
        settings = self.catalog.settings
        budget = Budget(constant=max(60.0, 6 * settings.timeout_s), factor=0.0)
        chunks = _chunks(items, runner.workers)
        jobs = [(ChildJob(key=f"{label}-{n}", mutated=None, owner_items=chunk), budget)
                for n, chunk in enumerate(chunks)]
        names = {job.key: _chunk_name(job.owner_items) for job, _ in jobs}  # for people
        self.reporter.phase(label, len(jobs))
        results: dict[str, ItemResult] = {}
        for outcome in runner.run(jobs, on_done=lambda o: self.reporter.advance(names[o.key])
                                  ).values():
            for result in _item_results(outcome):
                results[result.nodeid] = result
            self.clean_crashes |= crash_verdict.clean_signatures(outcome)
        return results

    def _static_verdict(self, mutant: Mutant, mutated: MutatedFunction,
                        owner_items: list[pytest.Item]) -> MutantRecord | None:
        """The ``uniformity:`` owners' verdict when it needs no test process (see
        ``StaticOwners.verdict``), else None (the tests run, both are judged in ``_judge``)."""
        found = self.static.verdict(mutant, mutated, [i.nodeid for i in owner_items])
        if found is None:
            return None
        verdict, excerpt, owners, killed_by = found
        return _record(mutant, verdict, excerpt=excerpt, owners=owners, killed_by=killed_by,
                       diff=mutated.diff(relative_to=Path.cwd()) if killed_by else "",
                       fingerprint=self.fingerprints.get(mutant.id, ""))

    def _job(self, mutant: Mutant, mutated: MutatedFunction, owner_items: list[pytest.Item],
             items: list[pytest.Item], baseline: dict[str, ItemResult]
             ) -> tuple[ChildJob, Budget]:
        settings = self.catalog.settings
        owner_ids = {i.nodeid for i in owner_items}
        fastest = sorted(owner_items, key=lambda i: baseline[i.nodeid].duration)
        # the universe is not copied per mutant: per-mutant cost stays independent of its size
        others: Sequence[pytest.Item] = OtherItems(items, owner_ids)
        if self.options.full_matrix:
            others = [i for i in others if baseline.get(i.nodeid) is not None
                      and baseline[i.nodeid].outcome == "passed"]
        clean_passed, clean_red, durations = _baseline_views(baseline, self._views)
        job = ChildJob(key=mutant.id, mutated=mutated, owner_items=fastest, other_items=others,
                       expect=mutant.expect, wrong_failure_types=settings.wrong_failure_types,
                       full_matrix=self.options.full_matrix,
                       probe_non_owners=self.probe_non_owners and not self.static.killed(
                           mutant.id),  # the audit killed it: no non-owner search
                       clean_passed=clean_passed, clean_red=clean_red)
        return job, mutant_budget(mutant, settings, durations)

    def _judge(self, mutant: Mutant, mutated: MutatedFunction, owner_items: list[pytest.Item],
               outcome: JobOutcome, baseline: dict[str, ItemResult],
               clean_red: Sequence[str] = ()) -> MutantRecord:
        owner_ids = [i.nodeid for i in owner_items]
        static = self.static.results.get(mutant.id, [])  # ``uniformity:`` owners, judged here
        diff = mutated.diff(relative_to=Path.cwd())
        ran = [e for e in outcome.events if e.get("event") == "item"]
        detail: dict[str, Any] = {"timeout_s": round(outcome.timeout_s, 3),
                                  "items_run": [e["nodeid"] for e in ran],
                                  "tests_s": round(sum(e.get("duration", 0.0) for e in ran), 4)}
        if outcome.leftovers:
            detail["leftover_pids"] = outcome.leftovers
        common = {"owners": owner_ids + [r.nodeid for r in static], "diff": diff, "duration_s": round(outcome.duration_s, 4),
                  "fingerprint": self.fingerprints.get(mutant.id, ""), "detail": detail}
        unreachable = [e for e in outcome.events if e.get("event") == "not_injectable"]
        if unreachable:
            return _record(mutant, "NOT_INJECTABLE", excerpt=unreachable[0]["message"], **common)
        broken = [e for e in outcome.events if e.get("event") in ("broken", "error")]
        if broken:
            return _record(mutant, "BROKEN", excerpt=broken[0]["message"], **common)
        crashed = crash_verdict.owner_crashes(outcome, owner_ids, self.clean_crashes,
                                              str(Path.cwd()))
        if crashed:
            detail["crashes"] = [c.to_json() for c in crashed]
        if outcome.timed_out and crashed:
            detail["alive"] = [p.to_json() for p in outcome.alive]
            told = crash_verdict.after_timeout(outcome, owner_ids, crashed[0], mutant.expect,
                                               self.catalog.settings.wrong_failure_types)
            if told is not None:
                told = self._crash_kills(told, detail)
                return _record(mutant, told.verdict, excerpt=told.excerpt,
                               killed_by=told.killed_by, **common)
        if outcome.timed_out and self.static.killed(mutant.id):
            killer = next(r for r in static if r.outcome == "failed")  # the audit's kill holds
            detail["alive"] = [p.to_json() for p in outcome.alive]
            return _record(mutant, "KILLED", killed_by=[killer.nodeid], **common, excerpt=(
                f"{killer.nodeid}: {killer.message}\n{killer.text}\n(the owner tests then "
                f"timed out after {outcome.timeout_s:.1f}s in {outcome.running_item or '?'})"))
        if outcome.timed_out:
            alive = ", ".join(f"{p.label} (pid {p.pid})" for p in outcome.alive) or "none"
            detail["alive"] = [p.to_json() for p in outcome.alive]
            stacks = "\n\n".join(f"--- {p.label} (pid {p.pid}) ---\n{p.stack[:1500]}"
                                 for p in outcome.alive)
            return _record(mutant, "TIMEOUT", excerpt=(
                f"timed out after {outcome.timeout_s:.1f}s in {outcome.running_item or '?'}; "
                f"alive: {alive}\n{stacks}"), **common)
        results = _item_results(outcome)
        if crashed:  # the first event was a process's crash: the owner's failure says it
            results = crash_verdict.owner_failures_told_by(results, owner_ids, crashed[0])
        red = {n for n, r in baseline.items() if r.outcome != "passed"} | set(clean_red)
        verdict = decide(owner_ids + [r.nodeid for r in static], static + results,
                         mutant.expect, self.catalog.settings.wrong_failure_types,
                         mutant.accepted_survivor, sorted(red),
                         judged=self.static.reasons(mutant.id))
        verdict = self._crash_kills(verdict, detail)
        excerpt = verdict.excerpt
        if outcome.search_stopped:
            spent = outcome.duration_s - sum(e.get("duration", 0.0) for e in ran
                                             if e.get("phase") == "owners")
            note = (f"the search for a non-owner kill stopped after {spent:.1f}s in "
                    f"{outcome.search_stopped} (its own budget; not a timeout of the mutant)")
            detail["non_owner_search"] = {"stopped_in": outcome.search_stopped,
                                          "after_s": round(spent, 3)}
            excerpt = f"{excerpt}\n{note}".strip()
        if verdict.wrong_owners:
            detail["wrong_failure_owners"] = verdict.wrong_owners
        return _record(mutant, verdict.verdict, excerpt=excerpt,
                       killed_by=verdict.killed_by, failed_non_owners=verdict.failed_non_owners,
                       **common)

    def _crash_kills(self, verdict: Verdict, detail: dict[str, Any]) -> Verdict:
        if verdict.verdict == "KILLED" and verdict.kill_kind:
            detail["kill"], detail["kill_reason"] = verdict.kill_kind, verdict.kill_reason
        return crash_kills_rule(verdict, self.catalog.settings.crash_kills)

    def _recheck_non_owners(self, runner: Runner, records: dict[str, MutantRecord],
                            owners: dict[str, list[pytest.Item]],
                            mutations: dict[str, MutatedFunction],
                            outcomes: dict[str, JobOutcome], items: list[pytest.Item],
                            baseline: dict[str, ItemResult]) -> None:
        """A non-owner failure counts only if that test passes on clean code: run the ones
        the baseline did not cover, clean, and judge again."""
        suspects = {n for r in records.values() for n in r.failed_non_owners
                    if n not in baseline}
        if not suspects:
            return
        by_id = {i.nodeid: i for i in items}
        waiting = [m for m in self.mutants if m.id in records
                   and set(records[m.id].failed_non_owners) & suspects]
        clean = self._baseline(runner, [by_id[n] for n in sorted(suspects) if n in by_id],
                               "recheck")
        baseline.update(clean)
        red = [n for n, r in baseline.items() if r.outcome == "failed"]
        for mutant in waiting:
            records[mutant.id] = self._judge(mutant, mutations[mutant.id], owners[mutant.id],
                                             outcomes[mutant.id], baseline, clean_red=red)
            self._record(records[mutant.id])


def _baseline_views(baseline: dict[str, ItemResult], cache: list[Any]
                    ) -> tuple[frozenset[str], frozenset[str], dict[str, float]]:
    """(green ids, red ids, durations) of a baseline, built once per baseline (and size) and
    shared by every mutant's job: O(baseline) once, not once per mutant. ``cache`` holds
    the baseline it was built from (so its identity cannot be reused) and the views."""
    if cache and cache[0] is baseline and cache[1] == len(baseline):
        return cache[2]
    views = (frozenset(n for n, r in baseline.items() if r.outcome == "passed"),
             frozenset(n for n, r in baseline.items() if r.outcome != "passed"),
             {k: v.duration for k, v in baseline.items()})
    cache[:] = [baseline, len(baseline), views]
    return views


def _item_results(outcome: JobOutcome) -> list[ItemResult]:
    results = [ItemResult.from_json({k: v for k, v in e.items() if k not in ("event", "phase", "t")})
               for e in outcome.events if e.get("event") == "item"]
    done = any(e.get("event") in ("done", "broken", "not_injectable", "error")
               for e in outcome.events)
    if not done and not outcome.timed_out and not outcome.search_stopped:
        status = outcome.exit_status
        how = (f"signal {os.WTERMSIG(status)}" if status is not None and os.WIFSIGNALED(status)
               else f"exit status {os.WEXITSTATUS(status) if status is not None else '?'}")
        results.append(ItemResult(nodeid=outcome.running_item or "?", outcome="failed",
                                  message=f"{PROCESS_CRASH}: the test process died ({how})"))
    return results


def pytest_arguments(options: SweepOptions, basetemp: Path | None = None) -> list[str]:
    """The sweep session's pytest command line; ``basetemp`` is its own temp folder (a
    ``--basetemp`` in the sweep's ``pytest_args`` still wins)."""
    catalog = options.catalog
    tests = [str((catalog.root / t).resolve()) for t in catalog.settings.tests] or [
        str(catalog.root)]
    # verbosity_assertions=2: assertion values are never shortened with "...", so an
    # ``expect`` sees the whole failure, whatever the length of the checkout's path.
    return [*tests, "-p", "no:cacheprovider", *xdist_off(),
            "-o", "verbosity_assertions=2", "--continue-on-collection-errors",
            *([f"--basetemp={basetemp}"] if basetemp is not None else []),
            *options.pytest_args]


def run_sweep(options: SweepOptions, reporter: Reporter | None = None,
              plugin_class: type[SweepPlugin] = SweepPlugin) -> SweepResult:
    """Run a sweep in this process (it becomes the warm parent). Never writes user files."""
    sys.dont_write_bytecode = True
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    started, wall = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
    # from the start: a process the imports start (or its orphan) stays ours to stop
    procs.become_subreaper()
    selected = options.catalog.select(list(options.only))
    recorder = options.recorder
    nothing_to_take = not (getattr(recorder, "incremental", True)
                           or getattr(recorder, "resumed", True))
    if recorder is None or not selected or nothing_to_take:
        return _run_session(options, reporter, plugin_class)
    resumed: dict[str, MutantRecord] | None = None

    def stored(mutant_id: str) -> MutantRecord | None:
        nonlocal resumed
        if resumed is None:  # read the resumed run once, only when it has verdicts
            resumed = {r.id: r for r in _stored_all(recorder)}
        return resumed.get(mutant_id)

    early = reuse_before_collection(options.catalog, selected, recorder, options.affected,
                                    stored)
    reuse_s = round(time.monotonic() - wall, 3)
    for mutant_id in early.dropped if hasattr(recorder, "drop") else ():
        recorder.drop(mutant_id)  # no change can affect it: not this run's to judge
    if not early.remaining:  # nothing to run: no session, no collection, no baseline
        records = [early.records[m.id] for m in selected if m.id in early.records]
        return SweepResult(records=records, baseline={}, started_at=started,
                           finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
                           duration_s=time.monotonic() - wall, workers=max(1, options.workers),
                           timing={"reuse_s": reuse_s}, session=False,
                           reused_before_session=len(early.records), notes=early.notes)
    if early.records and hasattr(reporter, "say"):  # said before the mutant lines
        reporter.say(f"deskcheck: {len(early.records)} verdict(s) reused from the store "
                     "before collecting")
    rest = replace(options, only=[m.id for m in early.remaining])
    result = _run_session(rest, reporter, plugin_class)
    by_id = {r.id: r for r in result.records} | early.records
    result.records = [by_id[m.id] for m in selected if m.id in by_id]
    result.timing = {"reuse_s": reuse_s, **result.timing}
    result.reused_before_session = len(early.records)
    result.notes = [*early.notes, *result.notes]
    result.started_at, result.duration_s = started, time.monotonic() - wall
    return result


def _stored_all(recorder: Recorder) -> list[MutantRecord]:
    """The verdicts already recorded in the run being resumed."""
    store, run_id = getattr(recorder, "store", None), getattr(recorder, "run_id", None)
    return [] if store is None or run_id is None else list(store.mutants(run_id))


def _stored(recorder: Recorder, mutant_id: str) -> MutantRecord | None:
    """The verdict ``mutant_id`` already has in the run being resumed."""
    return next((r for r in _stored_all(recorder) if r.id == mutant_id), None)


def _run_session(options: SweepOptions, reporter: Reporter | None,
                 plugin_class: type[SweepPlugin]) -> SweepResult:
    """One pytest session in this process: collect, baseline, a fork per mutant."""
    if reporter is not None:
        reporter.phase("collect", 0)  # the session starts: collection is shown from here
    plugin = plugin_class(options, reporter)
    # a reporter with pytest hooks (ProgressReporter) shows collection as it happens
    extra = [reporter] if hasattr(reporter, "pytest_itemcollected") else []
    # Mutant children leave through os._exit, which skips the atexit handler that unlocks
    # pytest's numbered temp folders (kept 3 days when locked): the session's temp folder
    # lives in a scratch folder of the sweep's own, removed here (reaped if the sweep dies)
    temp = make_scratch(SCRATCH_PREFIX)
    try:
        code = pytest.main(pytest_arguments(options, temp / "pytest"),
                           plugins=[plugin, ImportGuardPlugin(), *extra])
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    if code == pytest.ExitCode.INTERRUPTED:  # Ctrl-C / SIGTERM: what was decided is recorded
        raise as_interrupted()
    if plugin.error is not None:
        raise plugin.error
    if plugin.result is None:
        ini = config_file(Path.cwd())
        if code == pytest.ExitCode.USAGE_ERROR:
            raise ConfigError(
                "pytest rejected its arguments (usage error, printed above)",
                location=str(ini or Path.cwd()),
                fix="fix the option pytest names (addopts in this file, or the [sweep] "
                    "tests paths); `pytest --collect-only -q` shows the same error")
        if code == pytest.ExitCode.INTERNAL_ERROR:  # not a collection error: say what it was
            raise ConfigError(
                "pytest stopped with an INTERNALERROR (printed above) before the sweep could "
                "run", location=str(ini or options.catalog.path),
                fix="the last lines of the INTERNALERROR name the file and line that raised; "
                    "a plugin or conftest.py hook usually")
        raise CatalogError(f"pytest could not collect the test universe (exit code {code})",
                           location=str(ini or options.catalog.path),
                           fix="run `pytest --collect-only -q` on the tests and fix what it "
                               "reports")
    return plugin.result
