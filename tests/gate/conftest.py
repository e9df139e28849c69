from __future__ import annotations

from pathlib import Path

import pytest

from tests.gate.gitproject import GitProject
from tests.gate.scenario import build


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitProject:
    """The scenario repository; the flaky test's run counter lives outside it."""
    monkeypatch.setenv("GATE_FLAKY_COUNTER", str(tmp_path / "flaky-runs"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    return build(tmp_path / "repo")
