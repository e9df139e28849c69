"""Fixture packages for the uniformity audit: written into tmp_path, audited statically."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

HEADER = "import time\nimport torch.distributed as dist\n\n"


@pytest.fixture
def make_pkg(tmp_path: Path):
    """make_pkg({"mod.py": source}, pyproject="...") -> the root folder (package ``pkg``)."""

    def make(files: dict[str, str], pyproject: str = "") -> Path:
        pkg = tmp_path / "pkg"
        pkg.mkdir(exist_ok=True)
        (pkg / "__init__.py").write_text("")
        for name, text in files.items():
            (pkg / name).write_text(HEADER + textwrap.dedent(text))
        if pyproject:
            (tmp_path / "pyproject.toml").write_text(textwrap.dedent(pyproject))
        return tmp_path

    return make
