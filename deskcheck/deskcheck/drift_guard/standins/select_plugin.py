"""pytest plugin loaded only inside the ``standins --run`` pass (``-p`` on its command line):
keeps the driving tests named in the file ``DESKCHECK_STANDINS_SELECT`` points to.

The pass is given test files, not node ids, so that one driving file that fails to import
(a collection error) cannot stop the others: pytest reports it and runs the rest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports SELECT_ENV from here: it must not pay for pytest
    import pytest

SELECT_ENV = "DESKCHECK_STANDINS_SELECT"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    listing = os.environ.get(SELECT_ENV)
    if not listing:
        return
    wanted = set(Path(listing).read_text(encoding="utf-8").splitlines())
    keep = [item for item in items if item.nodeid in wanted]
    dropped = [item for item in items if item.nodeid not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
