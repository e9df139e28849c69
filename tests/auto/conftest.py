from __future__ import annotations

from pathlib import Path

import pytest

from tests.auto.fixture_repo import make_fixture_repo


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture git repository (``feature`` checked out); treat it as read-only."""
    return make_fixture_repo(tmp_path_factory.mktemp("auto") / "repo")
