"""Static checks behind catalog validation (nothing imported): did-you-mean suggestions,
whether a target's qualified name exists in its module's source, and which mutant ids the
tests' ``@pytest.mark.kills`` markers name."""

from __future__ import annotations

import ast
import difflib
import importlib.util
import os
import re
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

from deskcheck.errors import ConfigError
from deskcheck.pytest_ini import pytest_config

_SKIP = frozenset({"site-packages", "node_modules", "__pycache__", "_work"})
_KILLS = re.compile(r"""\bkills\(\s*(?:(["'])([^"']+)\1|([^)\s]))""")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'owners'?"`` for a close match (difflib), else ``""``."""
    found = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    if not found:
        return ""
    return "; did you mean " + " or ".join(repr(f) for f in found) + "?"


def module_file(module: str, roots: Iterable[Path]) -> Path | None:
    """The source file of dotted ``module`` under one of ``roots`` (or their ``src/``)."""
    relative = Path(*module.split("."))
    for root in roots:
        for base in (root, root / "src"):
            for candidate in (base / relative.with_suffix(".py"), base / relative / "__init__.py"):
                if candidate.is_file():
                    return candidate
    return None


def _names(body: list[ast.stmt]) -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.Import | ast.ImportFrom):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
            for alias in getattr(node, "names", []):
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.If | ast.Try):  # TYPE_CHECKING / fallbacks: look inside
            for inner in (node.body, getattr(node, "orelse", []), *[h.body for h in getattr(
                    node, "handlers", [])]):
                names.update(_names(inner))
    return names


def static_target_problem(target: str, roots: Iterable[Path]) -> tuple[str, str] | None:
    """``(message, fix)`` when ``target``'s qualified name is certainly not in its module's
    source, with the close matches among the names defined there; ``None`` when it is
    there or cannot be known statically (module not found under ``roots``, a star import,
    a name inherited from a base class)."""
    module, _, qualname = target.partition(":")
    roots = list(roots)
    path = module_file(module, roots)
    if path is None:
        return unknown_module_problem(target, roots)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    body, where, open_class = tree.body, module, False
    for part in qualname.split("."):
        if _star_imports(body):  # the names it binds are unknown without importing
            return None
        names = _names(body)
        node = names.get(part)
        if node is None:
            if open_class:
                return None  # may come from a base class (a mixin in another module)
            close = difflib.get_close_matches(part, [n for n in names if not n.startswith("__")],
                                              n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            return (f"target {target!r}: {where} defines no {part!r}{hint}",
                    "correct the qualified name (package.module:Class.method)")
        if isinstance(node, ast.ClassDef):
            open_class = any(not (isinstance(b, ast.Name) and b.id == "object")
                             for b in node.bases) or bool(node.keywords)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            open_class = False
        else:
            return None  # an assignment or import: known only at import time
        body, where = node.body, f"{where}:{part}" if where == module else f"{where}.{part}"
    return None


def unknown_module_problem(target: str, roots: list[Path]) -> tuple[str, str] | None:
    """``(message, fix)`` when the top-level package of ``target``'s module exists nowhere:
    not importable from ``sys.path`` and no folder or file of that name anywhere under
    ``roots`` (a conftest or pytest's ``pythonpath`` may put one of those on the path later,
    so those are left to the import). Nothing is imported: ``find_spec`` of a top-level name
    only searches the path."""
    top = target.partition(":")[0].split(".")[0]
    try:
        if importlib.util.find_spec(top) is not None:
            return None
    except (ImportError, ValueError):
        return None
    if any(_defines_package(root, top) for root in roots):
        return None
    near = {p.stem if p.suffix == ".py" else p.name for root in roots
            for base in (root, root / "src") if base.is_dir() for p in base.iterdir()
            if not p.name.startswith((".", "_")) and (p.is_dir() or p.suffix == ".py")}
    return (f"target {target!r}: no module {top!r} is importable or under "
            f"{', '.join(dict.fromkeys(str(r) for r in roots))}"
            + did_you_mean(top, sorted(near)),
            "correct the module path (package.module:Qualified.name)")


def _defines_package(root: Path, name: str) -> bool:
    """Whether a folder ``name`` or a module ``name.py`` exists anywhere under ``root``
    (hidden folders, virtual environments and caches pruned)."""
    if not root.is_dir():
        return False
    for folder, dirs, files in os.walk(root):
        if name in dirs or f"{name}.py" in files:
            return True
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP
                   and not (Path(folder, d, "pyvenv.cfg")).is_file()]
    return False


