"""The leak guard (tests/leak_guard.py) can fail: a test that leaves an environment variable
or the cwd changed errors at teardown, with the variables and folders named, and the next test
starts from what the session had."""

from __future__ import annotations

import os

import pytest

import tests.leak_guard as leak_guard
from tests.leak_guard import environment_changes

pytest_plugins = ["pytester"]

LEAKY = """
import os

def test_sets():
    os.environ["DESKCHECK_LEAK_ADDED"] = "1"

def test_removes():
    del os.environ["DESKCHECK_LEAK_PRESENT"]

def test_changes():
    os.environ["DESKCHECK_LEAK_CHANGED"] = "after"

def test_moves(tmp_path):
    os.chdir(tmp_path)

def test_sees_no_leak():
    assert "DESKCHECK_LEAK_ADDED" not in os.environ, "the guard left test_sets' variable set"
    assert os.environ.get("DESKCHECK_LEAK_PRESENT") == "here", "the guard did not restore it"
    assert os.environ.get("DESKCHECK_LEAK_CHANGED") == "before", "the guard did not restore it"

def test_clean(monkeypatch, tmp_path):
    monkeypatch.setenv("DESKCHECK_LEAK_ADDED", "2")
    monkeypatch.chdir(tmp_path)
"""


def test_the_guard_fails_each_leaking_test_and_names_the_leak(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKCHECK_LEAK_PRESENT", "here")
    monkeypatch.setenv("DESKCHECK_LEAK_CHANGED", "before")
    monkeypatch.delenv("DESKCHECK_LEAK_ADDED", raising=False)
    pytester.makepyfile(test_leaky=LEAKY)
    start = os.getcwd()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly",
                                          plugins=[leak_guard])
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 4, (
        f"expected the 4 leaking tests to error at teardown, got {outcomes}:\n{result.stdout.str()}")
    assert outcomes.get("passed") == 6, (
        "expected all 6 tests' own calls to pass (4 leaks error only at teardown, the test "
        f"after them sees no leak, the monkeypatching test is clean), got {outcomes}")
    text = result.stdout.str()
    for words in ("added DESKCHECK_LEAK_ADDED='1'",
                  "removed DESKCHECK_LEAK_PRESENT (was 'here')",
                  "changed DESKCHECK_LEAK_CHANGED: 'before' -> 'after'",
                  "the cwd was "):
        assert words in text, f"the guard's report does not say {words!r}:\n{text}"
    assert "test_clean" not in text.split("short test summary")[-1], (
        "a test that changed the env and cwd only through monkeypatch was reported as leaking")
    assert os.getcwd() == start, "the guard did not put the cwd back"


def test_environment_changes_names_each_kind_and_leaves_out_pytests_own() -> None:
    before = {"KEEP": "1", "GONE": "x", "EDIT": "a", "PYTEST_CURRENT_TEST": "t (setup)"}
    after = {"KEEP": "1", "NEW": "y", "EDIT": "b", "PYTEST_CURRENT_TEST": "t (call)"}
    assert environment_changes(before, after) == [
        "changed EDIT: 'a' -> 'b'", "removed GONE (was 'x')", "added NEW='y'"], (
        "expected one line per added/removed/changed variable, none for PYTEST_CURRENT_TEST")


SYS_PATH_LEAKY = """
import sys

def test_prepends():
    sys.path.insert(0, "/deskcheck-leaked-folder")

def test_sees_no_leak():
    assert "/deskcheck-leaked-folder" not in sys.path, "the guard left test_prepends' entry"

def test_clean(monkeypatch):
    monkeypatch.syspath_prepend("/deskcheck-clean-folder")
"""


def test_the_guard_fails_a_test_that_leaves_sys_path_changed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_leaky_path=SYS_PATH_LEAKY)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly",
                                          plugins=[leak_guard])
    outcomes = result.parseoutcomes()
    text = result.stdout.str()
    assert outcomes.get("errors") == 1 and outcomes.get("passed") == 3, (
        "expected only test_prepends to error at teardown for the sys.path entry it left (the "
        f"next test sees it removed; monkeypatch.syspath_prepend is clean), got {outcomes}:\n"
        f"{text}")
    assert "sys.path was changed: added ['/deskcheck-leaked-folder']" in text, (
        f"the guard's report does not name the sys.path entry left behind:\n{text}")
