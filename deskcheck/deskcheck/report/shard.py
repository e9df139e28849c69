"""Deterministic shards: ``--shard I/N`` splits mutants for a CI matrix or a job array.

Two plans, both deterministic (every shard job computes the same partition on its own):

* **by count** (``shard_of``): a mutant's shard is a hash of its id, never its position, so
  adding mutants never moves an existing one to another shard (for the same N);
* **by duration** (``balanced_shards``, the default where the store has recorded durations):
  the longest mutants first, each to the least loaded shard (LPT), a mutant without a
  recorded duration counted as the median of the known ones. The plan's digest is written
  into the run's shard label (``2/4~<digest>``): ``deskcheck merge`` refuses shards that
  planned differently (e.g. one job had last night's store and another had none), which
  would otherwise run some mutants twice and others never.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Iterable, Mapping

from deskcheck.errors import ConfigError

_FIX = "write --shard I/N with whole numbers 1 <= I <= N, e.g. --shard 2/4"


def shard_of(mutant_id: str, n: int) -> int:
    """The shard (1-based, as in ``I/N``) that ``mutant_id`` belongs to among ``n`` shards."""
    if n < 1:
        raise ValueError(f"shard count must be at least 1, got {n}")
    digest = hashlib.sha256(mutant_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def parse_shard(spec: str) -> tuple[int, int]:
    """``"I/N"`` -> ``(I, N)``; a clear ConfigError for anything else."""
    index_text, slash, count_text = spec.strip().partition("/")
    if not slash or not index_text.strip().isdigit() or not count_text.strip().isdigit():
        raise ConfigError(f"bad shard {spec!r}: expected I/N", location="--shard", fix=_FIX)
    index, count = int(index_text), int(count_text)
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"bad shard {spec!r}: I must be between 1 and N (N >= 1)",
                          location="--shard", fix=_FIX)
    return index, count


def select_shard(ids: Iterable[str], spec: str) -> list[str]:
    """The ids (in their given order) that belong to shard ``spec`` (``"I/N"``)."""
    index, count = parse_shard(spec)
    return [mutant_id for mutant_id in ids if shard_of(mutant_id, count) == index]


def balanced_shards(ids: Iterable[str], count: int,
                    durations: Mapping[str, float]) -> dict[str, int]:
    """Each id's shard (1-based) among ``count``, balancing recorded seconds: longest first,
    each to the least loaded shard (ties: the lowest index); unknown durations count as the
    median of the known ones (all unknown: one each, i.e. a split by count)."""
    if count < 1:
        raise ValueError(f"shard count must be at least 1, got {count}")
    ids = list(dict.fromkeys(ids))
    known = [durations[i] for i in ids if durations.get(i, 0) > 0]
    fallback = statistics.median(known) if known else 1.0
    cost = {i: durations[i] if durations.get(i, 0) > 0 else fallback for i in ids}
    loads = [0.0] * count
    placed: dict[str, int] = {}
    for mutant_id in sorted(ids, key=lambda i: (-cost[i], i)):
        shard = min(range(count), key=lambda n: (loads[n], n))
        loads[shard] += cost[mutant_id]
        placed[mutant_id] = shard + 1
    return placed


def plan_digest(placed: Mapping[str, int]) -> str:
    """A short digest of a partition: shard jobs that agree on it agree on every mutant."""
    text = json.dumps(sorted(placed.items()), separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def select_balanced(ids: Iterable[str], spec: str, durations: Mapping[str, float]
                    ) -> tuple[list[str], str]:
    """The ids of shard ``spec`` under the duration plan, and the label to record
    (``I/N~digest``; ``I/N`` when no duration is known: the by-count plan is used then)."""
    index, count = parse_shard(spec)
    ids = list(ids)
    if not any(durations.get(i, 0) > 0 for i in ids):
        return select_shard(ids, spec), f"{index}/{count}"
    placed = balanced_shards(ids, count, durations)
    chosen = [i for i in ids if placed[i] == index]
    return chosen, f"{index}/{count}~{plan_digest(placed)}"


def split_label(label: str) -> tuple[str, str]:
    """A recorded shard label -> (``I/N``, plan digest or ``""`` for the by-count plan)."""
    spec, _, plan = label.partition("~")
    return spec, plan
