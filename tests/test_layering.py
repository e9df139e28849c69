"""The architecture's one-way rules, read from the import statements of deskcheck itself.

A part's private modules (``_name``) are imported only from inside that part, and the static
layer (``deskcheck.static``) imports no other part: drift_guard and uniformity stand on it.
Tests live with what they pin: ``tests/selfproof/`` holds only the proof of the proof (the
self-catalog's and the mutmut bench's own tests); a part's tests are under ``tests/<part>/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import deskcheck

PACKAGE = Path(deskcheck.__file__).parent
SELFPROOF = Path(__file__).resolve().parent / "selfproof"
# What tests/selfproof/ may hold: tests of the self-catalog (tests/mutants.toml) and of the
# mutmut bench (bench/selfproof_mutmut.py). Everything else tests a part and lives with it.
SELFPROOF_FILES = {"__init__.py", "test_self_catalog.py", "test_mutmut_bench.py"}
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


def _parts_imported(path: Path) -> list[str]:
    """The parts ``path`` imports, most imported first (ties in name order)."""
    try:
        names = [name for _, name in _imports(path)]
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    counts: dict[str, int] = {}
    for name in names:
        parts = name.split(".")
        if parts[0] == "deskcheck" and len(parts) > 1 and parts[1] in PARTS:
            counts[parts[1]] = counts.get(parts[1], 0) + 1
    return sorted(counts, key=lambda part: (-counts[part], part))


def selfproof_strays() -> list[str]:
    """``tests/selfproof/NAME: ...`` for every file there that is not a proof of the proof,
    with the part folder it belongs in (the part it imports most)."""
    bad = []
    for path in sorted(p for p in SELFPROOF.rglob("*") if p.is_file()):
        rel = path.relative_to(SELFPROOF)
        if "__pycache__" in rel.parts or str(rel) in SELFPROOF_FILES:
            continue
        parts = _parts_imported(path) if path.suffix == ".py" else []
        where = (f"move it to tests/{parts[0]}/, in a file named for the behaviour it checks"
                 if parts else "move it to the tests/<part>/ folder of the part it checks")
        bad.append(f"tests/selfproof/{rel}: not a test of the self-catalog or of the mutmut "
                   f"bench; {where}")
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
        "deskcheck/drift_guard/x.py:1 imports deskcheck.static._model"], (
        "a planted import of another part's private module must be named; the check found "
        f"{private_imports_across_parts()}"
    )
    assert static_layer_imports_of_parts() == [
        "deskcheck/static/y.py:3 imports deskcheck.drift_guard.paths"], (
        "a planted import of a part by the static layer must be named; the check found "
        f"{static_layer_imports_of_parts()}"
    )


def test_selfproof_holds_only_the_proof_of_the_proof() -> None:
    bad = selfproof_strays()
    assert not bad, (
        "tests/selfproof/ holds only the self-catalog's and the mutmut bench's own tests "
        f"({', '.join(sorted(SELFPROOF_FILES))}); a part's tests live with it:\n"
        + "\n".join(bad))


def test_the_selfproof_check_can_fail(tmp_path, monkeypatch) -> None:
    """Can-fail arm: a stray test of the gate and a stray data file are named with their place."""
    folder = tmp_path / "selfproof"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "test_self_catalog.py").write_text("")
    (folder / "test_gaps_gate.py").write_text(
        "from deskcheck.gate.redfirst import judge\nfrom deskcheck.gate import classify\n"
        "from deskcheck.mutants import load_catalog\n")
    (folder / "notes.txt").write_text("found by mutmut\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "SELFPROOF", folder)
    assert selfproof_strays() == [
        "tests/selfproof/notes.txt: not a test of the self-catalog or of the mutmut bench; "
        "move it to the tests/<part>/ folder of the part it checks",
        "tests/selfproof/test_gaps_gate.py: not a test of the self-catalog or of the mutmut "
        "bench; move it to tests/gate/, in a file named for the behaviour it checks",
    ], f"the selfproof check did not name both strays with their place: {selfproof_strays()}"
