"""Fixtures and hooks every deskcheck test gets: the environment-and-cwd leak guard, and a bare
assertion's failure naming the promise its test pins."""

from tests.leak_guard import leaves_environment_and_cwd_as_found
from tests.promise_messages import pytest_runtest_call

__all__ = ["leaves_environment_and_cwd_as_found", "pytest_runtest_call"]
