"""Deterministic shards: ``--shard I/N`` splits mutants for a CI matrix or a job array.

A mutant's shard is a hash of its id, never its position, so adding mutants to the catalog
never moves an existing mutant to another shard (for the same N).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

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
