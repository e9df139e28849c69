"""The architecture's one-way rules, read from the import statements of deskcheck itself.

A part's private modules (``_name``) are imported only from inside that part, and the static
layer (``deskcheck.static``) imports no other part: drift_guard and uniformity stand on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import deskcheck

PACKAGE = Path(deskcheck.__file__).parent
PARTS = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
# Shared helpers below every part (not parts themselves).
SHARED = {"errors", "_lazy", "live_code", "config", "pytest_ini", "own_folders", "scratch", "liveness",
          "interrupts", "watchdog", "progress", "progress_counts", "screen"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def _part_of(path: Path) -> str | None:
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 else None


def private_imports_across_parts() -> list[str]:
    """``file:line imports X`` for every import of another part's private module."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _part_of(path)
        for line, name in _imports(path):
            parts = name.split(".")
            if parts[0] != "deskcheck" or len(parts) < 3 or parts[1] not in PARTS:
                continue
            private = any(p.startswith("_") and not p.startswith("__") for p in parts[2:])
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports "
            if private and parts[1] != own and not any(b.startswith(where) for b in bad):
                bad.append(where + name)
    return bad


def static_layer_imports_of_parts() -> list[str]:
    """``file:line imports X`` for every import of a part from inside deskcheck/static."""
    bad = []
    for path in sorted((PACKAGE / "static").rglob("*.py")):
        for line, name in _imports(path):
            parts = name.split(".")
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports "
            if parts[0] == "deskcheck" and len(parts) > 1 and parts[1] in PARTS - {"static"} \
                    and not any(b.startswith(where) for b in bad):
                bad.append(where + name)
    return bad


def test_no_part_imports_another_parts_private_module() -> None:
    bad = private_imports_across_parts()
    assert not bad, "a part imports another part's private module (use its public API):\n" + \
        "\n".join(bad)


def test_the_static_layer_imports_no_other_part() -> None:
    assert "static" in PARTS, "deskcheck/static is missing: the static model must be a part"
    bad = static_layer_imports_of_parts()
    assert not bad, "deskcheck.static must stand below every part, but:\n" + "\n".join(bad)


def test_the_layering_checks_can_fail(tmp_path, monkeypatch) -> None:
    """Can-fail arm: a planted cross-part private import and a static->part import are named."""
    fake = tmp_path / "deskcheck"
    for part in ("static", "drift_guard"):
        (fake / part).mkdir(parents=True)
        (fake / part / "__init__.py").write_text("")
    (fake / "drift_guard" / "x.py").write_text("from deskcheck.static._model import ClassModel\n")
    (fake / "static" / "y.py").write_text("\n\nimport deskcheck.drift_guard.paths\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "PACKAGE", fake)
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "PARTS", {"static", "drift_guard"})
    assert private_imports_across_parts() == [
        "deskcheck/drift_guard/x.py:1 imports deskcheck.static._model"]
    assert static_layer_imports_of_parts() == [
        "deskcheck/static/y.py:3 imports deskcheck.drift_guard.paths"]
