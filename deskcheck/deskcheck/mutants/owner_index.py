"""The collected test universe, indexed once, so owner selection costs O(universe + owners).

``OwnerIndex`` reads every collected item once: its resolved file (one ``realpath`` per file,
not per item and selection), the part of its node id after the file (``Class::test[param]``),
every prefix a selection may name (``Class``, ``Class::test``, ``Class::test`` for
``test[param]``), the folders above its file, and its ``kills`` markers. A selection is then a
few dict look-ups:

* ``path/to/test_x.py`` -> the file's items;
* ``path/to/folder`` -> the items of every file under the folder;
* ``path/to/test_x.py::Rest`` -> items whose rest is ``Rest``, starts with ``Rest::`` or with
  ``Rest[`` (the same rule as pytest's own node-id selection: ``test_a`` never selects
  ``test_ab``);
* ``-k EXPR`` / ``-m EXPR`` -> evaluated once per distinct expression over matchers built once
  per item (the only selections that must look at every item).

What it selects is exactly what ``deskcheck.mutants.owners.select`` selects item by item (the
tests compare the two on generated universes); results come in collection order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from _pytest.mark import KeywordMatcher, MarkMatcher
from _pytest.mark.expression import Expression

KILLS_MARKER = "kills"


def rest_keys(rest: str) -> set[str]:
    """Every selection ``rest`` that names a node whose id after the file is ``rest``: itself,
    and each prefix followed by ``::`` or ``[`` in it."""
    keys = {rest}
    for index, char in enumerate(rest):
        if char == "[" or rest.startswith("::", index):
            keys.add(rest[:index])
    return keys


class OwnerIndex:
    """Look-ups over the collected items, built in one pass (see the module docstring)."""

    def __init__(self, items: Sequence[pytest.Item], roots: Sequence[Path]):
        self.items = list(items)
        self.roots = list(roots)
        self.position: dict[str, int] = {}
        self._resolved: dict[str, Path] = {}  # str(item.path) -> resolved path, once per file
        self.item_path: list[Path] = []
        self.by_file: dict[Path, list[int]] = {}
        self.by_rest: dict[tuple[Path, str], list[int]] = {}
        self.by_folder: dict[Path, list[Path]] = {}  # folder -> files under it (any depth)
        self._targets: dict[str, Path | None] = {}
        self._expressions: dict[str, list[int]] = {}
        self._keyword: list[KeywordMatcher] | None = None
        self._marks: list[MarkMatcher] | None = None
        self._kills: dict[str, list[int]] | None = None
        for n, item in enumerate(self.items):
            self.position.setdefault(item.nodeid, n)
            path = self.resolved(item)
            self.item_path.append(path)
            if path not in self.by_file:
                self.by_file[path] = []
                for folder in path.parents:
                    self.by_folder.setdefault(folder, []).append(path)
            self.by_file[path].append(n)
            for key in rest_keys(item.nodeid.partition("::")[2]):
                self.by_rest.setdefault((path, key), []).append(n)

    def resolved(self, item: pytest.Item) -> Path:
        """The item's file, resolved once per distinct path."""
        text = str(item.path)
        found = self._resolved.get(text)
        if found is None:
            found = self._resolved[text] = Path(text).resolve()
        return found

    def target(self, path_part: str) -> Path | None:
        """The file or folder a selection's path names (first root where it exists)."""
        if path_part not in self._targets:
            self._targets[path_part] = next(
                (p for root in self.roots if (p := (root / path_part).resolve()).exists()), None)
        return self._targets[path_part]

    def _items(self, indexes: Sequence[int]) -> list[pytest.Item]:
        return [self.items[n] for n in sorted(indexes)]

    def select(self, selection: str) -> list[pytest.Item]:
        """Items one owner selection names, in collection order (``ValueError`` on a bad
        expression or a path that is not on disk)."""
        if selection.startswith(("-k", "-m")):
            return self._items(self._expression(selection))
        path_part, sep, rest = selection.partition("::")
        target = self.target(path_part)
        if target is None:
            raise ValueError(f"owner {selection!r}: no file or folder {path_part!r}")
        if target.is_dir():
            if sep:
                return []
            files = self.by_folder.get(target, [])
            return self._items([n for f in files for n in self.by_file[f]])
        if not sep:
            return self._items(self.by_file.get(target, []))
        return self._items(self.by_rest.get((target, rest), []))

    def _expression(self, selection: str) -> list[int]:
        if selection in self._expressions:
            return self._expressions[selection]
        text = selection[2:].strip()
        try:
            expression = Expression.compile(text)
        except SyntaxError as exc:
            raise ValueError(f"bad {selection[:2]} expression {text!r}: {exc}") from exc
        if selection.startswith("-k"):
            if self._keyword is None:
                self._keyword = [KeywordMatcher.from_item(i) for i in self.items]
            matchers: Sequence[object] = self._keyword
        else:
            if self._marks is None:
                self._marks = [MarkMatcher.from_markers(i.iter_markers()) for i in self.items]
            matchers = self._marks
        found = [n for n, m in enumerate(matchers) if expression.evaluate(m)]
        self._expressions[selection] = found
        return found

    def marked(self) -> dict[str, list[pytest.Item]]:
        """``@pytest.mark.kills("id", ...)`` declarations: mutant id -> items (one pass)."""
        if self._kills is None:
            found: dict[str, list[int]] = {}
            for n, item in enumerate(self.items):
                for mark in item.iter_markers(KILLS_MARKER):
                    for mutant_id in mark.args:
                        hits = found.setdefault(str(mutant_id), [])
                        if not hits or hits[-1] != n:
                            hits.append(n)
            self._kills = found
        return {k: [self.items[n] for n in v] for k, v in self._kills.items()}

    def in_broken_file(self, selection: str, broken_files: set[Path]) -> bool:
        """Whether the selection's file failed to collect (under any root)."""
        file_part = selection.partition("::")[0]
        return any((root / file_part).resolve() in broken_files for root in self.roots)


class OtherItems(Sequence[pytest.Item]):
    """The universe minus one mutant's owners, without copying the universe per mutant."""

    def __init__(self, items: Sequence[pytest.Item], excluded: set[str] | frozenset[str]):
        self._items = items
        self._excluded = excluded

    def __iter__(self) -> Iterator[pytest.Item]:
        return (i for i in self._items if i.nodeid not in self._excluded)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getitem__(self, index):  # type: ignore[override]
        return list(self)[index]
