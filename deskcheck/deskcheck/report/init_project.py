"""``deskcheck init``: a [tool.deskcheck] skeleton and the PR and nightly GitHub workflows,
fitted to what the project has (``project_shape``, ``workflows``).

Never clobbers: an existing [tool.deskcheck] or workflow file is kept as it is.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.errors import ConfigError
from deskcheck.report.project_shape import ProjectShape, read_project
from deskcheck.report.workflows import build_workflows, template

WORKFLOWS = (".github/workflows/deskcheck-pr.yml", ".github/workflows/deskcheck-nightly.yml")
PYPROJECT_SECTION = "pyproject-section.toml"


@dataclass(frozen=True)
class InitAction:
    path: Path
    action: str  # created | appended | kept | unchanged | not written
    note: str = ""


@dataclass
class InitResult:
    """What ``init`` did, file by file, and what it found in the project (``decisions``)."""

    actions: list[InitAction] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    shape: ProjectShape | None = None


def deskcheck_ignored(root: Path) -> bool:
    """Whether git (or, outside a repository, ``root/.gitignore``) ignores ``.deskcheck/``."""
    import subprocess

    try:
        done = subprocess.run(["git", "check-ignore", "-q", ".deskcheck/"], cwd=root,
                              capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is not None and done.returncode in (0, 1):
        return done.returncode == 0
    ignore = root / ".gitignore"
    lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    return any(line.strip().strip("/") in (".deskcheck", ".deskcheck/*", "**/.deskcheck")
               for line in lines)


def _toml_error_line(exc: tomllib.TOMLDecodeError) -> str:
    """tomllib (3.11) puts the line only in the message: '... (at line 3, column 9)'."""
    match = re.search(r"at line (\d+)", str(exc))
    return match.group(1) if match else "?"


def _section(shape: ProjectShape) -> str:
    line = (f"catalog = {json.dumps(shape.catalog)}" if shape.catalog
            else '# catalog = "mutants.toml"  (none found yet: write one, see docs/mutants.md)')
    return template(PYPROJECT_SECTION).replace("@CATALOG_LINE@", line)


def _ensure_section(pyproject: Path, section: str) -> InitAction:
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


def _read_pyproject(pyproject: Path) -> dict:
    if not pyproject.is_file():
        return {}
    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"pyproject.toml is not valid TOML: {exc}",
                          location=f"{pyproject}:{_toml_error_line(exc)}",
                          fix="correct the TOML, then rerun `deskcheck init`") from exc


def init_project(root: Path) -> InitResult:
    """Read the project (``read_project``), then write what is missing under ``root``,
    fitted to what was found; report what was created, appended or kept, and why."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError(f"no folder {root}", location=str(root),
                          fix="pass --root DIR of an existing project folder")
    refused = _unwritable(root)
    if refused:
        raise ConfigError(
            f"deskcheck init cannot write in {root}: read-only "
            + ", ".join(str(p) for p in refused), location=str(refused[0]),
            fix="make those writable (e.g. `chmod u+w PATH`), or run `deskcheck init` in a "
                "writable checkout; nothing was written")
    pyproject = _read_pyproject(root / "pyproject.toml")
    shape = read_project(root, pyproject)
    if "deskcheck" not in pyproject.get("tool", {}):  # the section written below names it
        shape.catalog_configured = shape.catalog is not None
    workflows = build_workflows(shape)
    result = InitResult(decisions=workflows.decisions, shape=shape)
    try:
        result.actions.append(_ensure_section(root / "pyproject.toml", _section(shape)))
        for relative in WORKFLOWS:
            content = workflows.files[relative]
            if content is None:
                result.actions.append(InitAction(root / relative, "not written",
                                                 "nothing for it to run yet (see below)"))
            else:
                result.actions.append(_ensure_file(root / relative, content))
    except OSError as exc:
        raise ConfigError(f"deskcheck init could not write {exc.filename or root}: "
                          f"{exc.strerror or exc}", location=str(exc.filename or root),
                          fix="free the disk or make the folder writable, then rerun "
                              "`deskcheck init` (it keeps what it already wrote)") from exc
    return result


def _unwritable(root: Path) -> list[Path]:
    """What ``init`` would write but cannot: an existing pyproject.toml without
    [tool.deskcheck] that is read-only, or the first existing folder above a file to create
    that is. Checked before anything is written, so a refused init changes nothing."""
    import os

    targets = [root / "pyproject.toml", *(root / r for r in WORKFLOWS)]
    refused: list[Path] = []
    for path in targets:
        if path.exists():
            if path.name == "pyproject.toml" and not os.access(path, os.W_OK):
                refused.append(path)
            continue
        folder = path.parent
        while not folder.exists():
            folder = folder.parent
        if not os.access(folder, os.W_OK | os.X_OK) and folder not in refused:
            refused.append(folder)
    return refused


