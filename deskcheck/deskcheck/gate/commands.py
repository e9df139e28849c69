"""``deskcheck redfirst`` and ``deskcheck regress``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deskcheck.errors import DeskcheckError


def _common(parser: argparse.ArgumentParser, command: str) -> None:
    parser.add_argument("--base", required=True, metavar="REF",
                        help="compare against merge-base(REF, HEAD), e.g. origin/main")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the report as JSON")
    parser.add_argument("--markdown", type=Path, metavar="PATH",
                        help="write the report as Markdown (a PR comment)")
    parser.add_argument("--require-clean", action="store_true",
                        help="refuse a dirty working tree (default: gate it as is)")
    parser.add_argument("--no-store", action="store_true",
                        help="do not record this run in the results store (by default each run "
                             "is recorded in .deskcheck/results.sqlite; list them with "
                             f"`deskcheck history --kind {command}`)")
    parser.add_argument("--parallel", action="store_true",
                        help="run the base and branch sides at the same time (only for suites "
                             "that share no fixed ports or files between two runs)")


def register(subparsers: Any) -> None:
    red = subparsers.add_parser(
        "redfirst", help="new/changed tests must fail on the base commit's code",
        description="Run the tests the branch adds or changes against the base commit's "
                    "production code (scratch worktree), then on the branch; every test must "
                    "go RED->GREEN or be a declared @pytest.mark.pin(\"reason\").")
    _common(red, "redfirst")
    red.add_argument("paths", nargs="*", metavar="TEST_PATHS",
                     help="only look for changed tests under these paths")
    red.add_argument("--strict", action="store_true",
                     help="also fail on WEAK_RED (collection/import error on base) and "
                          "NO_EVIDENCE (skipped)")
    red.add_argument("--require-tests", action="store_true",
                     help="fail when production changed and no test was added or changed")
    red.set_defaults(func=_redfirst)

    reg = subparsers.add_parser(
        "regress", help="failing test ids on the branch minus those on the base",
        description="Run the bounded suite on the base commit (scratch worktree) and on the "
                    "branch; ids failing only on the branch are regressions.")
    _common(reg, "regress")
    reg.add_argument("paths", nargs="*", metavar="PATHS",
                     help="the bounded suite (default: pytest's testpaths)")
    reg.add_argument("-n", "--workers", type=int, default=None, metavar="N",
                     help="pytest-xdist workers per side (default: chosen from the measured "
                          "suite time, and said; 0: in-process)")
    reg.add_argument("--no-rerun", action="store_true",
                     help="do not re-run candidate regressions to flag flaky tests")
    reg.add_argument("--strict", action="store_true", help="also fail on flaky tests")
    reg.set_defaults(func=_regress)


@contextmanager
def _progress(command: str, base: str) -> Iterator[Any]:
    """The gate's progress on stderr, from its first second: what it compares, then each
    side's collection (with a running count) and run (``deskcheck.progress``)."""
    from deskcheck.progress import ProgressReporter

    with ProgressReporter() as reporter:
        reporter.line(f"deskcheck {command}: the working tree against merge-base({base}, HEAD)")
        yield lambda message: reporter.line(f"deskcheck: {message}")


def _write_outputs(args: argparse.Namespace, payload: dict[str, Any], markdown: str) -> None:
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown, encoding="utf-8")


@contextmanager
def _json_on_error(args: argparse.Namespace, command: str) -> Iterator[None]:
    """``--json`` is written on every exit path: a gate that could not run says why there
    too (``exit_code`` 2 for a usage/config error), then the error goes on as before."""
    try:
        yield
    except (DeskcheckError, KeyboardInterrupt) as exc:
        if args.json:
            from deskcheck.interrupts import exit_status

            interrupted = not isinstance(exc, DeskcheckError)
            code = exit_status(exc) if interrupted else exc.exit_code  # what the process exits
            error = ({"message": f"interrupted ({exc})" if str(exc) else "interrupted"}
                     if interrupted else
                     {"message": exc.message, "location": exc.location, "fix": exc.fix})
            _write_outputs(argparse.Namespace(json=args.json, markdown=None), {
                "command": command, "schema": 1, "holds": False, "exit_code": code,
                "error": error}, "")
        raise


def _redfirst(args: argparse.Namespace) -> int:
    from deskcheck.gate.redfirst import run_redfirst  # lazy: keeps CLI start-up light
    from deskcheck.gate.render import redfirst_markdown, redfirst_text

    with _json_on_error(args, "redfirst"), _progress("redfirst", args.base) as say:
        report = run_redfirst(args.base, args.paths, strict=args.strict,
                              require_clean=args.require_clean, parallel=args.parallel,
                              progress=say, require_tests=args.require_tests)
    print(redfirst_text(report))
    _write_outputs(args, report.to_json(), redfirst_markdown(report))
    _record(args, "redfirst", report.to_json())
    return report.exit_code


def _regress(args: argparse.Namespace) -> int:
    from deskcheck.gate.regress import run_regress  # lazy: keeps CLI start-up light
    from deskcheck.gate.render import regress_markdown, regress_text

    with _json_on_error(args, "regress"), _progress("regress", args.base) as say:
        report = run_regress(args.base, args.paths, workers=args.workers, strict=args.strict,
                             require_clean=args.require_clean, rerun=not args.no_rerun,
                             parallel=args.parallel, progress=say)
    print(regress_text(report))
    _write_outputs(args, report.to_json(), regress_markdown(report))
    _record(args, "regress", report.to_json())
    return report.exit_code


def _record(args: argparse.Namespace, kind: str, payload: dict[str, Any]) -> None:
    """The run into the store (default), said on stderr; ``--no-store`` skips it."""
    import sys

    if args.no_store:
        return
    from deskcheck.gate.record import record_gate

    run_id = record_gate(kind, payload)
    print(f"deskcheck: recorded as run {run_id} (deskcheck history --kind {kind}; "
          "--no-store to skip)", file=sys.stderr)
