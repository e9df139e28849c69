"""The ``deskcheck`` command: a thin dispatcher.

Each part contributes its subcommands from its own ``commands`` module, which exposes
``register(subparsers)``; every subcommand sets ``func(args) -> int`` (exit code:
0 holds, 1 falls short, 2 usage/config error).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from deskcheck import __version__
from deskcheck.errors import DeskcheckError

COMMAND_MODULES: tuple[str, ...] = (
    "deskcheck.drift_guard.commands",
    "deskcheck.mutants.commands",
    "deskcheck.mutants.auto.commands",
    "deskcheck.suites.commands",
    "deskcheck.gate.commands",
    "deskcheck.report.commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deskcheck",
        description="Prove that the tests guarding a distributed scheduler can fail.",
    )
    parser.add_argument("--version", action="version", version=f"deskcheck {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # the part has no commands (yet)
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except DeskcheckError as exc:
        print(f"deskcheck: error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        from deskcheck.interrupts import exit_status

        print(f"deskcheck: interrupted ({exc})" if str(exc) else "deskcheck: interrupted",
              file=sys.stderr)
        return exit_status(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
