"""Merge shard stores (a CI matrix, a job array) into one run of one store."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deskcheck.errors import StoreError
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.shard import parse_shard, split_label
from deskcheck.report.store import Store
from deskcheck.report.summary import summarize


@dataclass
class ShardRun:
    db: Path
    run: RunRecord
    mutants: list[MutantRecord]
    sources: dict[str, str]
    planned: list[str]


def _newest_run(path: Path, kind: str) -> ShardRun:
    if not path.is_file():
        raise StoreError(f"no store at {path}", location=str(path),
                         fix="pass the results.sqlite files the shard jobs produced")
    with Store(path, read_only=True) as store:
        runs = store.runs(kind)
        if not runs:
            raise StoreError(f"no {kind} run in {path}", location=str(path),
                             fix=f"pass stores that hold a {kind} run (or choose --kind); a "
                                 "store copied while in use needs its -wal file beside it")
        run = runs[-1]
        assert run.id is not None
        return ShardRun(path, run, store.mutants(run.id), store.sources(run.id),
                        store.planned(run.id) or [])


def read_shards(paths: list[Path], kind: str = "sweep") -> list[ShardRun]:
    """The newest ``kind`` run of each store; every store that cannot be read is reported,
    all in one error (nothing is written anywhere)."""
    if not paths:
        raise StoreError("nothing to merge", fix="pass at least one shard store")
    parts: list[ShardRun] = []
    errors: list[StoreError] = []
    for path in paths:
        try:
            parts.append(_newest_run(Path(path), kind))
        except StoreError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise StoreError(f"{len(errors)} of {len(paths)} stores cannot be merged:\n" + "\n".join(
            "  " + e.render().replace("\n", "\n  ") for e in errors),
            fix="pass only the results.sqlite files the shard jobs produced")
    return parts


def _check_compatible(parts: list[ShardRun]) -> tuple[list[str], int]:
    """All parts from one commit and configuration, shards of one N without repeats.

    Returns the missing shard specs (empty when complete) and N (0 when unsharded)."""
    first = parts[0]
    for part in parts[1:]:
        for name in ("commit", "config_fingerprint"):
            if getattr(part.run, name) != getattr(first.run, name):
                raise StoreError(
                    f"{part.db} (run {part.run.id}) has {name} {getattr(part.run, name)!r} but "
                    f"{first.db} has {getattr(first.run, name)!r}", location=str(part.db),
                    fix="merge only the shards of one sweep (same commit and configuration)")
    specs = [p.run.shard for p in parts if p.run.shard]
    if not specs:
        return [], 0
    if len(specs) != len(parts):
        raise StoreError("some stores are shards and some are not", location=str(parts[0].db),
                         fix="merge either shard stores of one sweep, or unsharded stores")
    plans = {split_label(s)[1] for s in specs}
    if len(plans) != 1:
        raise StoreError(
            f"shards planned differently: {', '.join(specs)} (a shard's plan is by count, or "
            "by the durations in the store it started with)", location=str(parts[0].db),
            fix="give every shard job the same store (or none), or pass --shard-by count")
    parsed = [parse_shard(split_label(s)[0]) for s in specs]
    counts = {n for _, n in parsed}
    if len(counts) != 1:
        raise StoreError(f"shards of different sizes: {', '.join(specs)}",
                         location=str(parts[0].db), fix="merge the shards of one --shard I/N")
    count = counts.pop()
    seen: dict[int, Path] = {}
    for (index, _), part in zip(parsed, parts, strict=True):
        if index in seen:
            raise StoreError(f"shard {index}/{count} appears twice: {seen[index]} and {part.db}",
                             location=str(part.db), fix="pass each shard's store once")
        seen[index] = part.db
    return [f"{i}/{count}" for i in range(1, count + 1) if i not in seen], count


def check_shards(parts: list[ShardRun]) -> list[str]:
    """Shards of one sweep that agree on every verdict; returns the missing shard specs."""
    missing, _count = _check_compatible(parts)
    _merged(parts)
    return missing


def _merged(parts: list[ShardRun]) -> dict[str, MutantRecord]:
    merged: dict[str, MutantRecord] = {}
    origin: dict[str, Path] = {}
    for part in parts:
        for mutant in part.mutants:
            known = merged.get(mutant.id)
            if known is not None and known.verdict != mutant.verdict:
                raise StoreError(
                    f"mutant {mutant.id} is {known.verdict} in {origin[mutant.id]} but "
                    f"{mutant.verdict} in {part.db}", location=str(part.db),
                    fix="shards must partition the mutants; rerun with one --shard I/N each")
            if known is None:
                merged[mutant.id], origin[mutant.id] = mutant, part.db
    return merged


def merge_stores(paths: list[Path], into: Store, *, kind: str = "sweep",
                 parts: list[ShardRun] | None = None) -> int:
    """Combine the newest ``kind`` run of each store in ``paths`` (or the ``parts`` already
    read) into a new run of ``into``.

    A mutant recorded by two parts must carry the same verdict in both; the merged run is
    ``partial`` when shards are missing, else holds / falls_short by its verdicts.
    """
    parts = parts if parts is not None else read_shards(paths, kind)
    missing = check_shards(parts)
    merged = _merged(parts)
    runs = [p.run for p in parts]
    tiers = {r.tier for r in runs}
    record = RunRecord(
        kind=kind, commit=runs[0].commit, branch=runs[0].branch,
        started_at=min(r.started_at for r in runs), tier="METAL" if tiers == {"METAL"} else "DESK",
        machine=", ".join(dict.fromkeys(r.machine for r in runs if r.machine)),
        config_fingerprint=runs[0].config_fingerprint,
        deskcheck_version=runs[0].deskcheck_version)
    run_id = into.begin_run(record)
    for part in parts:
        for path, text in part.sources.items():
            into.snapshot_source(run_id, path, text)
    planned = sorted({m for p in parts for m in p.planned})
    if planned:
        into.plan(run_id, planned)
    for mutant in merged.values():
        into.record_mutant(run_id, mutant)
    summary = summarize(merged.values(), planned or None)
    summary["merged_from"] = [{"db": str(p.db), "run": p.run.id, "shard": p.run.shard,
                               "status": p.run.status} for p in parts]
    summary["missing_shards"] = missing
    unfinished = [p for p in parts if p.run.status in ("running", "interrupted", "error")]
    status = ("partial" if missing or unfinished
              else "holds" if summary["holds"] else "falls_short")
    into.finish_run(run_id, status, summary,
                    finished_at=max((r.finished_at for r in runs), default="") or None)
    return run_id
