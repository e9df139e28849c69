"""Issue 16 item 8: a stub's drift message speaks of stub fields, not harness declarations."""

from __future__ import annotations

from tests.drift_guard.stub_drift import drift_error_of_a_stub_missing_reserved_tokens


def test_a_stubs_drift_fix_says_set_the_field_not_bind_the_function():
    text = str(drift_error_of_a_stub_missing_reserved_tokens())
    assert "stub(" in text and "reserved_tokens" in text, (
        f"the stub's drift message does not tell the user to pass the missing field to "
        f"stub(...): {text}")
    assert "bind the real function" not in text and "add it to the state" not in text, (
        f"a plain stub field was explained in harness words (bind/state): {text}")
