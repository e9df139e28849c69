"""Static checks behind catalog validation (nothing imported): did-you-mean suggestions,
whether a target's qualified name exists in its module's source, and which mutant ids the
tests' ``@pytest.mark.kills`` markers name."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable
from pathlib import Path

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
    path = module_file(module, roots)
    if path is None:
        return None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    body, where, open_class = tree.body, module, False
    for part in qualname.split("."):
        if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
               for n in body):
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
