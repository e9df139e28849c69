"""CLI: ``deskcheck uniformity TARGET --root SRC``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    cmd = subparsers.add_parser(
        "uniformity", help="find the decisions that gate a collective and walk their input sets",
        description="Static (nothing is imported): every branch, loop trip count and early "
                    "exit that decides whether a collective runs, its inputs traced to their "
                    "sources and classed AGREED / CONFIG / RANK-LOCAL / UNKNOWN relative to "
                    "the collective's group. Exit 1 on a RANK-LOCAL decision (or UNKNOWN "
                    "under --strict), a VACUOUS can-fail arm or a failing declaration.")
    cmd.add_argument("target", help="MODULE:Class (its root methods) or MODULE:Class.method")
    cmd.add_argument("--root", action="append", default=[],
                     help="folder holding the top-level package (default: .)")
    cmd.add_argument("--roots", action="append", default=[], metavar="GLOB",
                     help="root methods of the class (default: config roots, else event_loop*)")
    cmd.add_argument("--config", metavar="PYPROJECT",
                     help="read [tool.deskcheck.uniformity] from this file "
                          "(default: ROOT/pyproject.toml)")
    cmd.add_argument("--strict", action="store_true", help="UNKNOWN decisions fail too")
    cmd.add_argument("--json", action="store_true", help="print the audit as JSON")
    cmd.add_argument("--markdown", metavar="FILE", help="also write the audit as Markdown")
    cmd.add_argument("--verbose", action="store_true", help="list every decision")
    cmd.add_argument("--can-fail", action="store_true",
                     help="run each decision's can-fail arm (a rank-local read planted in "
                          "memory must be reported for exactly that decision)")
    cmd.add_argument("--changed-since", metavar="REF",
                     help="report only what the branch adds or changes against REF: "
                          "decisions, collective sites and rank-local inputs")
    cmd.add_argument("--outside-writes", action="store_true",
                     help="also follow writes of a field through another object "
                          "(req.to_finish = ... in the scheduler): finds more, runs slower "
                          "(config: outside_writes = true)")
    cmd.add_argument("--no-cache", action="store_true",
                     help="audit from scratch: neither read nor write the audit cache "
                          "(.deskcheck/uniformity_cache.sqlite beside the config)")
    cmd.set_defaults(func=run_uniformity)


def run_uniformity(args: argparse.Namespace) -> int:
    from deskcheck.uniformity.audit import audit
    from deskcheck.uniformity.cache import AuditCache, default_cache_path
    from deskcheck.uniformity.config import load_uniformity_config
    from deskcheck.uniformity.render import render_terminal, write_markdown

    root = Path(args.root[0] if args.root else ".")
    config = load_uniformity_config(Path(args.config) if args.config else root / "pyproject.toml")
    if args.outside_writes:
        config.outside_writes = True
    cache = None if args.no_cache else AuditCache(default_cache_path(config))
    if args.changed_since:
        from deskcheck.uniformity.changed import changed_since

        changes = changed_since(args.target, root=root, ref=args.changed_since,
                                roots_methods=args.roots or None, config=config, cache=cache)
        if args.json:
            print(json.dumps(changes.to_json(), indent=2))
        else:
            print("\n".join(changes.lines()))
        if args.markdown:
            Path(args.markdown).write_text(changes.to_markdown(), encoding="utf-8")
        return changes.exit_code(args.strict)
    report = audit(args.target, root=root, roots_methods=args.roots or None, config=config,
                   cache=cache)
    if args.can_fail:
        from deskcheck.uniformity.canfail import run_can_fail

        run_can_fail(report, args.target, root=root, roots_methods=args.roots or None,
                     config=config)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        render_terminal(report, strict=args.strict, verbose=args.verbose)
    if args.markdown:
        write_markdown(report, args.markdown, args.strict)
    return report.exit_code(args.strict)
