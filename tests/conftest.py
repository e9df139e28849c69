"""Fixtures every deskcheck test gets: the environment-and-cwd leak guard."""

from tests.leak_guard import leaves_environment_and_cwd_as_found

__all__ = ["leaves_environment_and_cwd_as_found"]
