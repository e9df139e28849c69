"""``deskcheck sweep`` and ``deskcheck mutants list|show|run``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from deskcheck.config import load_config
from deskcheck.errors import ConfigError

if TYPE_CHECKING:
    from deskcheck.mutants.catalog import Catalog


def _catalog(args: argparse.Namespace) -> Catalog:
    from deskcheck.mutants.catalog import load_catalog  # libcst: only when a command runs

    if getattr(args, "catalog", None):
        return load_catalog(args.catalog)
    config = load_config()
    path = config.path("catalog")
    if path is None:
        raise ConfigError("no mutant catalog configured", location=str(config.pyproject or "."),
                          fix='pass --catalog PATH or set [tool.deskcheck] catalog = "..."')
    return load_catalog(path)


def _add_catalog(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", metavar="PATH",
                        help="mutant catalog (default: [tool.deskcheck] catalog)")


def register(subparsers: argparse._SubParsersAction) -> None:
    sweep = subparsers.add_parser("sweep", help="sweep the mutant catalog: every mutant must "
                                  "be KILLED by its owner")
    _add_catalog(sweep)
    sweep.add_argument("--only", nargs="+", metavar="ID", default=[],
                       help="sweep only these mutant ids")
    sweep.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                       help="mutants run in parallel (default: cores)")
    sweep.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout)")
    sweep.add_argument("--full-matrix", action="store_true",
                       help="run every test under every mutant (the kill matrix)")
    sweep.add_argument("--no-store", action="store_true",
                       help="do not record the run in .deskcheck/ (nor reuse verdicts)")
    sweep.add_argument("--no-incremental", action="store_true",
                       help="re-run every mutant even when a recorded verdict could be reused")
    sweep.add_argument("--shard", metavar="I/N",
                       help="run only this deterministic shard of the mutants (CI matrix)")
    sweep.add_argument("--changed-since", metavar="REF",
                       help="only mutants whose target function or owners changed since REF")
    from deskcheck.mutants.auto.commands import add_auto_arguments  # light: argparse only

    add_auto_arguments(sweep)  # --auto: mutmut operators on the changed lines instead
    sweep.set_defaults(func=cmd_sweep)

    mutants = subparsers.add_parser("mutants", help="list, show or debug catalog mutants")
    sub = mutants.add_subparsers(dest="mutants_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list the catalog's mutants")
    _add_catalog(listing)
    listing.set_defaults(func=cmd_list)
    show = sub.add_parser("show", help="unified diff of a mutant against today's source")
    _add_catalog(show)
    show.add_argument("id")
    show.set_defaults(func=cmd_show)
    run = sub.add_parser("run", help="run pytest under one mutant: mutants run ID -- ARGS")
    _add_catalog(run)
    run.add_argument("id")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER)
    run.set_defaults(func=cmd_run)


def cmd_sweep(args: argparse.Namespace) -> int:
    if getattr(args, "auto", False):
        from deskcheck.mutants.auto.commands import run_auto

        return run_auto(args)
    from rich.console import Console

    from deskcheck.mutants.render import (
        ProgressReporter,
        shortfall_report,
        summary_line,
        verdict_table,
        write_json,
    )
    from deskcheck.mutants.sweep import SweepOptions, run_sweep

    catalog = _catalog(args)
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1", fix="pass --workers N with N >= 1")
    only = [m.id for m in catalog.select(args.only)]  # unknown ids: usage error, nothing run
    if args.shard:
        from deskcheck.report.shard import select_shard

        only = select_shard(only, args.shard)
        if not only:
            print(f"no mutant falls in shard {args.shard}", file=sys.stderr)
            return 0
    options = SweepOptions(catalog=catalog, only=only, workers=args.workers,
                           full_matrix=args.full_matrix)
    if args.changed_since:
        from deskcheck.report.changed import ChangesSince

        changes = ChangesSince(load_config().root, args.changed_since)
        options.affected = lambda mutant, file, owners: changes.mutant_affected(
            file, mutant.target, owners)
    console = Console(stderr=True)
    reporter = ProgressReporter(console)
    recorder = None if args.no_store else _recorder(catalog, incremental=not args.no_incremental,
                                                    shard=args.shard or "")
    try:
        options.recorder = recorder
        result = run_sweep(options, reporter)
    except BaseException:
        if recorder is not None:
            recorder.__exit__(*sys.exc_info())
        raise
    finally:
        reporter.stop()
    if recorder is not None:
        recorder.finish()
    if not result.session:
        console.print(f"deskcheck: all {result.reused_before_session} verdict(s) reused from "
                      "the store; no test session, no baseline", highlight=False)
    elif result.reused_before_session:
        console.print(f"deskcheck: {result.reused_before_session} verdict(s) reused before "
                      "collecting", highlight=False)
    out = Console()
    out.print(verdict_table(result.records))
    shortfall = shortfall_report(result.records)
    if shortfall:
        out.print(shortfall, markup=False, highlight=False, soft_wrap=True)
    out.print(summary_line(result))
    for note in result.notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    if args.json:
        write_json(result, catalog.path, args.json)
    return 0 if result.holds else 1


def _recorder(catalog: Catalog, incremental: bool, shard: str = ""):
    """The report part's run recorder over the SQLite store of the project the command runs
    in (the folder of the nearest pyproject.toml above the current folder, not the
    catalog's), so ``deskcheck history`` there sees the run. ``shard``: ``I/N`` or ``""``."""
    import platform
    import subprocess as sp

    from deskcheck import __version__
    from deskcheck.report import RunRecorder, Store, config_fingerprint
    from deskcheck.report.records import RunRecord
    from deskcheck.report.store import now_iso

    config = load_config()  # the project the command runs in (its store, its commit)

    def git(*argv: str) -> str:
        done = sp.run(["git", *argv], cwd=config.root, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    run = RunRecord(kind="sweep", commit=git("rev-parse", "HEAD"),
                    branch=git("rev-parse", "--abbrev-ref", "HEAD"), started_at=now_iso(),
                    machine=platform.node(), deskcheck_version=__version__,
                    config_fingerprint=config_fingerprint(config.values, catalog.path),
                    shard=shard)
    return RunRecorder(Store.for_project(config.root), run, incremental=incremental)


def cmd_list(args: argparse.Namespace) -> int:
    from rich.console import Console

    catalog = _catalog(args)
    console = Console()
    for mutant in catalog.mutants:
        owners = ", ".join(mutant.owners) or "(kills markers)"
        console.print(f"[bold]{mutant.id}[/bold]  {mutant.title}\n"
                      f"    {mutant.target}  [{mutant.operator}]  owners: {owners}",
                      highlight=False)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from deskcheck.mutants.mutated import BrokenMutant, StaleOperator
    from deskcheck.mutants.mutation import build_mutation

    catalog = _catalog(args)
    mutant = catalog.get(args.id)
    sys.path.insert(0, str(catalog.root))
    try:
        mutated = build_mutation(mutant)
    except (StaleOperator, BrokenMutant) as exc:
        kind = "STALE" if isinstance(exc, StaleOperator) else "BROKEN"
        print(f"{mutant.id}: {kind}: {exc}", file=sys.stderr)
        return 1
    print(f"# {mutant.id}: {mutant.title}\n# owners: {', '.join(mutant.owners)}")
    sys.stdout.write(mutated.diff(relative_to=Path.cwd()))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from deskcheck.mutants.mutation import build_mutation
    from deskcheck.mutants.process_hook import child_environment

    rest = list(args.pytest_args)
    head, pytest_args = (rest[:rest.index("--")], rest[rest.index("--") + 1:]) \
        if "--" in rest else ([], rest)
    while head:  # options given after ID but before "--"
        option = head.pop(0)
        if option == "--catalog" and head:
            args.catalog = head.pop(0)
        elif option.startswith("--catalog="):
            args.catalog = option.split("=", 1)[1]
        else:
            raise ConfigError(f"unexpected argument {option!r} before '--'",
                              fix="deskcheck mutants run ID [--catalog PATH] -- [pytest args]")
    catalog = _catalog(args)
    mutant = catalog.get(args.id)
    sys.path.insert(0, str(catalog.root))
    mutated = build_mutation(mutant)
    env = {**os.environ, **child_environment(mutated.payload(), None, f"run-{mutant.id}")}
    print(f"deskcheck: running pytest under mutant {mutant.id} ({mutant.title})",
          file=sys.stderr)
    return subprocess.call([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                            *pytest_args], env=env)
