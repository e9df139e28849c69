"""``deskcheck init``: a [tool.deskcheck] skeleton and the PR and nightly GitHub workflows.

Never clobbers: an existing [tool.deskcheck] or workflow file is kept as it is.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from deskcheck.errors import ConfigError

WORKFLOWS: dict[str, str] = {
    ".github/workflows/deskcheck-pr.yml": "deskcheck-pr.yml",
    ".github/workflows/deskcheck-nightly.yml": "deskcheck-nightly.yml",
}
PYPROJECT_SECTION = "pyproject-section.toml"


@dataclass(frozen=True)
class InitAction:
    path: Path
    action: str  # created | appended | kept | unchanged
    note: str = ""


def template(name: str) -> str:
    return (resources.files("deskcheck.report") / "templates" / name).read_text(encoding="utf-8")


def _toml_error_line(exc: tomllib.TOMLDecodeError) -> str:
    """tomllib (3.11) puts the line only in the message: '... (at line 3, column 9)'."""
    match = re.search(r"at line (\d+)", str(exc))
    return match.group(1) if match else "?"


def _ensure_section(pyproject: Path) -> InitAction:
    section = template(PYPROJECT_SECTION)
    if not pyproject.exists():
        pyproject.write_text(section.lstrip("\n"), encoding="utf-8")
        return InitAction(pyproject, "created")
    text = pyproject.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"pyproject.toml is not valid TOML: {exc}",
                          location=f"{pyproject}:{_toml_error_line(exc)}",
                          fix="correct the TOML, then rerun `deskcheck init`") from exc
    if "deskcheck" in data.get("tool", {}):
        return InitAction(pyproject, "kept", "already has [tool.deskcheck]")
    separator = "" if text.endswith("\n") or not text else "\n"
    with pyproject.open("a", encoding="utf-8") as handle:
        handle.write(separator + section)
    return InitAction(pyproject, "appended", "[tool.deskcheck]")


def _ensure_file(path: Path, content: str) -> InitAction:
    if path.exists():
        if path.read_text(encoding="utf-8") == content:
            return InitAction(path, "unchanged")
        return InitAction(path, "kept", "exists and differs; delete it and rerun for the "
                                        "current template")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return InitAction(path, "created")


def init_project(root: Path) -> list[InitAction]:
    """Write what is missing under ``root``; report what was created, appended or kept."""
    root = Path(root)
    actions = [_ensure_section(root / "pyproject.toml")]
    for relative, name in WORKFLOWS.items():
        actions.append(_ensure_file(root / relative, template(name)))
    return actions
