"""Realistic mutant records: one per verdict, with real unified diffs of real source."""

from __future__ import annotations

import difflib

from deskcheck.report.records import VERDICTS, MutantRecord

BALLOT_SOURCE = '''"""Prefetch ballot: a group vote on the queue head."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

BALLOT_HEAD_DEPTH = 4


def queue_head_digest(rids: Sequence[str], depth: int = BALLOT_HEAD_DEPTH) -> int:
    """CRC32 of the first ``depth`` rids in this rank's queue order (0 for an empty queue)."""
    head = rids[:depth]
    if not head:
        return 0
    return zlib.crc32("\\x1f".join(head).encode("utf-8"))


def advance_mismatch_streak(streak: int, total: int, mismatch: bool, cap: int = 64):
    """Turn the per-pass mismatch bit into onset / persists / recovered reports."""
    if mismatch:
        streak += 1
        total += 1
        if streak & (streak - 1) == 0 or streak % cap == 0:
            return streak, total, "persists" if streak > 1 else "onset"
        return streak, total, None
    if streak:
        return 0, total, "recovered"
    return 0, total, None
'''

CONGRUENCE_SOURCE = '''"""TP head congruence: every rank admits the same head, in the same order."""

import os


def enforcer_gate() -> bool:
    return os.environ.get("TP_HEAD_CONGRUENCE", "1") != "0"


def batch_decision(local_limit: int, group_min: int) -> int:
    """Admit no more than the group's minimum <b>&</b> never more than this rank can."""
    if not enforcer_gate():
        return local_limit
    return min(local_limit, group_min)
'''

BALLOT_FILE = "pkg/prefetch_ballot.py"
CONGRUENCE_FILE = "pkg/tp_head_congruence.py"
OWNER_BALLOT = "tests/test_ballot.py::test_recovery_edge_reported"
OWNER_DIGEST = "tests/test_ballot.py::test_digest_covers_head"
OWNER_CONGRUENCE = "tests/test_congruence.py::test_group_min_admitted[world3]"
OTHER_TEST = "tests/test_scheduler.py::test_admission_end_to_end"


def real_diff(source: str, path: str, old: str, new: str) -> str:
    """The unified diff of replacing ``old`` (exactly once) by ``new`` in ``source``."""
    assert source.count(old) == 1, old
    mutated = source.replace(old, new)
    return "".join(difflib.unified_diff(source.splitlines(True), mutated.splitlines(True),
                                        f"a/{path}", f"b/{path}", n=2))


def _mutant(mid: str, title: str, target: str, verdict: str, path: str, source: str,
            old: str, new: str, operator: str = "replace", **kw) -> MutantRecord:
    line = source[:source.index(old)].count("\n") + 1
    return MutantRecord(id=mid, title=title, target=target, operator=operator, verdict=verdict,
                        diff=real_diff(source, path, old, new), source_file=path,
                        source_line=line, fingerprint=f"fp-{mid}", **kw)


