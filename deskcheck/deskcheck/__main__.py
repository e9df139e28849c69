"""``python -m deskcheck``: the same command as ``deskcheck``."""

import sys

from deskcheck.cli import main

if __name__ == "__main__":
    sys.exit(main())
