"""Issue 16 item 8: a stub's drift message speaks of stub fields, not harness declarations."""

from __future__ import annotations

import pytest
from dg_shop.mixins.budget import BudgetMixin

from deskcheck.errors import DriftError
from deskcheck.stubs import stub

GUARDED = ("stub(..., roots=...) is drift-guarded when built: a stub missing a field its roots "
           "read must raise DriftError")


def _drift_error_of_a_stub_missing_reserved_tokens() -> DriftError:
    """The DriftError of building a budget stub without reserved_tokens; a failure if none."""
    try:
        built = stub(BudgetMixin, roots=["budget"], _budget_base=10)
    except DriftError as error:
        return error
    pytest.fail(f"{GUARDED}; stub(BudgetMixin, roots=['budget'], _budget_base=10) lacks "
                f"reserved_tokens, which BudgetMixin.budget reads, yet it built {built!r} and "
                f"raised nothing")


def test_a_stubs_drift_fix_says_set_the_field_not_bind_the_function():
    text = str(_drift_error_of_a_stub_missing_reserved_tokens())
    assert "stub(" in text and "reserved_tokens" in text, (
        f"the stub's drift message does not tell the user to pass the missing field to "
        f"stub(...): {text}")
    assert "bind the real function" not in text and "add it to the state" not in text, (
        f"a plain stub field was explained in harness words (bind/state): {text}")
