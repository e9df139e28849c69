"""CLI: ``deskcheck drift``, ``deskcheck surface`` and ``deskcheck pointers``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from deskcheck.config import load_config
from deskcheck.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    drift = subparsers.add_parser(
        "drift", help="run every registered harness/stub drift guard and its can-fail arm",
        description="Import the modules that declare harnesses/stubs ([tool.deskcheck] "
                    "harnesses, else pytest testpaths), then guard each. Exit 1 on drift.")
    drift.add_argument("paths", nargs="*", help="files/folders/modules to search instead")
    drift.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    drift.add_argument("--no-can-fail", action="store_true", help="skip the can-fail arms")
    drift.add_argument("--changed-since", metavar="REF",
                       help="the PR view: names the branch's production code newly needs, "
                            "compared with REF, on the methods each stand-in drives "
                            "(registered and discovered stand-ins); exit 1 lists them")
    drift.add_argument("--markdown", metavar="FILE",
                       help="with --changed-since: also write the list as Markdown (PR comment)")
    drift.set_defaults(func=run_drift)

    surface = subparsers.add_parser(
        "surface", help="the production surface of MODULE:Class.method",
        description="Every self.X the method reads/writes, followed through self.m(), "
                    "properties and super() along the MRO. Static mode imports nothing.")
    surface.add_argument("target", help="MODULE:Class.method (or MODULE:Class with --method)")
    surface.add_argument("--method", action="append", default=[], help="more root methods")
    surface.add_argument("--root", action="append", default=[],
                         help="folder holding the top-level package (repeatable; default: .)")
    mode = surface.add_mutually_exclusive_group()
    mode.add_argument("--static", dest="mode", action="store_const", const="static",
                      help="read the source with libcst; import nothing (default)")
    mode.add_argument("--runtime", dest="mode", action="store_const", const="runtime",
                      help="import the module and inspect the live classes (sees dynamic "
                           "attributes; runs import-time code)")
    surface.add_argument("--json", action="store_true", help="print the surface as JSON")
    surface.set_defaults(func=run_surface, mode="static")

    pointers = subparsers.add_parser(
        "pointers", help="check that path.py:LINE citations resolve to the symbol they name")
    pointers.add_argument("paths", nargs="+", help="docs/code files or folders to scan")
    pointers.add_argument("--root", action="append", default=[],
                          help="folders to resolve cited paths against (default: .)")
    pointers.add_argument("--json", action="store_true", help="print the findings as JSON")
    pointers.set_defaults(func=run_pointers)


def run_surface(args: argparse.Namespace) -> int:
    from deskcheck.static import surface

    roots = args.root or [str(Path.cwd())]
    if args.mode == "runtime":
        for root in roots:
            sys.path.insert(0, str(Path(root).resolve()))
    result = surface(args.target, *args.method, roots=roots, mode=args.mode)
    if not result.roots:
        raise ConfigError(f"no method named in {args.target!r}", location=args.target,
                          fix="write MODULE:Class.method, or add --method NAME")
    data = result.to_json()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['class']} ({data['mode']}): {', '.join(data['roots'])}")
    print(f"  MRO: {' -> '.join(data['mro'])}")
    for note in data["notes"]:
        print(f"  note: {note}")
    from deskcheck.drift_guard.verdicts import display_path

    print(f"  {len(data['methods'])} methods reached:")
    for method in data["methods"]:
        print(f"    {method['name']}  {display_path(method['file'])}:{method['line']}")
    for title, table in (("reads", data["reads"]), ("writes", data["writes"])):
        print(f"  {len(table)} {title}:")
        for name, sites in table.items():
            first = sites[0]
            more = f" (+{len(sites) - 1} more)" if len(sites) > 1 else ""
            where = f"{display_path(first['file'])}:{first['line']}"
            print(f"    {name:40} {first['kind']:8} {where}{more}")
    if data["context"]:
        print(f"  {len(data['context'])} context reads (module-level state every test sets up):")
        for name, sites in data["context"].items():
            print(f"    {name:40} {display_path(sites[0]['file'])}:{sites[0]['line']}")
    print(f"  elapsed {data['elapsed_s']:.3f}s")
    return 0


def run_drift(args: argparse.Namespace) -> int:
    from deskcheck.drift_guard import registry
    from deskcheck.drift_guard._discover import import_guard_modules, search_paths
    from deskcheck.drift_guard.verdicts import can_fail, guard

    start = time.perf_counter()
    config = load_config()
    if args.changed_since:  # a bad ref is reported at once, before any import
        from deskcheck.drift_guard.changed import verify_ref

        verify_ref(Path(config.root), args.changed_since)
    sys.path.insert(0, str(config.root))
    skipped: list[dict[str, Any]] = []
    imported = import_guard_modules(config, args.paths, skipped)
    if args.changed_since:
        return _run_changed_since(args, config, skipped)
    subjects = registry.registered()
    if not subjects and not skipped:
        raise ConfigError(
            f"no registered harness or stub found in {search_paths(config, args.paths)}",
            location=str(config.pyproject or config.root),
            fix="declare Harness subclasses / StubSpec objects in those files, or point "
                "[tool.deskcheck] harnesses at the files that do")
    results: list[dict[str, Any]] = []
    failed = bool(skipped)  # a guard file skipped at import: its guards were never checked
    for key, subject in subjects.items():
        verdict = guard(subject)
        entry = {"key": key, **verdict.to_json()}
        if not args.no_can_fail:
            arm = can_fail(subject)
            entry["can_fail"] = {"ok": arm.ok, "canary": arm.canary, "added": arm.added,
                                 "message": arm.message()}
            failed |= not arm.ok
        failed |= not verdict.ok
        results.append(entry)
    if args.json:
        print(json.dumps({"ok": not failed, "guards": results, "imported": imported,
                          "skipped": skipped,
                          "elapsed_s": round(time.perf_counter() - start, 4)}, indent=2))
    else:
        for entry in results:
            status = "holds" if entry["ok"] else "DRIFTED"
            print(f"{entry['key']}: {status}")
            if not entry["ok"]:
                print("  " + entry["message"].replace("\n", "\n  "))
            arm = entry.get("can_fail")
            if arm is not None and not arm["ok"]:
                print("  " + arm["message"])
        for line in skipped_lines(skipped):
            print(line)
        verdict = "drift found" if any(not e["ok"] for e in results) else (
            "not every guard file was checked" if skipped else "all hold")
        print(f"{len(results)} guard(s), {verdict} ({time.perf_counter() - start:.2f}s)")
    return 1 if failed else 0


def skipped_lines(skipped: list[dict[str, Any]]) -> list[str]:
    """One line per guard file skipped at import: where, why, and that it was not checked."""
    from deskcheck.drift_guard.verdicts import display_path

    return [f"{display_path(s['file'])}{':' + str(s['line']) if s['line'] else ''}: skipped "
            f"at import ({s['reason']}): its guards were not checked" for s in skipped]


def _run_changed_since(args: argparse.Namespace, config: Any,
                       skipped: list[dict[str, Any]] | None = None) -> int:
    from deskcheck.drift_guard.changed import (
        changed_since,
        discovered_subjects,
        registered_subjects,
    )

    repo = Path(config.root)
    subjects = registered_subjects(repo)
    found, problems = discovered_subjects(repo, config)
    subjects += found
    report = changed_since(repo, args.changed_since, subjects)
    report.problems += problems + skipped_lines(skipped or [])
    if args.markdown:
        Path(args.markdown).write_text(report.markdown(), encoding="utf-8")
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.render())
    return 0 if report.ok and not skipped else 1


def run_pointers(args: argparse.Namespace) -> int:
    from deskcheck.drift_guard.pointers import check_pointers

    report = check_pointers([Path(p) for p in args.paths],
                            roots=[Path(r) for r in args.root] or [Path.cwd()])
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.render())
    return 0 if report.ok else 1
