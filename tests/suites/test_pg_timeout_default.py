"""docs/suites.md: the process-group timeout defaults to 10 s."""

from __future__ import annotations

import pytest

from deskcheck.suites import default_pg_timeout


def test_the_pg_timeout_defaults_to_10_s(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("DESKCHECK_PG_TIMEOUT", raising=False)
    got = default_pg_timeout()
    assert got == 10.0, (f"the process-group timeout defaults to {got} s; "
                         "docs/suites.md promises 10 s")
