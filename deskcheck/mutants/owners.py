"""Resolve owner selections (node ids, ``-k EXPR``, ``-m EXPR``, ``@pytest.mark.kills``)
against the items pytest collected."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

import pytest
from _pytest.mark import KeywordMatcher, MarkMatcher
from _pytest.mark.expression import Expression

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import Mutant

KILLS_MARKER = "kills"


def _node_matcher(selection: str, roots: Sequence[Path]):
    path_part, sep, rest = selection.partition("::")
    candidates = []
    for root in roots:
        candidate = (root / path_part).resolve()
        if candidate.exists():
            candidates.append(candidate)
    if not candidates:
        return None, path_part
    target = candidates[0]

    def matches(item: pytest.Item) -> bool:
        item_path = Path(item.path).resolve()
        if target.is_dir():
            if not item_path.is_relative_to(target):
                return False
            return not sep
        if item_path != target:
            return False
        if not sep:
            return True
        item_rest = item.nodeid.partition("::")[2]
        return (item_rest == rest or item_rest.startswith(rest + "::")
                or item_rest.startswith(rest + "["))

    return matches, path_part


def select(selection: str, items: Sequence[pytest.Item], roots: Sequence[Path]
           ) -> list[pytest.Item]:
    """Items a single owner selection names (raises ``ValueError`` on a bad expression)."""
    if selection.startswith("-k") or selection.startswith("-m"):
        text = selection[2:].strip()
        try:
            expression = Expression.compile(text)
        except SyntaxError as exc:
            raise ValueError(f"bad {selection[:2]} expression {text!r}: {exc}") from exc
        if selection.startswith("-k"):
            return [i for i in items if expression.evaluate(KeywordMatcher.from_item(i))]
        return [i for i in items if expression.evaluate(MarkMatcher.from_markers(
            i.iter_markers()))]
    matches, path_part = _node_matcher(selection, roots)
    if matches is None:
        raise ValueError(f"owner {selection!r}: no file or folder {path_part!r}")
    return [i for i in items if matches(i)]


def marked_owners(items: Sequence[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """``@pytest.mark.kills("id", ...)`` declarations: mutant id -> items."""
    found: dict[str, list[pytest.Item]] = {}
    for item in items:
        for mark in item.iter_markers(KILLS_MARKER):
            for mutant_id in mark.args:
                found.setdefault(str(mutant_id), []).append(item)
    return found


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
                   roots: Sequence[Path], broken_files: set[Path]
                   ) -> tuple[dict[str, list[pytest.Item]], dict[str, str], list[CatalogError]]:
    """Owner items per mutant (catalog selections union markers, collection order).

    Returns (owners, uncollectable, errors): ``uncollectable`` maps a mutant to the owner
    selection that points into a file that failed to collect (BASELINE_RED, not an error)."""
    errors: list[CatalogError] = []
    marked = marked_owners(items)
    owners: dict[str, list[pytest.Item]] = {}
    uncollectable: dict[str, str] = {}
    for mutant in mutants:
        chosen: dict[str, pytest.Item] = {}
        for selection in mutant.owners:
            try:
                hits = select(selection, items, roots)
            except ValueError as exc:
                errors.append(CatalogError(str(exc), location=mutant.location,
                                           fix="name an existing test, or '-k EXPR'/'-m EXPR'"))
                continue
            if not hits:
                file_part = selection.partition("::")[0]
                if any((root / file_part).resolve() in broken_files for root in roots):
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
        order = {item.nodeid: n for n, item in enumerate(items)}
        owners[mutant.id] = sorted(chosen.values(), key=lambda i: order.get(i.nodeid, 0))
    return owners, uncollectable, errors
