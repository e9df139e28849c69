"""Fixture production packages (dg_shop, dg_broken) live under fixtures/; static mode reads them
as source, runtime mode imports dg_shop (its folder is put on sys.path once, here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SHOP_ROOT = FIXTURES / "shopsrc"
BROKEN_ROOT = FIXTURES / "brokensrc"

if str(SHOP_ROOT) not in sys.path:
    sys.path.insert(0, str(SHOP_ROOT))


@pytest.fixture
def shop_root() -> Path:
    return SHOP_ROOT


@pytest.fixture
def broken_root() -> Path:
    return BROKEN_ROOT
