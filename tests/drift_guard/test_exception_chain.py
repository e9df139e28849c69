"""docs/drift.md: "the note follows `__cause__` (else `__context__`)": when a test framework
re-raises a stand-in's AttributeError with ``raise ... from err`` while it handles another
error, the explicit cause is the link followed, not the error being handled."""

from __future__ import annotations

from types import SimpleNamespace

from deskcheck.drift_guard.attribute_errors import chained_attribute_error


def _reraised_from_while_handling() -> BaseException:
    """``raise RuntimeError(...) from attr_err`` inside ``except KeyError``: the cause is the
    stand-in's AttributeError, the context is the KeyError."""
    standin = SimpleNamespace()
    try:
        try:
            {}["k"]
        except KeyError:
            try:
                standin.aborted  # noqa: B018 - the stand-in lacks it
            except AttributeError as err:
                attr_err = err
            raise RuntimeError("retry() exceed maximum number of retries.") from attr_err
    except RuntimeError as exc:
        return exc
    raise AssertionError("unreachable")


def test_the_cause_is_followed_before_the_context():
    exc = _reraised_from_while_handling()
    found = chained_attribute_error(exc)
    assert found is not None, (
        "`raise RuntimeError(...) from attr_err` while handling a KeyError: the AttributeError "
        "is the exception's __cause__ and must be found; the chain search found none (it "
        "followed __context__, the KeyError, instead of __cause__)")
    err, links = found
    assert "aborted" in str(err) and links == "__cause__", (
        f"the AttributeError must be reached through __cause__ (set, so followed before "
        f"__context__); it was reached through {links!r}: {err}")


def test_the_context_is_followed_when_no_cause_is_set():
    standin = SimpleNamespace()
    try:
        try:
            standin.aborted  # noqa: B018
        except AttributeError:
            raise RuntimeError("re-raised while handling")  # noqa: B904 - the context case
    except RuntimeError as exc:
        found = chained_attribute_error(exc)
    assert found is not None and found[1] == "__context__", (
        f"with no __cause__ the AttributeError must be reached through __context__: {found}")
