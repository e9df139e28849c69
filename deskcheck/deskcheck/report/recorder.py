"""``RunRecorder``: the store as a sweep (or gate) uses it — begin or resume, skip what is done,
reuse what is unchanged, record each verdict at once, close with the right status.

    with RunRecorder(store, RunRecord(kind="sweep", commit=sha, config_fingerprint=cfg)) as rec:
        for mutant in catalog:
            if rec.is_done(mutant.id):
                continue                                   # finished before a kill -9
            if rec.reuse(mutant.id, fingerprint) is not None:
                continue                                   # unchanged since a holding verdict
            rec.record(run_mutant(mutant))                 # committed before this returns
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from types import TracebackType

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store


class RunRecorder:
    """One run's recording session. ``resume``: continue an unfinished run of the same kind,
    commit and config fingerprint whose process is gone; ``incremental``: reuse verdicts."""

    def __init__(self, store: Store, run: RunRecord, *, resume: bool = True,
                 incremental: bool = True, planned: Iterable[str] = ()):
        self.store = store
        self.run = run
        self.incremental = incremental
        self.resumed = False
        self.finished = False
        run_id = (store.resumable_run(run.kind, run.commit, run.config_fingerprint, run.shard)
                  if resume else None)
        if run_id is None:
            run_id = store.begin_run(run)
        else:
            self.resumed = True
        self.run_id = run_id
        if planned:
            store.plan(run_id, planned)
        self._done = store.finished_ids(run_id)

    def is_done(self, mutant_id: str) -> bool:
        """Already has a verdict in this run (recorded before an interruption)."""
        return mutant_id in self._done

    def reuse(self, mutant_id: str, fingerprint: str) -> MutantRecord | None:
        """Record and return the newest holding verdict with this fingerprint, if any."""
        if not self.incremental:
            return None
        found = self.store.reusable(fingerprint)
        if found is None:
            return None
        record = replace(found, id=mutant_id, reused=True)
        self.record(record)
        return record

    def drop(self, mutant_id: str) -> None:
        """Not for this run after all (e.g. no change can affect it): not counted as never
        judged."""
        self.store.unplan(self.run_id, mutant_id)

    def record(self, mutant: MutantRecord) -> None:
        self.store.record_mutant(self.run_id, mutant)
        self._done.add(mutant.id)

    def finish(self, status: str | None = None) -> dict:
        """Close the run: ``holds`` / ``falls_short`` from its verdicts unless told otherwise."""
        self.finished = True
        summary = self.store.summary_of(self.run_id)
        summary["resumed"] = self.resumed
        self.store.finish_run(self.run_id, status or
                              ("holds" if summary["holds"] else "falls_short"), summary)
        return summary

    def __enter__(self) -> RunRecorder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.finished:
            return
        if kind is None:
            self.finish()
        elif issubclass(kind, KeyboardInterrupt):
            self.finish("interrupted")  # resumable
        else:
            self.finish("error")  # resumable too: the verdicts recorded so far stand
