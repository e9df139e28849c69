"""``deskcheck auto --changed-since REF`` and the pieces ``deskcheck sweep --auto`` reuses.

``add_auto_arguments(parser)`` adds the auto options to any parser (skipping flags the parser
already has, e.g. the sweep's ``--workers``/``--json``/``--no-store``); ``run_auto(args)`` runs the
auto sweep and returns the exit code: 0 every mutant on a changed line was KILLED, 1 a mutant
survived or a changed line has no covering test, 2 usage/config error (raised).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deskcheck import screen
from deskcheck.config import load_config
from deskcheck.errors import ConfigError, DeskcheckError


def add_auto_arguments(parser: argparse.ArgumentParser, *, standalone: bool = False) -> None:
    """Add the auto-sweep options to ``parser`` (``--auto`` too unless ``standalone``)."""
    existing = set(parser._option_string_actions)  # noqa: SLF001 - argparse has no public API

    def add(flag: str, **kwargs) -> None:
        if flag not in existing:
            parser.add_argument(flag, **kwargs)

    if not standalone:
        add("--auto", action="store_true",
            help="mutate the lines changed since --changed-since (mutmut operators) instead of "
                 "sweeping the catalog")
    add("--changed-since", metavar="REF",
        help="base ref: mutate production lines changed since merge-base(REF, HEAD)")
    add("--max-mutants", type=int, metavar="N",
        help="cap per PR (default: [tool.deskcheck] auto_max_mutants or 50; -1: none)")
    add("--max-per-line", type=int, metavar="N",
        help="cap per changed line, most useful operator first (default 1)")
    add("--operators", nargs="+", metavar="NAME",
        help="only these mutmut operators or families (ROR, LCR, UOI, AOR, ...)")
    add("--tests", nargs="+", metavar="ARG",
        help="pytest arguments of the coverage pass that finds owners (default: auto_tests or "
             "pytest's own testpaths)")
    add("--workers", type=int, default=None, help="mutants run in parallel (default: cores)")
    add("--json", metavar="PATH", help="write the results as JSON ('-': stdout)")
    add("--markdown", metavar="PATH", help="write the PR summary (survivors by file)")
    add("--no-store", action="store_true", help="do not record the run in .deskcheck/")
    add("--no-run", action="store_true",
        help="generate mutants and find their owners, but do not run them")
    add("--root", metavar="DIR", help="project folder (default: the current folder)")
    add("--build-coverage-map", action="store_true",
        help="measure the whole suite once and store the per-test coverage map in the store "
             "(the nightly; a PR then re-measures only the tests its change made stale)")
    add("--crash-kills-fall-short", action="store_true",
        help="a kill only by a crash (TypeError/AttributeError/NameError, e.g. from a None the "
             "mutant put there) falls short: the mutant is WRONG_FAILURE ([sweep] crash_kills "
             "= \"fall-short\"; auto: auto_crash_kills)")
    add("--no-coverage-map", action="store_true",
        help="ignore the stored coverage map: run the whole suite under coverage")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "auto", help="diff-scoped automatic mutants: mutate the lines a branch changed, "
                     "owners = the tests that cover them (also: sweep --auto)")
    add_auto_arguments(parser, standalone=True)
    parser.set_defaults(func=run_auto)


def run_auto(args: argparse.Namespace) -> int:
    """Run the auto sweep for parsed ``args``; the exit code (0 holds, 1 falls short)."""
    from deskcheck.mutants.auto.pipeline import run_pipeline
    from deskcheck.mutants.auto.render import markdown_summary, print_result, write_json
    from deskcheck.mutants.auto.settings import settings_from

    if getattr(args, "build_coverage_map", False):
        return build_coverage_map(args)
    ref = getattr(args, "changed_since", None)
    if not ref:
        raise ConfigError("the auto sweep needs a base ref", fix="pass --changed-since REF "
                          "(e.g. --changed-since origin/main)")
    root = Path(getattr(args, "root", None) or Path.cwd()).resolve()
    workers = getattr(args, "workers", None)
    overrides = {
        "max_mutants": getattr(args, "max_mutants", None),
        "max_per_line": getattr(args, "max_per_line", None),
        "operators": getattr(args, "operators", None),
        "tests": tuple(args.tests) if getattr(args, "tests", None) else None,
        "workers": workers if workers is not None else (os.cpu_count() or 1),
        "run_mutants": not getattr(args, "no_run", False),
        "crash_kills": "fall-short" if getattr(args, "crash_kills_fall_short", False) else None,
        "use_coverage_map": not (getattr(args, "no_store", False)
                                 or getattr(args, "no_coverage_map", False)),
    }
    reporter = _reporter()
    reporter.line(f"deskcheck auto: mutating the lines changed since {ref}")  # the first second
    with _json_on_error(getattr(args, "json", None), ref):
        settings = settings_from(load_config(root), root, ref, overrides)
        with reporter:  # the coverage pass and the sweep show their progress on it
            result = run_pipeline(settings, reporter)
    print_result(result, screen.console(highlight=False))
    if getattr(args, "json", None):
        write_json(result, args.json)
    if getattr(args, "markdown", None):
        Path(args.markdown).write_text(markdown_summary(result), encoding="utf-8")
    if settings.run_mutants and result.records and not getattr(args, "no_store", False):
        from deskcheck.mutants.auto.store import save

        save(result)
    return 0 if result.holds else 1


@contextmanager
def _json_on_error(path: str | None, ref: str) -> Iterator[None]:
    """``--json`` is written on every exit path: a run that could not finish says why there
    (``holds: false``, its ``exit_code`` and ``error``), then the error goes on as before."""
    try:
        yield
    except (DeskcheckError, KeyboardInterrupt) as exc:
        if path:
            from deskcheck.interrupts import exit_status

            interrupted = not isinstance(exc, DeskcheckError)
            error = ({"message": f"interrupted ({exc})" if str(exc) else "interrupted"}
                     if interrupted else
                     {"message": exc.message, "location": exc.location, "fix": exc.fix})
            payload = {"command": "auto", "changed_since": ref, "holds": False,
                       "exit_code": exit_status(exc) if interrupted else exc.exit_code,
                       "error": error, "mutants": [], "counts": {}}
            text = json.dumps(payload, indent=2, sort_keys=True)
            if path == "-":
                print(text)
            else:
                Path(path).write_text(text + "\n", encoding="utf-8")
        raise


def build_coverage_map(args: argparse.Namespace) -> int:
    """``--build-coverage-map``: the whole suite under coverage, stored as the map."""
    from deskcheck.mutants.auto.coverage_map import build_map
    from deskcheck.mutants.auto.settings import settings_from
    from deskcheck.report.coverage_map import CoverageMap
    from deskcheck.report.store import Store

    root = Path(getattr(args, "root", None) or Path.cwd()).resolve()
    overrides = {"tests": tuple(args.tests) if getattr(args, "tests", None) else None}
    settings = settings_from(load_config(root), root, "", overrides)
    with Store.for_project(root) as store, _reporter() as progress:
        progress.line("deskcheck auto: building the coverage map (the whole suite, once, "
                      "under coverage)")
        cmap = CoverageMap(store)
        measured = build_map(cmap, root, settings.tests, settings.test_paths,
                             settings.coverage_timeout_s)
        info = cmap.info()
    assert info is not None
    screen.console(highlight=False).print(
        f"coverage map built: {info.tests} tests over {info.production_files} production "
        f"files in {measured.wall_s:.1f} s, stored in {store.path}")
    return 0


def _reporter():
    from deskcheck.progress import ProgressReporter

    return ProgressReporter(screen.console(stderr=True))