def kills_marker_ids(root: Path, tests: Iterable[str]) -> set[str] | None:
    """The mutant ids named by ``kills("...")`` in the test files under ``tests`` (relative
    to ``root``; ``root`` itself when empty). ``None`` when a marker names its id through a
    variable, so no static answer can be given."""
    ids: set[str] = set()
    for entry in list(tests) or ["."]:
        base = (root / entry)
        files = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        for file in files:
            if any(p.startswith(".") or p in _SKIP for p in file.relative_to(base).parts[:-1]):
                continue
            if "kills(" not in (text := _read(file)):
                continue
            for match in _KILLS.finditer(text):
                if match.group(3):
                    return None
                ids.add(match.group(2))
    return ids


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


# pytest hooks that make items of other names than the ``def``/``class`` in a file: where a
# conftest above the file defines one, only collection can tell what the file holds
_DYNAMIC_HOOKS = re.compile(r"def\s+pytest_(?:pycollect_makeitem|pycollect_makemodule|"
                            r"collect_file)\b")
# a module that binds names at run time (``monkeypatch.setattr(...)`` is not one of them)
_DYNAMIC_MODULE = re.compile(r"\bglobals\(\)|(?<![.\w])(?:setattr|exec)\(|\bdef\s+__getattr__\b|"
                             r"\bpytest_pycollect_makeitem\b")


def _conftests_make_items(folder: Path) -> bool:
    """Whether a ``conftest.py`` in ``folder`` or above defines a collection hook."""
    for parent in (folder, *folder.parents):
        if _DYNAMIC_HOOKS.search(_read(parent / "conftest.py")):
            return True
    return False


def _owner_path(path_part: str, roots: Iterable[Path]) -> Path | None:
    for root in roots:
        candidate = root / path_part
        if candidate.exists():
            return candidate
    return None


def _missing_path_hint(path_part: str, roots: Iterable[Path]) -> str:
    """A close name in the folder the path points into (the first root where it exists)."""
    wanted = Path(path_part)
    for root in roots:
        folder = (root / wanted).parent
        if folder.is_dir():
            names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
            close = difflib.get_close_matches(wanted.name, names, n=2, cutoff=0.6)
            if close:
                return "; did you mean " + " or ".join(
                    repr((wanted.parent / c).as_posix()) for c in close) + "?"
            return ""
    return ""


def _dotdot_problem(owner: str, path_part: str, resolving: list[Path],
                    universe: list[Path]) -> tuple[str, str] | None:
    """A path with ``..`` must exist where the sweep resolves node ids (``resolving``: the
    catalog's folder, the current one, pytest's rootdir), not only through a [sweep] tests
    folder or a folder above (then it is named with the node id that works, when there is
    one), and lie inside one of the [sweep] tests paths (``universe``): pytest collects
    nothing outside them."""
    if ".." not in Path(path_part).parts:
        return None
    found = _owner_path(path_part, resolving)
    if found is not None:
        found = found.resolve()
        if not universe or any(found == u or u in found.parents for u in universe):
            return None
        return (f"owner {owner!r}: {path_part!r} names {found}, outside the sweep's tests "
                f"({', '.join(str(u) for u in universe)}): pytest never collects it",
                "add its folder to [sweep] tests, or name a test inside them")
    plain = Path(*[p for p in Path(path_part).parts if p not in ("..", ".")]).as_posix()
    _, sep, rest = owner.partition("::")
    hint = (f"; did you mean {plain + sep + rest!r}?"
            if plain and _owner_path(plain, resolving) is not None else "")
    named = (resolving[0] / path_part).resolve() if resolving else Path(path_part)
    return (f"owner {owner!r}: {path_part!r} names {named}, which does not exist{hint}",
            "node ids are relative to the catalog's folder or pytest's rootdir; '../' "
            "cannot leave them")


