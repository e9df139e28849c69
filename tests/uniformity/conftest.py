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


@pytest.fixture
def documented_config(tmp_path: Path):
    """docs/uniformity.md's "Declaring a source" TOML example, parsed as a pyproject."""
    from deskcheck.uniformity import load_uniformity_config

    doc = (Path(__file__).resolve().parents[2] / "docs" / "uniformity.md").read_text()
    block = doc.split("## Declaring a source", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "documented" / "pyproject.toml"
    path.parent.mkdir()
    path.write_text(block)
    return load_uniformity_config(path)


@pytest.fixture
def config_errors(tmp_path: Path):
    """config_errors(text) -> the errors loading a pyproject of that text raises, each as
    (location, message); [] when it loads."""
    from deskcheck.errors import ConfigError
    from deskcheck.uniformity import load_uniformity_config

    def load(text: str) -> list[tuple[str, str]]:
        path = tmp_path / "errors" / "pyproject.toml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        try:
            load_uniformity_config(path)
        except ConfigError as exc:
            return [(e.location, str(e)) for e in exc.errors or [exc]]
        return []

    return load
