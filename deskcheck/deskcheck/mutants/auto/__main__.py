"""``python -m deskcheck.mutants.auto --changed-since REF ...``: the auto sweep on its own."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from deskcheck.errors import DeskcheckError
from deskcheck.mutants.auto.commands import add_auto_arguments, run_auto


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deskcheck.mutants.auto",
                                     description="Diff-scoped automatic mutants.")
    add_auto_arguments(parser, standalone=True)
    args = parser.parse_args(argv)
    try:
        return run_auto(args)
    except DeskcheckError as exc:
        print(f"deskcheck: error: {exc.render()}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
