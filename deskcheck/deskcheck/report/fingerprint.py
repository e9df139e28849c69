"""Fingerprints that decide when a recorded verdict may be reused (incremental sweeps).

pitest's and Stryker's rule: a verdict stays valid while the mutant's definition, the source of
the function it mutates, its owners' test files and the tool's version are all unchanged.
Each input goes through one canonical encoding, then sha256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

FINGERPRINT_SCHEME = "deskcheck-fp-1"


def canonical_json(value: Any) -> str:
    """One text per value: sorted keys, no whitespace, tuples as lists, paths as posix."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=_encode_other)


def _encode_other(value: Any) -> Any:
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, set | frozenset):
        return sorted(value, key=canonical_json)
    raise TypeError(f"cannot fingerprint a {type(value).__name__}: {value!r}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes; a missing file has its own stable marker."""
    try:
        return _sha256(Path(path).read_bytes())
    except FileNotFoundError:
        return f"missing:{Path(path).name}"


def mutant_fingerprint(definition: Mapping[str, Any], target_source: str,
                       owner_test_files: Iterable[Path], deskcheck_version: str,
                       digest: Callable[[Path], str] = file_digest,
                       file_digests: Sequence[str] | None = None) -> str:
    """sha256 over the mutant's catalog entry, its target function's source, the contents of
    its owners' test files (order and location do not matter, contents do) and the version.

    Pass any conftest.py whose fixtures the owners use among ``owner_test_files``;
    ``digest`` may be a caching ``file_digest`` (one read per file for a whole sweep);
    ``file_digests``: the sorted distinct digests of ``owner_test_files`` when the caller
    already has them (a universe shared by many mutants), so they are not recomputed.
    """
    payload = {
        "scheme": FINGERPRINT_SCHEME,
        "definition": dict(definition),
        "target_source": target_source,
        "owner_test_files": (list(file_digests) if file_digests is not None
                             else sorted({digest(Path(p)) for p in owner_test_files})),
        "deskcheck_version": deskcheck_version,
    }
    return _sha256(canonical_json(payload).encode("utf-8"))


def config_fingerprint(values: Mapping[str, Any], *extra_files: Path) -> str:
    """sha256 of a configuration (e.g. ``[tool.deskcheck]``) and the files it names
    (e.g. the catalog): a run can be resumed only under the same fingerprint."""
    payload = {"config": dict(values), "files": [file_digest(p) for p in extra_files]}
    return _sha256(canonical_json(payload).encode("utf-8"))
