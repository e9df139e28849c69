"""The dg_shop fixture's Scheduler with a complete harness, shared by the drift verdict and
can-fail tests."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace


def shop_harnesses():
    """The dg_shop fixture's Scheduler with a complete harness (as tests/drift_guard uses)."""
    shop = Path(__file__).resolve().parent / "fixtures" / "shopsrc"
    if str(shop) not in sys.path:
        sys.path.insert(0, str(shop))
    from dg_shop.mixins.budget import BudgetMixin
    from dg_shop.scheduler import Scheduler

    from deskcheck.harness import Harness, bind, stand_in, state


    class Complete(Harness, model=Scheduler, roots=["update_budget"], adopt=["streak"],
                   register=False, allow={"trace_enabled": "covered elsewhere"}):
        update_budget = bind(Scheduler.update_budget)
        budget = bind(BudgetMixin.budget)
        _floors = stand_in(lambda self: [1, 2], reason="floor inputs are not under test")
        ps = state(factory=lambda: SimpleNamespace(tp_rank=0))
        group = state(factory=lambda: SimpleNamespace(size=2))
        _budget_base = state(10)
        reserved_tokens = state(3)
        debug_hook = state(None)

    return Scheduler, Complete

