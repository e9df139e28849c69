"""The DriftError a stub built without a field its roots read must raise (shared by tests)."""

from __future__ import annotations

import pytest
from dg_shop.mixins.budget import BudgetMixin

from deskcheck.errors import DriftError
from deskcheck.stubs import stub

GUARDED = ("stub(..., roots=...) is drift-guarded when built: a stub missing a field its roots "
           "read must raise DriftError")


def drift_error_of_a_stub_missing_reserved_tokens() -> DriftError:
    """The DriftError of building a budget stub without reserved_tokens; a failure if none."""
    try:
        built = stub(BudgetMixin, roots=["budget"], _budget_base=10)
    except DriftError as error:
        return error
    pytest.fail(f"{GUARDED}; stub(BudgetMixin, roots=['budget'], _budget_base=10) lacks "
                f"reserved_tokens, which BudgetMixin.budget reads, yet it built {built!r} and "
                f"raised nothing")
