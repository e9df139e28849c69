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
    "deskcheck.drift_guard.standins.command",
    "deskcheck.mutants.commands",
    "deskcheck.mutants.auto.commands",
    "deskcheck.suites.commands",
    "deskcheck.gate.commands",
    "deskcheck.report.commands",
    "deskcheck.uniformity.commands",
)


# Which module registers a command, so ``deskcheck sweep`` imports the sweep's part only and
# says something in its first second. A command missing here (a new one) still works: an
# unknown first word imports every module, as ``--help`` does.
COMMAND_INDEX: dict[str, str] = {
    **dict.fromkeys(("drift", "surface", "pointers"), "deskcheck.drift_guard.commands"),
    **dict.fromkeys(("sweep", "mutants"), "deskcheck.mutants.commands"),
    "standins": "deskcheck.drift_guard.standins.command",
    "auto": "deskcheck.mutants.auto.commands",
    "suites": "deskcheck.suites.commands",
    "uniformity": "deskcheck.uniformity.commands",
    **dict.fromkeys(("redfirst", "regress"), "deskcheck.gate.commands"),
    **dict.fromkeys(("history", "diff", "merge", "report", "results", "init"),
                    "deskcheck.report.commands"),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (given ``argv`` naming a known command) just the part
    that registers it."""
    first = next((a for a in argv or () if not a.startswith("-")), None)
    modules = (COMMAND_INDEX[first],) if first in COMMAND_INDEX else COMMAND_MODULES
    parser = argparse.ArgumentParser(
        prog="deskcheck",
        description="Prove that the tests guarding a distributed scheduler can fail.",
    )
    parser.add_argument("--version", action="version", version=f"deskcheck {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # the part has no commands (yet)
                continue
            raise
        module.register(subparsers)
    _describe(subparsers)
    return parser


def _describe(subparsers: argparse._SubParsersAction) -> None:
    """Every subcommand's ``--help`` opens with a description line: its own, else the one
    line of help the command list shows (argparse leaves it out otherwise)."""
    helps = {action.dest: action.help for action in subparsers._choices_actions}
    for name, sub in subparsers.choices.items():
        if not sub.description and helps.get(name):
            sub.description = helps[name][:1].upper() + helps[name][1:] + "."
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                _describe(action)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(argv) if first in COMMAND_INDEX else build_parser()
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
