"""PYTHONPATH for a python a test starts: the test's own roots first, then the caller's.

Replacing the caller's PYTHONPATH would lose what it carries: deskcheck itself where it runs
from a checkout rather than an install (`make metal` on a GPU machine), and the import hook
that applies a self-proof mutant to the deskcheck a test starts."""

from __future__ import annotations

import os
from pathlib import Path


def extended(*roots: str | Path) -> str:
    """``roots`` in order, then the entries of the caller's PYTHONPATH."""
    return os.pathsep.join(filter(None, [*map(str, roots), os.environ.get("PYTHONPATH")]))
