"""A bare ``assert a == b`` that fails says which promise broke, in words.

pytest shows a failing ``assert`` without a message as the comparison alone
(``assert 'LCR' == 'ROR'``): the values, not what was expected of deskcheck. This hook puts the
test's promise first: the first line of its docstring, else its name read as a sentence
(``test_per_line_cap_keeps_the_most_useful_operator[x]`` → "per line cap keeps the most useful
operator (x)"), then the comparison. Assertions that carry their own message are left alone.
Any other exception a test ends on (a ``KeyError`` of a step the product no longer lists, a
crash inside the product) gets the promise as a note under it. pytest's own terse failures
(``DID NOT RAISE DriftError`` of a ``pytest.raises`` block, an empty ``pytest.fail()``,
``Regex pattern did not match``) get the promise in front, like a bare assertion.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

BROKEN = "broken promise: "


def promise_of(item: pytest.Item) -> str:
    """The promise ``item`` pins, in words: its docstring's first line or its name."""
    doc = (getattr(getattr(item, "function", None), "__doc__", None) or "").strip()
    if doc:
        return doc.splitlines()[0].rstrip(".")
    name = getattr(item, "originalname", None) or item.name.split("[")[0]
    words = name.removeprefix("test_").replace("_", " ").strip()
    params = getattr(getattr(item, "callspec", None), "id", None)
    return f"{words} ({params})" if params else words


TERSE = ("assert ", "Regex pattern did not match", "DID NOT RAISE", "DID NOT WARN")


def is_bare(exc: BaseException) -> bool:
    """True for a failure that says no more than pytest's own words: an ``assert`` without
    a message (pytest's rewrite starts with 'assert '), ``pytest.raises``' DID NOT RAISE or
    its regex mismatch, an empty ``pytest.fail()``."""
    text = str(getattr(exc, "msg", None) or exc)
    return not text.strip() or text.startswith(TERSE)


def name_the_promise(item: pytest.Item, exc: AssertionError) -> None:
    """Put ``item``'s promise in front of a bare assertion's comparison, in place."""
    if is_bare(exc) and not str(exc).startswith(BROKEN):
        exc.args = (f"{BROKEN}{promise_of(item)}\n{exc}".rstrip(),)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Name the broken promise of a test that fails on a bare assertion."""
    try:
        return (yield)
    except AssertionError as exc:
        name_the_promise(item, exc)
        raise
    except pytest.fail.Exception as exc:
        name_the_failure(item, exc)
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised unchanged, with a note
        note_the_promise(item, exc)
        raise


def name_the_failure(item: pytest.Item, exc: BaseException) -> None:
    """Put ``item``'s promise in front of pytest's terse ``Failed`` (DID NOT RAISE ...)."""
    msg = str(getattr(exc, "msg", "") or "")
    if is_bare(exc) and not msg.startswith(BROKEN):
        exc.msg = f"{BROKEN}{promise_of(item)}\n{msg}".rstrip()  # type: ignore[attr-defined]
        exc.args = (exc.msg,)  # type: ignore[attr-defined]


def note_the_promise(item: pytest.Item, exc: BaseException) -> None:
    """Add ``item``'s promise as a note under an exception that is not an assertion."""
    note = f"{BROKEN}{promise_of(item)}"
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)
