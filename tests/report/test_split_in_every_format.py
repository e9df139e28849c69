"""The first split a congruence failure carries reads the same in every report format: the
terminal (the sweep's shortfall blocks after its table), JSON, Markdown (the PR comment) and
HTML show its header and each rank's way and inputs in the same words (issue 28)."""

from __future__ import annotations

import dataclasses
import html
import json

from deskcheck.mutants.render import shortfall_report
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.renderers import render
from deskcheck.report.reportdata import load_report
from deskcheck.report.store import Store

from .sample_records import every_verdict_mutants

# A real sweep excerpt (head.count_max_instead_of_min on the reference target), cut short.
SPLIT = [
    "first split: examples/tp_scheduler/tp_scheduler/tp_head_congruence.py:151 in group_count:"
    " call group_count(reduced_vote, local_limit)",
    "  rank 0: returned 3 (reduced_vote=2 [agreed], local_limit=3)",
    "  rank 1: returned 2 (reduced_vote=2 [agreed], local_limit=2)",
    "  rank 2: returned 4 (reduced_vote=2 [agreed], local_limit=4)",
]
EXCERPT = "\n".join([
    "deskcheck.errors.CongruenceError: tests/test_congruence_suites.py:187: congruence arm "
    "'count' (world=3 gloo (DESK)) failed:",
    "  rank 1 diverged: decided 2 where rank 0 decided 3",
    "  rank 2 diverged: decided 4 where rank 0 decided 3",
    "rank by rank (enforcer on):",
    "  rank 0: input limiter=3 | decided: 3",
    "  rank 1: input limiter=16 | decided: 2",
    "  rank 2: input limiter=4 | decided: 4",
    "  fix: every rank must derive the decision from group-reduced values only",
    *SPLIT,
    "  call path: one_pass -> Scheduler.run_pass -> batch_decision -> group_count",
])


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_split_reads_the_same_in_terminal_json_markdown_and_html(store: Store):
    mutants = every_verdict_mutants()
    chosen = next(m for m in mutants if m.verdict == "OWNER_MISSED")
    mutants[mutants.index(chosen)] = dataclasses.replace(chosen, excerpt=EXCERPT)
    run_id = store.begin_run(RunRecord(kind="sweep", commit="3f2a9c1d0e4b", branch="b",
                                       config_fingerprint="cfg", tier="DESK"))
    for mutant in mutants:
        store.record_mutant(run_id, mutant)
    store.finish_run(run_id, "falls_short")
    data = load_report(store, run_id)
    document = json.loads(render(data, "json"))
    entry = next(m for m in document["mutants"] if m["id"] == chosen.id)
    shown = {
        "terminal": _flat(shortfall_report(data.mutants, width=80)),
        "json": _flat(MutantRecord.from_json(entry).excerpt),
        "markdown": _flat(render(data, "markdown")),
        "html": _flat(html.unescape(render(data, "html"))),
    }
    missing = {fmt: [line.strip() for line in SPLIT if _flat(line) not in text]
               for fmt, text in shown.items()}
    missing = {fmt: lines for fmt, lines in missing.items() if lines}
    assert not missing, f"the first split is not said in the same words in every format: {missing}"


def test_the_terminal_keeps_the_split_of_a_long_excerpt():
    from deskcheck.mutants.render import shortfall_report

    table = [f"  rank {r}: input limiter={r} | decided: {r}" for r in range(8)]
    long_excerpt = EXCERPT.replace("rank by rank (enforcer on):",
                                   "rank by rank (enforcer on):\n" + "\n".join(table))
    record = dataclasses.replace(
        next(m for m in every_verdict_mutants() if m.verdict == "OWNER_MISSED"),
        excerpt=long_excerpt)
    text = _flat(shortfall_report([record], width=80))
    missing = [line.strip() for line in SPLIT if _flat(line) not in text]
    assert not missing, ("the sweep's shortfall block cut the excerpt before the first split "
                         f"(a world of 8): missing {missing}:\n{text}")
