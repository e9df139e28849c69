"""The mutants part's pytest hooks: the ``kills`` marker (a test declares the mutants it
owns, in addition to the catalog's ``owners``)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "kills(*mutant_ids): this test owns (must kill) the named deskcheck mutant(s); "
        "the union with the catalog's owners counts.")
