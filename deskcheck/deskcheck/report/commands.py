"""CLI: ``deskcheck history``, ``diff``, ``merge``, ``report`` and ``init``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from deskcheck.config import load_config
from deskcheck.errors import StoreError
from deskcheck.report.history import (
    diff_stored_runs,
    render_diff_markdown,
    render_diff_text,
    resolve_run,
)
from deskcheck.report.init_project import init_project
from deskcheck.report.merge import check_shards, merge_stores, read_shards
from deskcheck.report.records import RUN_KINDS, MutantRecord, RunRecord
from deskcheck.report.renderers import FORMATS, render
from deskcheck.report.renderers.terminal import print_report
from deskcheck.report.reportdata import load_report
from deskcheck.report.store import Store
from deskcheck.report.store import project_store_path as store_path_of
from deskcheck.report.summary import verdict_order


def project_store_path(db: str | None = None) -> Path:
    """``--db`` if given, else ``[tool.deskcheck] store``, else ``.deskcheck/results.sqlite``."""
    if db:
        return Path(db)
    return store_path_of(load_config())


def _existing_store(db: str | None) -> Store:
    path = project_store_path(db)
    if not path.is_file():
        raise StoreError(f"no results store at {path}", location=str(path),
                         fix="run `deskcheck sweep` first, or pass --db PATH")
    return Store(path, root=load_config().root if not db else None, read_only=True)


def _write(text: str, output: str | None) -> None:
    if output and output != "-":
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _console() -> Console:
    """Rich console at the one width rule (``deskcheck.screen``)."""
    from deskcheck import screen

    return screen.console()




def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH",
                        help="results store (default: .deskcheck/results.sqlite of the project)")


def cmd_history(args: argparse.Namespace) -> int:
    from deskcheck.report.coverage_map import CoverageMap

    with _existing_store(args.db) as store:
        runs = store.runs(args.kind)
        coverage_map = CoverageMap(store).info()
    if args.count:
        print(len(runs))
        return 0
    runs = runs[-args.limit:] if args.limit else runs
    if args.json:
        _write(json.dumps([r.to_json() for r in runs], indent=2, sort_keys=True) + "\n",
               args.json)
        return 0
    if not runs:
        what = f"{args.kind} runs" if args.kind else "runs"
        print(f"no {what} recorded in {_shown_path(store.path)}" + (
            f" ({HOW_TO_RECORD[args.kind]})" if args.kind in HOW_TO_RECORD else ""))
    else:
        _print_runs(runs)
    if coverage_map is not None:
        _console().print(
            f"coverage map: {coverage_map.tests} tests over {coverage_map.production_files} "
            f"production files; built {coverage_map.built_at.replace('T', ' ')[:16]}, last "
            f"refreshed {coverage_map.age()} ago", highlight=False, soft_wrap=True)
    return 0


HOW_TO_RECORD = {
    "sweep": "`deskcheck sweep` records each sweep unless --no-store",
    "redfirst": "`deskcheck redfirst` records each run unless --no-store",
    "regress": "`deskcheck regress` records each run unless --no-store",
    "auto": "`deskcheck sweep --auto` records each run unless --no-store",
}
# history columns: (header, kept at any width, drop order: the lowest goes first)
HISTORY_COLUMNS = (("run", True, 0), ("kind", True, 0), ("started", True, 0),
                   ("status", True, 0), ("commit", False, 7), ("mutants", False, 6),
                   ("held", False, 5), ("reused", False, 3), ("branch", False, 4),
                   ("tier", False, 2), ("shard", False, 1))


def _history_cells(run: RunRecord) -> dict[str, str]:
    summary = run.summary
    gate = run.kind in ("redfirst", "regress")
    return {"run": str(run.id), "kind": run.kind,
            "started": run.started_at.replace("T", " ")[:16], "commit": run.commit[:12],
            "branch": run.branch, "tier": run.tier, "shard": run.shard, "status": run.status,
            "mutants": str(summary.get("tests", "")) if gate else _mutants_cell(summary),
            "held": str(summary.get("held", "")), "reused": str(summary.get("reused", ""))}


def _print_runs(runs: list[RunRecord]) -> None:
    from deskcheck import screen

    cells = [_history_cells(run) for run in runs]
    columns = [screen.Column(header, keep=keep, drop_order=order,
                             cells=[row[header] for row in cells])
               for header, keep, order in HISTORY_COLUMNS]
    columns = [c for c in columns if c.keep or any(c.cells)]  # all-empty columns say nothing
    table, dropped = screen.fit_table(columns, screen.width(), title="deskcheck runs")
    out = screen.console()
    out.print(table)
    if dropped:
        out.print(screen.block(screen.dropped_note(dropped, "`history --json -` has them"),
                               out.width), highlight=False, soft_wrap=True)


def _shown_path(path: Path) -> str:
    from deskcheck import screen

    return screen.relative(path)


def _mutants_cell(summary: dict) -> str:
    """``judged`` or ``judged of planned`` when some were never judged."""
    total, never = summary.get("total", ""), summary.get("never_judged", 0)
    return f"{total} of {summary.get('planned', total)}" if never else str(total)


def cmd_diff(args: argparse.Namespace) -> int:
    with _existing_store(args.db) as store:
        run_a = resolve_run(store, args.run_a, args.kind)
        run_b = resolve_run(store, args.run_b, args.kind)
        diff = diff_stored_runs(store, run_a, run_b)
    if args.format == "json":
        text = json.dumps(diff.to_json(), indent=2, sort_keys=True) + "\n"
    elif args.format == "markdown":
        text = render_diff_markdown(diff)
    else:
        text = render_diff_text(diff)
    _write(text, args.output)
    return 1 if diff.got_worse else 0


def cmd_merge(args: argparse.Namespace) -> int:
    into_path = project_store_path(args.into)
    sources = [Path(p) for p in args.dbs]
    if any(p.resolve() == into_path.resolve() for p in sources if p.exists()):
        raise StoreError("--into is one of the stores being merged", location=str(into_path),
                         fix="merge into another store (default: the project's own)")
    parts = read_shards(sources, args.kind)  # every bad source at once, before any output
    check_shards(parts)
    with Store(into_path) as into:
        run_id = merge_stores(sources, into, kind=args.kind, parts=parts)
        run = into.run(run_id)
    summary = run.summary
    if args.json:
        _write(json.dumps({"run": run.to_json(), "into": str(into_path)}, indent=2,
                          sort_keys=True) + "\n", args.json)
    print(f"merged {len(sources)} stores into run {run_id} of {into_path}: "
          f"{summary['total']} mutants, {summary['held']} held, status {run.status}"
          + (f", missing shards {', '.join(summary['missing_shards'])}"
             if summary["missing_shards"] else ""), file=sys.stderr if args.json == "-" else None)
    return 0 if run.status == "holds" else 1


def cmd_report(args: argparse.Namespace) -> int:
    with _existing_store(args.db) as store:
        run_id = resolve_run(store, args.run, args.kind)
        data = load_report(store, run_id)
    if args.format == "terminal" and not args.output:
        print_report(data, _console())
    else:
        _write(render(data, args.format), args.output)
        if args.output and args.output != "-":
            print(f"wrote {args.format} report of run {run_id} to {args.output}",
                  file=sys.stderr)
    return 0


def last_verdict(store: Store, mutant_id: str) -> tuple[RunRecord, MutantRecord] | None:
    """The newest recorded verdict of ``mutant_id`` (sweep and auto runs), with its run."""
    for run in reversed(store.runs()):
        if run.kind not in ("sweep", "auto") or run.id is None:
            continue
        found = next((m for m in store.mutants(run.id) if m.id == mutant_id), None)
        if found is not None:
            return run, found
    return None


def cmd_results(args: argparse.Namespace) -> int:
    """What does not hold in a run, one line each (like ``mutmut results``)."""
    from deskcheck.report.records import HOLDING_VERDICTS
    from deskcheck.report.wording import verdict_message

    with _existing_store(args.db) as store:
        run_id = resolve_run(store, args.run, args.kind)
        run, mutants = store.run(run_id), store.mutants(run_id)
        store_summary = store.summary_of(run_id)
    shown = mutants if args.all else [m for m in mutants if m.verdict not in HOLDING_VERDICTS]
    shown.sort(key=lambda m: (verdict_order(m.verdict), m.id))
    width = max((len(m.verdict) for m in shown), default=0)
    for m in shown:
        print(f"{m.verdict:{width}}  {m.id}  {verdict_message(m)}")
    short = sum(m.verdict not in HOLDING_VERDICTS for m in mutants)
    never = store_summary.get("never_judged", 0)
    ended = _how_it_ended(run.status)
    head = (f"run {run_id} ({run.kind}, {run.started_at or 'unknown start'}, commit "
            f"{run.commit[:12] or 'unknown'})")
    if ended or never:
        ids = store_summary.get("never_judged_ids", [])
        named = (f" ({', '.join(ids)}{', ...' if never > len(ids) else ''})" if ids else "")
        print(f"{head}: {ended or run.status}: {never} of {store_summary.get('planned', never)} "
              f"mutants never judged{named}; {short} of {len(mutants)} judged do not hold; "
              "the run does not hold"
              + ("; run `deskcheck sweep` again to resume it" if ended != "still running"
                 else ""), file=sys.stderr)
        return 1
    print(f"{head}: {short} of {len(mutants)} mutants do not hold"
          + ("; `deskcheck mutants show ID` for one" if short else ""), file=sys.stderr)
    return 1 if short or run.status == "partial" else 0


def _how_it_ended(status: str) -> str:
    """Words for a run that did not complete, ``""`` for one that did."""
    return {"running": "still running", "interrupted": "interrupted",
            "error": "stopped by an error", "partial": "partial (shards missing)"
            }.get(status, "")


def cmd_init(args: argparse.Namespace) -> int:
    from deskcheck.report.init_project import deskcheck_ignored

    root = Path(args.root) if args.root else Path.cwd()
    result = init_project(root)
    shape = result.shape
    if args.json:
        found = {} if shape is None else {
            "adhoc_standins": shape.adhoc_standins, "harnesses": shape.harnesses,
            "catalog": shape.catalog, "metal_tests": shape.metal_tests,
            "uses_torch": shape.uses_torch}
        _write(json.dumps({"actions": [{"path": str(a.path), "action": a.action,
                                        "note": a.note} for a in result.actions],
                           "decisions": result.decisions, "found": found}, indent=2) + "\n",
               args.json)
        return 0
    for action in result.actions:
        note = f" ({action.note})" if action.note else ""
        print(f"{action.action:11} {_relative(action.path, root)}{note}")
    print("found:")
    for decision in result.decisions:
        print(f"  {decision}")
    steps = [] if deskcheck_ignored(root) else ["add `.deskcheck/` to .gitignore"]
    if shape is not None and not shape.catalog:
        steps.append("write a mutant catalog (docs/mutants.md)")
    print("next: " + "; ".join([*steps, "commit the workflows and open a pull request"]))
    return 0


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def register(subparsers: argparse._SubParsersAction) -> None:
    history = subparsers.add_parser("history", help="list recorded runs")
    _add_db(history)
    history.add_argument("--kind", choices=RUN_KINDS, help="only runs of this kind")
    history.add_argument("--limit", type=int, default=0, help="only the newest N runs")
    history.add_argument("--count", action="store_true", help="print only the number of runs")
    history.add_argument("--json", metavar="PATH", help="write the runs as JSON ('-': stdout)")
    history.set_defaults(func=cmd_history)

    diff = subparsers.add_parser(
        "diff", help="new survivors, fixed survivors and verdict changes between two runs",
        description="RUN is an id, `latest` or `latest~N`. Exit 1 when B got worse than A.")
    diff.add_argument("run_a", metavar="RUN_A")
    diff.add_argument("run_b", metavar="RUN_B")
    _add_db(diff)
    diff.add_argument("--kind", choices=RUN_KINDS, help="count latest~N among runs of this kind")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                      help="output format (default: text)")
    diff.add_argument("--output", metavar="PATH", help="write to PATH instead of stdout")
    diff.set_defaults(func=cmd_diff)

    merge = subparsers.add_parser("merge", help="combine shard stores into one run")
    merge.add_argument("dbs", nargs="+", metavar="DB", help="shard results.sqlite files")
    merge.add_argument("--into", metavar="DB",
                       help="store to add the merged run to (default: the project's)")
    merge.add_argument("--kind", choices=RUN_KINDS, default="sweep",
                       help="the kind of the merged run (default: sweep)")
    merge.add_argument("--json", metavar="PATH", help="write the merged run as JSON ('-': stdout)")
    merge.set_defaults(func=cmd_merge)

    report = subparsers.add_parser("report", help="render a run: terminal, json, junit, "
                                   "markdown, stryker or html")
    report.add_argument("run", nargs="?", default="latest", metavar="RUN",
                        help="an id, `latest` (default) or `latest~N`")
    _add_db(report)
    report.add_argument("--kind", choices=RUN_KINDS, help="count latest~N among this kind")
    report.add_argument("--format", choices=FORMATS, default="terminal",
                        help="terminal (default), json, junit, markdown, stryker or html")
    report.add_argument("--output", metavar="PATH", help="write to PATH instead of stdout")
    report.set_defaults(func=cmd_report)

    results = subparsers.add_parser(
        "results", help="what does not hold in the latest sweep, one line each",
        description="One line per mutant that does not hold (survivors first), like "
                    "`mutmut results`; exit 1 if any. RUN: an id, `latest` or `latest~N`.")
    results.add_argument("run", nargs="?", default="latest", metavar="RUN",
                         help="an id, `latest` (default) or `latest~N`")
    _add_db(results)
    results.add_argument("--kind", choices=RUN_KINDS, default="sweep",
                         help="count latest~N among runs of this kind (default: sweep)")
    results.add_argument("--all", action="store_true", help="list the holding mutants too")
    results.set_defaults(func=cmd_results)

    init = subparsers.add_parser(
        "init", help="write a [tool.deskcheck] skeleton and the PR and nightly workflows")
    init.add_argument("--root", metavar="DIR", help="project root (default: current folder)")
    init.add_argument("--json", metavar="PATH", help="write what was done as JSON ('-': stdout)")
    init.set_defaults(func=cmd_init)
