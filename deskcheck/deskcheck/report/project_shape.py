"""What ``deskcheck init`` reads before it writes: the shape of a project's tests.

Read statically (``ast``; nothing imported): the stand-ins the tests build by hand
(``Cls.__new__(Cls)``, ``SimpleNamespace``, ``MagicMock(spec=Cls)``, ``MethodType``), the
registered harnesses and stubs (``class X(Harness, ...)``, ``stub(...)`` from
``deskcheck.stubs``), a mutant catalog, ``-m metal`` tests, torch, and whether the project
already lists deskcheck among its requirements. Each finding keeps ``file:line`` (relative to
the project) so ``init`` can say why it wrote each step.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKIPPED_DIRS = frozenset({".git", ".venv", "venv", ".tox", ".nox", "node_modules", "build",
                          "dist", "site-packages", "__pycache__", ".deskcheck", ".eggs"})
MOCK_FACTORIES = frozenset({"MagicMock", "Mock", "NonCallableMagicMock", "NonCallableMock",
                            "create_autospec"})
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass
class ProjectShape:
    """The findings, each a ``path:line what`` string relative to ``root``."""

    root: Path
    config: dict[str, Any] = field(default_factory=dict)
    test_files: list[str] = field(default_factory=list)
    adhoc_standins: list[str] = field(default_factory=list)
    harnesses: list[str] = field(default_factory=list)
    metal_tests: list[str] = field(default_factory=list)
    catalog: str | None = None
    catalog_configured: bool = False
    uses_torch: bool = False
    deskcheck_extra: str | None = None  # "" = a main dependency; "dev" = the dev extra

    @property
    def stand_ins(self) -> bool:
        return bool(self.adhoc_standins or self.harnesses)


def _name(node: ast.expr) -> str:
    """The last name of ``a.b.c`` / ``c``; '' for anything else."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _is_metal_mark(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "metal"
            and isinstance(node.value, ast.Attribute) and node.value.attr == "mark")


def _stub_names(tree: ast.Module) -> set[str]:
    """Local names bound to ``deskcheck.stubs.stub`` / ``deskcheck.drift_guard.register``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("deskcheck.stubs",
                                                                 "deskcheck.drift_guard"):
            names |= {a.asname or a.name for a in node.names if a.name in ("stub", "register")}
    return names


def _adhoc_form(call: ast.Call) -> str:
    """The hand-built stand-in form of ``call``, or ''."""
    func = _name(call.func)
    if func == "__new__" and call.args:
        return f"{_name(call.args[0]) or '?'}.__new__"
    if func == "SimpleNamespace":
        return "SimpleNamespace"
    if func in MOCK_FACTORIES and (call.args and func == "create_autospec"
                                   or any(k.arg in ("spec", "spec_set") for k in call.keywords)):
        return f"{func}(spec=)"
    if func == "MethodType":
        return "MethodType"
    return ""


def _scan_file(shape: ProjectShape, path: Path, relative: str) -> None:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return
    stubs = _stub_names(tree)
    metal_seen = False
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ClassDef) and any(_name(b) == "Harness" for b in node.bases):
            shape.harnesses.append(f"{relative}:{line} class {node.name}(Harness)")
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in stubs:
                shape.harnesses.append(f"{relative}:{line} {node.func.id}(...)")
            elif form := _adhoc_form(node):
                shape.adhoc_standins.append(f"{relative}:{line} {form}")
        elif _is_metal_mark(node) and not metal_seen:
            metal_seen = True
            shape.metal_tests.append(f"{relative}:{line} pytest.mark.metal")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""])
            shape.uses_torch |= any(m.split(".")[0] == "torch" or m.startswith(
                "deskcheck.suites") for m in modules)


def _test_roots(root: Path, pyproject: dict[str, Any]) -> list[Path]:
    ini = pyproject.get("tool", {}).get("pytest", {}).get("ini_options", {})
    named = [root / p for p in ini.get("testpaths", [])] or [root / "tests", root / "test"]
    found = [p for p in named if p.exists()]
    return found or [root]


def _walk(folder: Path) -> list[Path]:
    if folder.is_file():
        return [folder]
    out = []
    for path in sorted(folder.iterdir()):
        if path.is_dir() and path.name not in SKIPPED_DIRS and not path.name.endswith(
                ".egg-info"):
            out += _walk(path)
        elif path.is_file():
            out.append(path)
    return out


def _is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith(
        "_test") or path.name == "conftest.py")


def _find_catalog(root: Path) -> str | None:
    """``mutants.toml`` at the root, else the shallowest one below it holding ``[[mutant]]``."""
    if (root / "mutants.toml").is_file():
        return "mutants.toml"
    found = [p for p in _walk(root) if p.name == "mutants.toml"
             and "[[mutant]]" in p.read_text(encoding="utf-8", errors="replace")]
    found.sort(key=lambda p: (len(p.relative_to(root).parts), str(p)))
    return found[0].relative_to(root).as_posix() if found else None


def _deskcheck_extra(pyproject: dict[str, Any]) -> str | None:
    project = pyproject.get("project", {})

    def lists(requirements: list[str]) -> bool:
        return any((m := _REQUIREMENT_NAME.match(r)) and m.group(1).lower() == "deskcheck"
                   for r in requirements)

    if lists(project.get("dependencies", [])):
        return ""
    for extra, requirements in project.get("optional-dependencies", {}).items():
        if lists(requirements):
            return extra
    return None


def read_project(root: Path, pyproject: dict[str, Any] | None = None) -> ProjectShape:
    """Scan ``root`` (its pyproject already parsed, when the caller has it)."""
    root = Path(root).resolve()
    if pyproject is None:
        file = root / "pyproject.toml"
        pyproject = tomllib.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
    config = pyproject.get("tool", {}).get("deskcheck", {})
    shape = ProjectShape(root=root, config=config, deskcheck_extra=_deskcheck_extra(pyproject))
    for folder in _test_roots(root, pyproject):
        for path in _walk(folder):
            if _is_test_file(path):
                relative = path.relative_to(root).as_posix()
                shape.test_files.append(relative)
                _scan_file(shape, path, relative)
    configured = config.get("catalog")
    if configured and (root / configured).is_file():
        shape.catalog, shape.catalog_configured = str(configured), True
    else:
        shape.catalog = _find_catalog(root)
    deps = " ".join(pyproject.get("project", {}).get("dependencies", []))
    shape.uses_torch |= bool(re.search(r"(^|\s|\")torch\b", deps)) or bool(shape.metal_tests)
    return shape
