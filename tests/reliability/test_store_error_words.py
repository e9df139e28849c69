"""What a bad store is called: SQLite's "malformed" is a damaged store with the .recover fix;
a file with deskcheck's tables but not their columns is a foreign layout."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from deskcheck.report.store_errors import foreign_layout, store_error


def test_a_malformed_image_is_called_damaged_with_the_recover_fix() -> None:
    error = store_error(sqlite3.DatabaseError("database disk image is malformed"),
                        Path("/p/.deskcheck/results.sqlite"))
    assert "the results store is damaged" in error.message, (
        f"SQLite's 'malformed' was not called a damaged store: {error.render()!r}")
    assert ".recover" in (error.fix or ""), f"the fix names sqlite3 .recover: {error.fix!r}"


def test_tables_without_deskchecks_columns_are_a_foreign_layout() -> None:
    error = foreign_layout(Path("/p/results.sqlite"), {"runs": {"id", "name"}},
                           {"runs": ("id", "kind", "status")})
    assert error is not None, (
        "a `runs` table lacking kind and status was taken for a deskcheck store: the columns "
        "must be checked, not only the table names")
    assert "foreign layout" in error.message and "runs.kind" in error.message, error.message


def test_an_empty_file_and_a_complete_layout_are_not_foreign() -> None:
    path = Path("/p/results.sqlite")
    assert foreign_layout(path, {}, {"runs": ("id",)}) is None, "an empty file becomes a store"
    assert foreign_layout(path, {"runs": {"id", "kind"}}, {"runs": ("id", "kind")}) is None, (
        "a file with every expected column is deskcheck's own")
