"""pytest plugin loaded only inside the ``standins --run`` pass (``-p`` on its command line):
keeps the driving tests named in the file ``DESKCHECK_STANDINS_SELECT`` points to.

The pass is given test files, not node ids, so that one driving file that fails to import
(a collection error) cannot stop the others: pytest reports it and runs the rest.

Static discovery names a parametrized test by its function (``t.py::test_loop``); pytest runs
it as items (``t.py::test_loop[a]``, or ``t.py::T::test_loop_0_a`` for
``parameterized.expand``). Each such item is kept, and the id it was kept for is written to
:data:`ALIASES` beside the selection file, so its lines count for the function's id.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports SELECT_ENV from here: it must not pay for pytest
    import pytest

SELECT_ENV = "DESKCHECK_STANDINS_SELECT"
ALIASES = "aliases.json"  # {item node id: the selected id it runs for}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    listing = os.environ.get(SELECT_ENV)
    if not listing:
        return
    wanted = set(Path(listing).read_text(encoding="utf-8").splitlines())
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    aliases: dict[str, str] = {}
    for item in items:
        selected = next((i for i in _ids(item) if i in wanted), None)
        (keep if selected is not None else dropped).append(item)
        if selected is not None and selected != item.nodeid:
            aliases[item.nodeid] = selected
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
    if aliases:
        Path(listing).with_name(ALIASES).write_text(json.dumps(aliases), encoding="utf-8")


def _ids(item: pytest.Item) -> list[str]:
    """The item's node id, then the ids of the function it was generated from: pytest's
    ``originalname`` (``test_loop`` of ``test_loop[a]``) and ``parameterized.expand``'s
    ``place_as`` (the decorated function)."""
    head, sep, _ = item.nodeid.rpartition("::")
    ids = [item.nodeid]
    original = getattr(item, "originalname", None)
    place_as = getattr(getattr(item, "obj", None), "place_as", None)
    for name in (original, getattr(place_as, "__name__", None)):
        if isinstance(name, str) and sep:
            ids.append(f"{head}{sep}{name}")
    return ids
