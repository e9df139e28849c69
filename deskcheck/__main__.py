"""``python -m deskcheck``: the same command as ``deskcheck``."""

import sys

from deskcheck.cli import main

sys.exit(main())