def static_owner_problem(owner: str, roots: Iterable[Path],
                         resolving: Iterable[Path] | None = None,
                         universe: Iterable[Path] = ()) -> tuple[str, str] | None:
    """``(message, fix)`` when the node id ``owner`` certainly names nothing pytest could
    collect: a file or folder that is not on disk (under any of ``roots``), or a test
    function / class / method its file does not define, with the close names defined there
    (difflib). ``None`` when it is there, is a ``-k``/``-m`` expression, or only collection
    can tell: a parametrized id (its function is checked, not the parameters), a name made
    by an assignment, an import or ``globals()``, a method a class may inherit, a non-Python
    test file, or a file under a conftest that makes its own items. A path with ``..``
    must exist under ``resolving`` (the folders the sweep resolves node ids against), inside
    one of ``universe`` (the [sweep] tests paths) when those are given."""
    if owner.startswith(("-k", "-m")):
        return None
    roots = list(roots)
    path_part, sep, rest = owner.partition("::")
    if resolving is not None and (problem := _dotdot_problem(
            owner, path_part, list(resolving), list(universe))):
        return problem
    target = _owner_path(path_part, roots)
    if target is None:
        return (f"owner {owner!r}: no file or folder {path_part!r}"
                + _missing_path_hint(path_part, roots),
                "correct the path (relative to the catalog's folder or pytest's rootdir)")
    if not sep:
        return None
    if target.is_dir():
        return (f"owner {owner!r}: {path_part!r} is a folder; '::' must follow a test file",
                "name the file (folder/test_x.py::test_y), or the folder alone for all of it")
    text = _read(target) if target.suffix == ".py" else ""
    if not text or _DYNAMIC_MODULE.search(text) or _conftests_make_items(target.parent):
        return None
    try:
        body: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None  # collection reports the file itself
    where, parts = path_part, rest.split("::")
    for depth, part in enumerate(parts):
        name = part.partition("[")[0]
        if _star_imports(body):  # the names it binds are unknown without importing
            return None
        names = _names(body)
        node = names.get(name)
        if node is None:
            defined = [n for n, d in names.items() if not n.startswith("_") and isinstance(
                d, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
            close = difflib.get_close_matches(name, defined, n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            return (f"owner {owner!r}: {where} defines no test {name!r}{hint}",
                    "correct the node id (`pytest --collect-only -q` lists them)")
        if not isinstance(node, ast.ClassDef):
            return None  # a function (its parameters and anything below: collection), or a
            # name bound by an assignment or import
        if node.bases or node.keywords:
            return None  # its tests may be inherited: collection decides
        body, where = node.body, f"{where}::{name}"
        if depth == len(parts) - 1:
            return None
    return None


class OwnerRoots(list):
    """Where an owner's path may start: the catalog's folder, the current one, a [sweep]
    tests folder and the folders above the catalog (pytest's rootdir is one of them).
    ``resolving``: the folders the sweep itself resolves node ids against (the catalog's,
    the current one, pytest's rootdir as found from the [sweep] tests), for ``..`` paths."""

    def __init__(self, folder: Path, tests: tuple[str, ...]):
        roots = [folder, Path.cwd(), *(folder / t for t in tests if (folder / t).is_dir()),
                 *folder.parents]
        super().__init__(dict.fromkeys(r.resolve() for r in roots))
        self.folder, self.tests = folder, tests

    @cached_property
    def universe(self) -> list[Path]:
        """The paths pytest collects from: the [sweep] tests (else the catalog's folder)."""
        return [(self.folder / t).resolve() for t in self.tests] or [self.folder.resolve()]

    @cached_property
    def resolving(self) -> list[Path]:
        ancestor = Path(os.path.commonpath([str(s) for s in self.universe]))
        try:
            rootdir = pytest_config(ancestor).rootdir
        except ConfigError:  # pytest reports its own configuration file
            rootdir = None
        if rootdir is None:  # pytest's rule without a configuration file
            rootdir = Path(os.path.commonpath([str(Path.cwd().resolve()), str(ancestor)]))
        return list(dict.fromkeys(r.resolve() for r in (self.folder, Path.cwd(), rootdir)))


def _star_imports(body: list[ast.stmt]) -> bool:
    """Whether a block has ``from x import *`` (its names cannot be read statically)."""
    return any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
               for n in body)
