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
    sweep = subparsers.add_parser(
        "sweep", help="sweep the mutant catalog: every mutant must be KILLED by its owner",
        description="Collect the [sweep] tests once, run the owners on clean code (baseline), "
                    "then each mutant in a forked child with the defect injected in memory. "
                    "Exit 0 when every mutant is KILLED by its owner (or an accepted "
                    "survivor), 1 otherwise, 2 on a catalog/usage error.")
    _add_catalog(sweep)
    sweep.add_argument("--only", nargs="+", metavar="ID", default=[],
                       help="sweep only these mutant ids")
    sweep.add_argument("-n", "--workers", type=int, default=os.cpu_count() or 1,
                       help="mutants run in parallel (default: cores)")
    sweep.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout)")
    sweep.add_argument("--record", action="store_true",
                       help="every rank-pool task records its decisions: a kill's excerpt names "
                            "the first decision where the ranks split (DESKCHECK_RECORD=all)")
    sweep.add_argument("--full-matrix", action="store_true",
                       help="run every test under every mutant (the kill matrix)")
    sweep.add_argument("--no-store", action="store_true",
                       help="do not record the run in .deskcheck/ (nor reuse verdicts)")
    sweep.add_argument("--no-incremental", action="store_true",
                       help="re-run every mutant even when a recorded verdict could be reused")
    sweep.add_argument("--shard", metavar="I/N",
                       help="run only this deterministic shard of the mutants (CI matrix); "
                            "balanced by the durations recorded in the store when it has them")
    sweep.add_argument("--shard-by", choices=("durations", "count"), default="durations",
                       help="durations (default): balance recorded seconds, unknown mutants "
                            "as the median; count: a hash of the id (a mutant never moves)")
    sweep.add_argument("--durations-from", metavar="DB",
                       help="the store whose recorded durations plan the shards (default: "
                            "the project's store); every shard job must use the same one")
    sweep.add_argument("--changed-since", metavar="REF",
                       help="only mutants whose target function or owners changed since REF")
    from deskcheck.mutants.auto.commands import add_auto_arguments  # light: argparse only

    add_auto_arguments(sweep)  # --auto: mutmut operators on the changed lines instead
    sweep.set_defaults(func=cmd_sweep)

    mutants = subparsers.add_parser(
        "mutants", help="list, show or debug catalog mutants",
        description="Look at the catalog's mutants one by one: list them, show one's diff "
                    "and last verdict, or run pytest under one.")
    sub = mutants.add_subparsers(dest="mutants_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list the catalog's mutants")
    _add_catalog(listing)
    listing.set_defaults(func=cmd_list)
    show = sub.add_parser("show", help="a mutant's diff against today's source and its last "
                          "recorded verdict")
    _add_catalog(show)
    show.add_argument("id", help="the mutant id (deskcheck mutants list)")
    show.add_argument("--db", metavar="PATH",
                      help="results store (default: .deskcheck/results.sqlite of the project)")
    show.set_defaults(func=cmd_show)
    run = sub.add_parser("run", help="run pytest under one mutant: mutants run ID -- ARGS")
    _add_catalog(run)
    run.add_argument("id", help="the mutant id (deskcheck mutants list)")
    run.add_argument("--record", action="store_true",
                     help="every rank-pool task records its decisions, so a rank failure or "
                          "hang names the first decision where the ranks split (congruence "
                          "arms always do; DESKCHECK_RECORD=all)")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, metavar="-- PYTEST_ARGS",
                     help="arguments for pytest after --")
    run.set_defaults(func=cmd_run)


def cmd_sweep(args: argparse.Namespace) -> int:
    """SIGTERM/SIGHUP interrupt a sweep like Ctrl-C: the run is stored ``interrupted`` with
    the verdicts decided so far, and the exit status is 128 + the signal."""
    import signal

    from deskcheck.interrupts import signals_raise

    with signals_raise(extra=(signal.SIGINT,)):
        return _sweep(args)


def _sweep(args: argparse.Namespace) -> int:
    if not getattr(args, "record", False):
        return _sweep_run(args)
    before = os.environ.get("DESKCHECK_RECORD")
    os.environ["DESKCHECK_RECORD"] = "all"  # inherited by every forked child and started python
    try:
        return _sweep_run(args)
    finally:  # called in-process (a test, an embedding tool): leave the environment as found
        if before is None:
            os.environ.pop("DESKCHECK_RECORD", None)
        else:
            os.environ["DESKCHECK_RECORD"] = before


# Options ``sweep --help`` lists for ``--auto`` that a catalog sweep has no use for.
AUTO_ONLY = ("max_mutants", "max_per_line", "operators", "tests", "markdown", "no_run", "root",
             "build_coverage_map", "no_coverage_map")