def every_verdict_mutants() -> list[MutantRecord]:
    """One realistic mutant per verdict (ids like the reference catalog's)."""
    b, c = BALLOT_SOURCE, CONGRUENCE_SOURCE
    ballot_target = "pkg.prefetch_ballot:advance_mismatch_streak"
    digest_target = "pkg.prefetch_ballot:queue_head_digest"
    gate_target = "pkg.tp_head_congruence:batch_decision"
    mutants = [
        _mutant("ballot.M1", "latch restored: report onset only", ballot_target, "KILLED",
                BALLOT_FILE, b, "if streak & (streak - 1) == 0 or streak % cap == 0:",
                "if streak == 1:", owners=[OWNER_BALLOT], killed_by=[OWNER_BALLOT],
                duration_s=0.031, excerpt="AssertionError: expected 'persists' at streak 2"),
        _mutant("ballot.M2", "recovery edge disabled", ballot_target, "SURVIVED", BALLOT_FILE,
                b, 'return 0, total, "recovered"', "return 0, total, None",
                owners=[OWNER_BALLOT], duration_s=0.042),
        _mutant("ballot.M3", "total reset across recovery", ballot_target, "OWNER_MISSED",
                BALLOT_FILE, b, "        total += 1\n", "        total = 1\n",
                owners=[OWNER_BALLOT], failed_non_owners=[OTHER_TEST], duration_s=0.5,
                excerpt="AssertionError: total 1 != 3"),
        _mutant("ballot.M4", "digest covers one rid", digest_target, "WRONG_FAILURE",
                BALLOT_FILE, b, "head = rids[:depth]", "head = rids[:depth]()",
                owners=[OWNER_DIGEST], killed_by=[], duration_s=0.02,
                excerpt="TypeError: 'list' object is not callable"),
        MutantRecord(id="ballot.M5", title="empty queue digests to 1", target=digest_target,
                     operator="replace", verdict="STALE", owners=[OWNER_DIGEST],
                     source_file=BALLOT_FILE, fingerprint="fp-ballot.M5",
                     excerpt="snippet 'return 1' not found in pkg.prefetch_ballot:"
                             "queue_head_digest"),
        _mutant("congruence.M1", "MAX instead of MIN", gate_target, "TIMEOUT", CONGRUENCE_FILE,
                c, "return min(local_limit, group_min)", "return max(local_limit, group_min)",
                operator="swap", owners=[OWNER_CONGRUENCE], duration_s=12.0,
                excerpt="ranks alive after 10.0 s: rank 1, rank 2\nrank 1 stack:\n  File "
                        '"pkg/tp_head_congruence.py", line 14 in batch_decision',
                detail={"ranks": [1, 2]}),
        _mutant("congruence.M2", "enforcer switch ignored", gate_target, "BROKEN",
                CONGRUENCE_FILE, c, "if not enforcer_gate():", "if not enforcer_gate(:",
                operator="force-branch", owners=[OWNER_CONGRUENCE],
                excerpt="SyntaxError: invalid syntax"),
        _mutant("congruence.M3", "constant yes published", gate_target, "BASELINE_RED",
                CONGRUENCE_FILE, c, "return local_limit\n", "return 1 << 30\n",
                operator="return", owners=[OWNER_CONGRUENCE],
                excerpt="owners fail on clean code: test_group_min_admitted[world3]"),
        _mutant("congruence.M4", "overshoot the bound by 2 <script>alert(1)</script>",
                gate_target, "ACCEPTED_SURVIVOR", CONGRUENCE_FILE, c,
                "return min(local_limit, group_min)", "return min(local_limit, group_min) + 0",
                operator="offset", owners=[OWNER_CONGRUENCE],
                detail={"accepted_reason": "equivalent: + 0 changes nothing"}),
        _mutant("ballot.M6", "digest depth off by one", digest_target, "KILLED", BALLOT_FILE,
                b, "head = rids[:depth]", "head = rids[:depth + 1]", operator="offset",
                owners=[OWNER_DIGEST], killed_by=[OWNER_DIGEST], duration_s=0.012, reused=True),
        _mutant("auto.digest.1", "digest depth: < -> <=", digest_target, "NO_COVERAGE",
                BALLOT_FILE, b, "head = rids[:depth]", "head = rids[:depth - 1]",
                operator="auto-source", owners=[],
                excerpt="no test covers this changed line"),
        _mutant("auto.digest.2", "digest depth: closure built at import", digest_target,
                "NOT_INJECTABLE", BALLOT_FILE, b, "head = rids[:depth]", "head = rids[:2]",
                operator="auto-source", owners=[OWNER_DIGEST],
                excerpt="digest.<locals>.head (line 3) is a closure built before the tests ran "
                        "(1 live function(s)); the mutant changes its free variables"),
    ]
    assert {m.verdict for m in mutants} == set(VERDICTS), (
        f"the sample records must cover every verdict {sorted(VERDICTS)}; they cover "
        f"{sorted({m.verdict for m in mutants})}"
    )
    return mutants
