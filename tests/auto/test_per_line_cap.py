"""docs/auto.md: "At most `auto_max_per_line` mutants per line (default 1)": a project that
sets nothing gets one mutant per changed line, however many operators the line offers."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.config import load_config
from deskcheck.mutants.auto.changes import ChangedFile, ChangeSet
from deskcheck.mutants.auto.generate import generate_auto_mutants
from deskcheck.mutants.auto.settings import settings_from


def test_one_mutant_per_line_by_default(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent("""\
        def f(a, b, c):
            return a < b and b > c and not c
        """))
    settings = settings_from(load_config(tmp_path), tmp_path, "main", {})
    assert settings.max_per_line == 1, (
        f"with no auto_max_per_line set the cap must be 1 mutant per line (the documented "
        f"default); it was {settings.max_per_line}")
    changes = ChangeSet(root=tmp_path, base="main",
                        files=[ChangedFile("pkg/mod.py", frozenset({2}))])
    lines = [m.line for m in generate_auto_mutants(
        changes, per_line=settings.max_per_line, max_mutants=settings.max_mutants).mutants]
    assert lines == [2], (
        "a changed line offering several mutations (<, >, and, not) must get exactly one "
        f"mutant by default (auto_max_per_line defaults to 1); mutants at lines: {lines}")
