"""A bare assertion's failure names the promise its test pins (tests/promise_messages.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

from tests.promise_messages import BROKEN, name_the_promise

ROOT = Path(__file__).resolve().parents[1]


def _item(name: str, doc: str | None = None, params: str | None = None) -> SimpleNamespace:
    def function() -> None: ...
    function.__doc__ = doc
    base = name.split("[")[0]
    return SimpleNamespace(function=function, name=name, originalname=base,
                           callspec=SimpleNamespace(id=params) if params else None)


def test_a_bare_assertion_is_prefixed_with_the_test_name_read_as_a_sentence() -> None:
    exc = AssertionError("assert 'LCR' == 'ROR'")
    name_the_promise(_item("test_the_cap_keeps_ror[auto]", params="auto"), exc)
    assert str(exc) == f"{BROKEN}the cap keeps ror (auto)\nassert 'LCR' == 'ROR'", (
        f"a bare assertion must name its test's promise first, then the comparison; got {str(exc)!r}")


def test_the_docstring_first_line_is_the_promise_when_there_is_one() -> None:
    exc = AssertionError("assert 1 == 2")
    name_the_promise(_item("test_x", doc="Offset adds `by`.\n\nMore."), exc)
    assert str(exc).splitlines()[0] == f"{BROKEN}Offset adds `by`", (
        f"the promise must be the docstring's first line; got {str(exc)!r}")


def test_an_assertion_with_its_own_message_is_left_alone() -> None:
    exc = AssertionError("offset must add 2\nassert 1 == 2")
    name_the_promise(_item("test_x"), exc)
    assert str(exc) == "offset must add 2\nassert 1 == 2", (
        f"an assertion's own message must not be prefixed; got {str(exc)!r}")


def test_a_failing_bare_assert_in_a_real_session_shows_the_promise(tmp_path: Path) -> None:
    (tmp_path / "test_demo.py").write_text(textwrap.dedent("""
        def test_per_line_cap_keeps_the_most_useful_operator():
            assert "LCR" == "ROR"
    """))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "tests.promise_messages", str(tmp_path / "test_demo.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert "broken promise: per line cap keeps the most useful operator" in proc.stdout, (
        "a bare assert's failure in a pytest session must name the test's promise in words; "
        f"pytest printed:\n{proc.stdout[-2000:]}\n{proc.stderr[-1000:]}")


def test_another_exception_a_test_ends_on_gets_the_promise_as_a_note() -> None:
    from tests.promise_messages import note_the_promise

    exc = KeyError("group nccl w2")
    note_the_promise(_item("test_the_plan_lists_every_step"), exc)
    note_the_promise(_item("test_the_plan_lists_every_step"), exc)
    assert getattr(exc, "__notes__", []) == [f"{BROKEN}the plan lists every step"], (
        "a KeyError a test ends on must carry its promise as one note (added once); notes: "
        f"{getattr(exc, '__notes__', None)}")


def test_pytests_own_terse_failures_get_the_promise_in_front(tmp_path: Path) -> None:
    """`pytest.raises` that sees nothing raised, or a regex that does not match, says only
    pytest's words: the test's promise goes in front, as for a bare assertion."""
    (tmp_path / "test_demo.py").write_text(textwrap.dedent("""
        import pytest

        def test_stub_with_roots_is_drift_guarded_when_built():
            with pytest.raises(KeyError):
                pass

        def test_the_error_names_its_line():
            with pytest.raises(ValueError, match="line 3"):
                raise ValueError("somewhere")

        def test_an_explained_failure_is_left_alone():
            pytest.fail("the pool must be closed")
    """))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "tests.promise_messages", str(tmp_path / "test_demo.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    for promise in ("stub with roots is drift guarded when built", "the error names its line"):
        assert f"{BROKEN}{promise}" in proc.stdout, (
            f"pytest's terse failure of test_{promise.replace(' ', '_')} must name the promise "
            f"in words; pytest printed:\n{proc.stdout[-2500:]}\n{proc.stderr[-800:]}")
    assert f"{BROKEN}an explained failure" not in proc.stdout, (
        "a pytest.fail() with its own words must be left alone; pytest printed:\n"
        f"{proc.stdout[-2500:]}")
