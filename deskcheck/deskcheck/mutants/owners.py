"""Resolve owner selections (node ids, ``-k EXPR``, ``-m EXPR``, ``@pytest.mark.kills``)
against the items pytest collected, through one ``OwnerIndex`` of the universe."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.owner_index import KILLS_MARKER, OwnerIndex
from deskcheck.mutants.uniformity_owner import is_uniformity_owner

__all__ = ["KILLS_MARKER", "item_location", "marked_owners", "resolve_owners", "select"]


def select(selection: str, items: Sequence[pytest.Item], roots: Sequence[Path]
           ) -> list[pytest.Item]:
    """Items a single owner selection names (raises ``ValueError`` on a bad expression).
    Builds an index for one look-up: resolve many selections with one ``OwnerIndex``."""
    return OwnerIndex(items, roots).select(selection)


def marked_owners(items: Sequence[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """``@pytest.mark.kills("id", ...)`` declarations: mutant id -> items."""
    return OwnerIndex(items, ()).marked()


def foreign_kills(items: Sequence[pytest.Item], all_ids: set[str]) -> list[str]:
    """Notes on ``kills`` markers naming ids this catalog does not have.

    A test suite can serve several catalogs, each declaring its own mutants: a marker is
    checked only against the catalog being swept, and the ids of the others are ignored
    (never an error). Each such id gets one note, with a "did you mean" for a likely typo."""
    notes = []
    for mutant_id, marked_items in sorted(marked_owners(items).items()):
        if mutant_id in all_ids:
            continue
        close = difflib.get_close_matches(mutant_id, sorted(all_ids), n=1, cutoff=0.8)
        hint = f"; did you mean {close[0]!r}?" if close else " (another catalog's, or none)"
        notes.append(f"{item_location(marked_items[0])}: @pytest.mark.kills({mutant_id!r}) "
                     f"names no mutant of this catalog: ignored here{hint}")
    return notes


def item_location(item: pytest.Item) -> str:
    path, line, _ = item.reportinfo()
    return f"{path}:{(line or 0) + 1}"


def resolve_owners(mutants: Sequence[Mutant], all_ids: set[str], items: Sequence[pytest.Item],
                   roots: Sequence[Path], broken_files: set[Path],
                   index: OwnerIndex | None = None
                   ) -> tuple[dict[str, list[pytest.Item]], dict[str, str], list[CatalogError]]:
    """Owner items per mutant (catalog selections union markers, collection order).

    Returns (owners, uncollectable, errors): ``uncollectable`` maps a mutant to the owner
    selection that points into a file that failed to collect (BASELINE_RED, not an error).
    Costs one pass over ``items`` (the index) plus dict look-ups per selection."""
    index = index or OwnerIndex(items, roots)
    errors: list[CatalogError] = []
    marked = index.marked()
    order = {item.nodeid: n for n, item in enumerate(items)}
    owners: dict[str, list[pytest.Item]] = {}
    uncollectable: dict[str, str] = {}
    for mutant in mutants:
        chosen: dict[str, pytest.Item] = {}
        for selection in mutant.owners:
            if is_uniformity_owner(selection):
                continue  # judged by the audit, not selected from the items (static_owners)
            try:
                hits = index.select(selection)
            except ValueError as exc:
                errors.append(CatalogError(str(exc), location=mutant.location,
                                           fix="name an existing test, or '-k EXPR'/'-m EXPR'"))
                continue
            if not hits:
                if index.in_broken_file(selection, broken_files):
                    uncollectable[mutant.id] = selection
                    continue
                errors.append(CatalogError(
                    f"mutant {mutant.id!r}: owner {selection!r} matches no collected test",
                    location=mutant.location,
                    fix="correct the node id / expression, or add the test to [sweep] tests"))
            for item in hits:
                chosen.setdefault(item.nodeid, item)
        for item in marked.get(mutant.id, []):
            chosen.setdefault(item.nodeid, item)
        if not chosen and mutant.id not in uncollectable and not mutant.owners:
            errors.append(CatalogError(
                f"mutant {mutant.id!r} has no owner", location=mutant.location,
                fix=f"add owners = [...] or mark a test @pytest.mark.kills({mutant.id!r})"))
        owners[mutant.id] = sorted(chosen.values(), key=lambda i: order.get(i.nodeid, 0))
    return owners, uncollectable, errors
