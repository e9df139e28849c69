"""deskcheck.report: results that last.

The SQLite store (runs and mutant verdicts under ``.deskcheck/``), fingerprints for
incremental reuse, deterministic shards and their merge, history and run diffs, and the
renderers (terminal, JSON, JUnit, Markdown, Stryker, HTML).
"""

from deskcheck.report.changed import ChangesSince
from deskcheck.report.fingerprint import config_fingerprint, mutant_fingerprint
from deskcheck.report.history import RunDiff, diff_runs, resolve_run
from deskcheck.report.merge import merge_stores
from deskcheck.report.recorder import RunRecorder
from deskcheck.report.records import (
    HOLDING_VERDICTS,
    RUN_KINDS,
    SURVIVOR_VERDICTS,
    VERDICTS,
    MutantRecord,
    RunRecord,
)
from deskcheck.report.renderers import FORMATS, render
from deskcheck.report.reportdata import ReportData, load_report
from deskcheck.report.shard import parse_shard, select_shard, shard_of
from deskcheck.report.store import Store, default_store_path
from deskcheck.report.summary import summarize

__all__ = [
    "ChangesSince",
    "FORMATS", "HOLDING_VERDICTS", "RUN_KINDS", "SURVIVOR_VERDICTS", "VERDICTS", "MutantRecord",
    "ReportData", "RunDiff", "RunRecord", "RunRecorder", "Store", "config_fingerprint", "default_store_path",
    "diff_runs", "load_report", "merge_stores", "mutant_fingerprint", "parse_shard", "render",
    "resolve_run", "select_shard", "shard_of", "summarize",
]
