"""Resolve the class a stand-in stands in for, through the test file's imports, to production
source under the source roots (never by importing)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.config import ProjectConfig
from deskcheck.errors import DeskcheckError
from deskcheck.static import (
    ClassModel,
    ClassSource,
    Sources,
    StaticIndex,
    build_model,
    installed_root,
    nested_class,
)

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", ".venv", "venv", ".tox", ".git",
             "build", "dist", ".deskcheck"}


def source_roots(config: ProjectConfig, explicit: Sequence[str | Path] = ()) -> list[Path]:
    """``--root`` folders, else ``[tool.deskcheck] source_paths``, else the folders holding
    the project's top-level packages (found by walking the project, not by importing)."""
    if explicit:
        return [Path(p).resolve() for p in explicit]
    configured = config.get("source_paths")
    if configured:
        values = [configured] if isinstance(configured, str) else list(configured)
        return [(config.root / p).resolve() for p in values]
    roots: list[Path] = []
    for folder, dirs, files in os.walk(config.root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        if "__init__.py" in files:
            if not (here.parent / "__init__.py").is_file() and here.parent not in roots:
                roots.append(here.parent)
            dirs[:] = []  # a package's sub-packages share its root
        elif len(here.relative_to(config.root).parts) >= 4:
            dirs[:] = []
    return [config.root, *[r for r in roots if r != config.root]]


@dataclass
class Resolved:
    """A model class: ``spec`` (``pkg.mod:Class``), its static model, and its files."""

    spec: str
    model: ClassModel
    provided_by_class: frozenset[str]   # methods, properties, class-level defaults
    files: tuple[str, ...]


@dataclass
class Resolver:
    """Caches per dotted name; ``why`` holds the reason of the last failure."""

    roots: list[Path]
    sources: Sources = field(default_factory=Sources)
    _index: StaticIndex | None = None
    _cache: dict[str, Resolved | str | None] = field(default_factory=dict)

    @property
    def index(self) -> StaticIndex:
        if self._index is None:
            self._index = StaticIndex(self.roots, self.sources)
        return self._index

    def resolve(self, qualified: str) -> Resolved | str | None:
        """A :class:`Resolved`, a reason (``str``) the class cannot be found although it
        should be production code, or None: not a production class (stdlib, a function)."""
        if qualified in self._cache:
            return self._cache[qualified]
        found = self._resolve(qualified)
        self._cache[qualified] = found
        return found

    def _resolve(self, qualified: str) -> Resolved | str | None:
        parts = qualified.lstrip(".").split(".")
        top = parts[0]
        if qualified.startswith(".") or top in sys.stdlib_module_names or top == "builtins":
            return None
        index = self.index
        if index.find_module(top) is None:
            extra = installed_root(top)
            if extra is None:
                return (f"module {'.'.join(parts[:-1]) or top!r} is not under the source roots "
                        f"({', '.join(_short(r) for r in self.roots)}) and not installed")
            self.roots.append(extra)
            self._index = None
            index = self.index
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if index.find_module(module) is None:
                continue
            try:
                found = index.resolve_name(module, parts[cut], [])
                for inner in parts[cut + 1:]:
                    found = nested_class(found, inner) if isinstance(found, ClassSource) else None
            except DeskcheckError as exc:
                return f"{qualified}: {exc.message}"
            if isinstance(found, ClassSource):
                return self._model(f"{found.module}:{found.qualname}")
            if found is None:
                return f"no {'.'.join(parts[cut:])!r} in module {module} (under the source roots)"
            return None
        return f"module {'.'.join(parts[:-1])!r} not found under the source roots"

    def _model(self, spec: str) -> Resolved | str:
        try:
            model = build_model(spec, roots=self.roots, mode="static")
        except DeskcheckError as exc:
            return f"{spec}: {exc.message}"
        names: set[str] = set()
        files: list[str] = []
        for klass in model.sources:
            files.append(klass.file)
            names.update(n for n, m in klass.members.items() if m.kind != "annotation")
        return Resolved(spec, model, frozenset(names), tuple(dict.fromkeys(files)))


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
