"""docs/auto.md, *The coverage map*: "A map measured for other `--tests`/`auto_tests`
arguments, another Python or another deskcheck is not used: the run says so and runs the whole
suite under coverage." Pure: the map's scope, and a stored map of each other scope."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import deskcheck
from deskcheck.mutants.auto.coverage_map import describe, refresh_map, scope_of

PYTHON = ".".join(map(str, sys.version_info[:2]))


class _StoredMap:
    """A stored map measured for ``scope`` (only its ``info`` is read before the check)."""

    def __init__(self, scope: dict) -> None:
        self.scope = scope

    def info(self) -> SimpleNamespace:
        return SimpleNamespace(scope=self.scope)


def test_a_maps_scope_is_its_tests_python_and_deskcheck():
    got = scope_of(("tests",))
    expected = {"pytest_args": ["tests"], "deskcheck": deskcheck.__version__, "python": PYTHON}
    assert got == expected, (
        "a coverage map is valid for the same --tests arguments, Python and deskcheck; its "
        f"scope was {got}, expected {expected}")


@pytest.mark.parametrize(("key", "other"), [("pytest_args", ["other"]), ("python", "2.7"),
                                            ("deskcheck", "0.0.0-old")])
def test_a_map_of_another_scope_is_not_used_and_says_which(key, other):
    stored = {**scope_of(("tests",)), key: other}
    refresh = refresh_map(_StoredMap(stored), Path("."), ("tests",), ("tests/",),  # type: ignore[arg-type]
                          timeout_s=1)
    assert refresh.unusable and key in refresh.unusable, (
        f"docs/auto.md: a map measured for another {key} ({other!r}) is not used, and the run "
        f"says why; the refresh said unusable={refresh.unusable!r}")
    said = describe(refresh)
    assert said and "not used" in said[0] and "whole suite" in said[0], (
        f"the run must say the map was not used and the whole suite ran; it said {said}")