def _sweep_run(args: argparse.Namespace) -> int:
    if getattr(args, "auto", False):
        from deskcheck.mutants.auto.commands import run_auto

        return run_auto(args)
    given = [f"--{name.replace('_', '-')}" for name in AUTO_ONLY
             if getattr(args, name, None) not in (None, False)]
    if given:  # never silently ignored: a catalog sweep would run without them
        raise ConfigError(f"{', '.join(given)} only apply to an auto sweep (--auto)",
                          location=given[0],
                          fix="add --auto --changed-since REF to sweep the changed lines, or "
                              f"drop {', '.join(given)} to sweep the catalog")
    # the first second: say something before the catalog (libcst) and pytest are imported
    print("deskcheck sweep: loading the catalog and pytest...", file=sys.stderr, flush=True)

    from deskcheck.mutants.render import (
        output_console,
        shortfall_report,
        summary_text,
        verdict_table,
        write_json,
    )
    from deskcheck.mutants.sweep import SweepOptions, run_sweep
    from deskcheck.progress import ProgressReporter

    changes = None
    if args.changed_since:  # a bad ref is reported at once, before the catalog is read
        from deskcheck.report.changed import ChangesSince

        changes = ChangesSince(load_config().root, args.changed_since)
    catalog = _catalog(args)
    if getattr(args, "crash_kills_fall_short", False):
        from dataclasses import replace

        catalog = replace(catalog, settings=replace(catalog.settings, crash_kills="fall-short"))
    if not catalog.mutants:  # nothing swept must not read as "every mutant held"
        from deskcheck.errors import CatalogError

        raise CatalogError(f"the catalog {catalog.path} has no mutants",
                           location=str(catalog.path),
                           fix="add [[mutant]] tables (see docs/mutants.md), or point --catalog "
                               "at the catalog you meant")
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1", fix="pass --workers N with N >= 1")
    only = [m.id for m in catalog.select(args.only)]  # unknown ids: usage error, nothing run
    shard_label = ""
    if args.shard:
        only, shard_label = _shard(only, args)
        if not only:
            print(f"no mutant falls in shard {args.shard}", file=sys.stderr)
            return 0
    options = SweepOptions(catalog=catalog, only=only, workers=args.workers,
                           full_matrix=args.full_matrix)
    if changes is not None:
        options.affected = lambda mutant, file, owners: changes.mutant_affected(
            file, mutant.target, owners)
    from deskcheck import screen

    console = screen.console(stderr=True)
    from deskcheck.mutants.tree_guard import changed, snapshot

    project = load_config().root
    tree_before = snapshot(project)
    reporter = ProgressReporter(console)
    reporter.start(f"deskcheck sweep: {len(only)} mutant(s) from {catalog.path.name}, "
                   f"{args.workers} worker(s)")
    recorder = None if args.no_store else _recorder(catalog, incremental=not args.no_incremental,
                                                    shard=shard_label, planned=only)
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
    left = changed(tree_before, snapshot(project), _own_outputs(project, args))
    if left:
        shown = "\n".join(f"  {path}" for path in left[:20]) + (
            f"\n  ... and {len(left) - 20} more" if len(left) > 20 else "")
        console.print(f"deskcheck: warning: the sweep left {len(left)} file(s) changed in "
                      f"{project} (git status); a mutant or a test under it wrote them:\n"
                      f"{shown}\n  fix: look at them, then restore with `git checkout -- "
                      "PATH` or remove them; keep tests writing under tmp_path",
                      markup=False, highlight=False, soft_wrap=True)
    out = output_console()
    out.print(verdict_table(result.records))
    shortfall = shortfall_report(result.records)
    if shortfall:
        out.print(shortfall, markup=False, highlight=False, soft_wrap=True)
    out.print(summary_text(result), highlight=False, soft_wrap=True)
    for note in result.notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    if args.json:
        write_json(result, catalog.path, args.json)
    return 0 if result.holds else 1


def _shard(ids: list[str], args: argparse.Namespace) -> tuple[list[str], str]:
    """The ids of ``--shard I/N`` and the label the run records (``I/N~plan`` when the plan
    balanced recorded durations; see ``deskcheck.report.shard``)."""
    from deskcheck.report.shard import parse_shard, select_balanced, select_shard

    parse_shard(args.shard)  # a bad spec is a usage error before any store is opened
    if args.shard_by == "count":
        return select_shard(ids, args.shard), args.shard.strip()
    durations: dict[str, float] = {}
    path = Path(args.durations_from) if args.durations_from else None
    if path is None:
        from deskcheck.report.store import project_store_path

        path = project_store_path(load_config())
    elif not path.is_file():
        raise ConfigError(f"--durations-from {path}: no such store", location="--durations-from",
                          fix="pass a results.sqlite a sweep wrote, or drop the option")
    if path.is_file():
        from deskcheck.report.store import Store

        with Store(path, read_only=True) as store:
            durations = store.mutant_durations("sweep")
    return select_balanced(ids, args.shard, durations)


def _own_outputs(project: Path, args: argparse.Namespace) -> list[str]:
    """What the sweep itself writes under ``project`` (its store, its --json report),
    relative to the git top level: never reported as left behind by a mutant."""
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project,
                         capture_output=True, text=True, check=False).stdout.strip()
    base = Path(top or project).resolve()
    owned = [Path(project) / ".deskcheck"]
    if getattr(args, "json", None) and args.json != "-":
        owned.append(Path(args.json))
    if not getattr(args, "no_store", False):
        from deskcheck.report.store import project_store_path

        try:
            owned.append(project_store_path(load_config()).parent)
        except Exception:  # noqa: BLE001 - the default folder is already listed
            pass
    relative = []
    for path in owned:
        try:
            relative.append(str(path.resolve().relative_to(base)))
        except ValueError:
            continue
    return relative


