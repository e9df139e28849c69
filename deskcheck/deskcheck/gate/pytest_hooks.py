"""The gate's hooks in every pytest run: the ``pin("reason")`` marker.

Everything the gate needs *inside* its own pytest runs (the base-code redirect, the
``__file__`` audit, per-test outcome records) is in :mod:`deskcheck.gate.probe_plugin`,
which the gate loads by a unique name only in the runs it starts.
"""

from __future__ import annotations

import pytest

from deskcheck.gate.probe_plugin import PIN_MARKER_HELP


def pytest_configure(config: pytest.Config) -> None:
    if PIN_MARKER_HELP not in config.getini("markers"):  # the gate's probe may have added it
        config.addinivalue_line("markers", PIN_MARKER_HELP)
