"""CLI: ``deskcheck standins [PATHS] [--json] [--run] [--strict] [--root DIR]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from deskcheck.config import load_config
from deskcheck.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "standins", help="find the stand-ins existing tests build and judge them on the "
                         "paths those tests drive",
        description="Statically (nothing imported) find Cls.__new__(Cls), SimpleNamespace / "
                    "plain objects passed as self, types.MethodType bindings, MagicMock(spec=) "
                    "and the factories and fixtures returning them; resolve each model "
                    "through the test's imports and judge it. Exit 0 holds, 1 drift, a silent "
                    "skip or a problem (unexercised/unknown/reverse only with --strict), "
                    "2 usage error.")
    parser.add_argument("paths", nargs="*", help="test files or folders (default: "
                        "[tool.deskcheck] test_paths, else pytest testpaths, else tests/)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--run", action="store_true",
                        help="run the driving tests once under coverage: verdicts on the "
                             "lines they execute instead of static branch pruning")
    parser.add_argument("--strict", action="store_true",
                        help="unexercised, unknown and reverse findings fail too")
    parser.add_argument("--root", action="append", default=[],
                        help="folder holding production packages (repeatable; default: "
                             "[tool.deskcheck] source_paths, else the project's packages)")
    parser.set_defaults(func=run_standins)


def default_paths(config) -> list[Path]:
    configured = config.get("test_paths")
    if configured:
        values = [configured] if isinstance(configured, str) else list(configured)
        return [config.root / v for v in values]
    pytest_ini = _pytest_testpaths(config)
    if pytest_ini:
        return [config.root / v for v in pytest_ini]
    return [p for p in (config.root / "tests", config.root / "test") if p.exists()]


def _pytest_testpaths(config) -> list[str]:
    from deskcheck.pytest_ini import pytest_config

    return pytest_config(config.root).args("testpaths")


def run_standins(args: argparse.Namespace) -> int:
    from deskcheck.drift_guard.standins.discover import discover, find

    config = load_config()
    paths = [Path(p) for p in args.paths] or default_paths(config)
    missing = [str(p) for p in paths if not p.exists()]
    if missing or not paths:
        raise ConfigError(f"no such test path: {', '.join(missing)}" if missing else
                          "no test paths to search", location=str(config.pyproject or
                                                                 config.root),
                          fix="pass existing test files or folders, or set "
                              "[tool.deskcheck] test_paths")
    for root in args.root:
        if not Path(root).is_dir():
            raise ConfigError(f"--root {root} is not a folder", location=root,
                              fix="pass the folder that holds the production package")
    if args.run:  # the long form: say at once what it does
        print(f"deskcheck standins: finding stand-ins under {', '.join(map(str, paths))}",
              file=sys.stderr, flush=True)
    found = find(paths, config.root.resolve())
    result = discover(paths, config, roots=args.root, strict=args.strict, finder_result=found,
                      verdicts=not args.run)
    if args.run and result.driving_tests:
        from deskcheck.drift_guard.standins.run import run_driving
        from deskcheck.progress import ProgressReporter

        with ProgressReporter() as progress:  # the coverage pass shows its counts on it
            progress.line(f"deskcheck standins: {len(result.driving_tests)} driving test(s) "
                          "run once under coverage to find the driven path")
            executed, info = run_driving(result.driving_tests, result.model_files,
                                         config.root)
        result = discover(paths, config, roots=args.root, strict=args.strict,
                          executed=executed, finder_result=found,
                          failed=frozenset(info["failed"]))
        result.run = info
    elif args.run:  # nothing to run: judge statically
        result = discover(paths, config, roots=args.root, strict=args.strict,
                          finder_result=found)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str))
    else:
        from deskcheck.drift_guard.standins.render import render  # rich: the terminal view only

        sys.stdout.write(render(result))
    return 0 if result.holds else 1