def _recorder(catalog: Catalog, incremental: bool, shard: str = "",
              planned: list[str] | None = None):
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
    return RunRecorder(Store.for_project(config.root), run, incremental=incremental,
                       planned=planned or ())


def cmd_list(args: argparse.Namespace) -> int:
    from deskcheck import screen
    from deskcheck.mutants.render import catalog_listing

    catalog = _catalog(args)
    if not catalog.mutants:
        print(f"no mutants in {screen.relative(catalog.path)}: add [[mutant]] tables "
              "(docs/mutants.md)")
        return 0
    screen.console().print(catalog_listing(catalog.mutants), highlight=False, soft_wrap=True)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """The mutant's diff against today's source, then its last recorded verdict and why."""
    from deskcheck.mutants.mutated import BrokenMutant, StaleOperator
    from deskcheck.mutants.mutation import build_mutation

    catalog = _catalog(args)
    mutant = catalog.get(args.id)
    print(f"# {mutant.id}: {mutant.title}\n# target: {mutant.target} [{mutant.operator}]"
          f"\n# owners: {', '.join(mutant.owners) or '(kills markers)'}")
    print("# last verdict: " + _last_verdict(mutant.id, getattr(args, "db", None)))
    sys.stdout.flush()
    sys.path.insert(0, str(catalog.root))
    try:
        mutated = build_mutation(mutant)
    except (StaleOperator, BrokenMutant) as exc:
        kind = "STALE" if isinstance(exc, StaleOperator) else "BROKEN"
        print(f"{mutant.id}: {kind}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(mutated.diff(relative_to=Path.cwd()))
    return 0


def _last_verdict(mutant_id: str, db: str | None) -> str:
    """``SURVIVED (run 12, sweep, 2026-...): why`` from the store, or why there is none."""
    from deskcheck.report.commands import last_verdict, project_store_path
    from deskcheck.report.store import Store
    from deskcheck.report.wording import excerpt_lines, verdict_message

    path = project_store_path(db)
    if not path.is_file():
        return f"none recorded (no store at {path}; run `deskcheck sweep`)"
    with Store(path, read_only=True) as store:
        found = last_verdict(store, mutant_id)
    if found is None:
        return f"none recorded in {path}"
    run, record = found
    reused = ", reused" if record.reused else ""
    text = (f"{record.verdict} (run {run.id}, {run.kind}, {run.started_at}, commit "
            f"{run.commit[:12] or 'unknown'}{reused}): {verdict_message(record)}")
    excerpt = excerpt_lines(record)[:8]
    return text + "".join(f"\n#   | {line}" for line in excerpt)


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
        elif option == "--record":
            args.record = True
        else:
            raise ConfigError(f"unexpected argument {option!r} before '--'",
                              fix="deskcheck mutants run ID [--catalog PATH] [--record] -- "
                                  "[pytest args]")
    catalog = _catalog(args)
    mutant = catalog.get(args.id)
    sys.path.insert(0, str(catalog.root))
    mutated = build_mutation(mutant)
    from deskcheck.mutants.uniformity_owner import node_owners

    caught = _run_uniformity_owners(catalog, mutant, mutated)
    if caught is not None and not pytest_args and not node_owners(mutant.owners):
        return 1 if caught else 0  # only the audit owns it: its judgement is the run
    env = {**os.environ, **child_environment(mutated.payload(), None, f"run-{mutant.id}")}
    if args.record:
        env["DESKCHECK_RECORD"] = "all"
    print(f"deskcheck: running pytest under mutant {mutant.id} ({mutant.title})",
          file=sys.stderr)
    return subprocess.call([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                            *pytest_args], env=env)


def _run_uniformity_owners(catalog: Catalog, mutant, mutated) -> bool | None:
    """Judge the mutant's ``uniformity:`` owners (the audit on the mutated source, in
    memory) and print each judgement; True when one killed, None when it has none."""
    from deskcheck.errors import CatalogError
    from deskcheck.mutants.static_owners import StaticOwners

    static = StaticOwners(catalog, [mutant])
    if not static.of(mutant.id):
        return None
    errors = static.errors([mutant])
    if errors:
        raise CatalogError(f"{len(errors)} problem(s) in catalog {catalog.path}",
                           location=str(catalog.path), errors=errors)
    red = static.baseline_red(mutant)
    if red is not None:
        print(f"{mutant.id}: BASELINE_RED: {red}", file=sys.stderr)
        return False
    for result in static.judge_mutant(mutant, mutated):
        word = "KILLED" if result.outcome == "failed" else "held"
        print(f"{result.nodeid}: {word}: {result.message}"
              + (f"\n{result.text}" if result.text else ""), file=sys.stderr)
    return static.killed(mutant.id)
