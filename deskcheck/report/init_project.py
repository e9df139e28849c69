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
DEFAULT_TORCH = "2.13.0"  # the Makefile's pin, when this environment has no torch


@dataclass(frozen=True)
class InitAction:
    path: Path
    action: str  # created | appended | kept | unchanged
    note: str = ""


def template(name: str) -> str:
    """A template with ``@TORCH_VERSION@`` set to ``torch_version()``."""
    text = (resources.files("deskcheck.report") / "templates" / name).read_text(encoding="utf-8")
    return text.replace("@TORCH_VERSION@", torch_version())


def torch_version() -> str:
    """The torch release to pin in workflows: this environment's (less a ``+cpu`` local
    tag), else ``DEFAULT_TORCH``. Never left open: an open range pulls a CUDA build."""
    from importlib import metadata

    try:
        return metadata.version("torch").split("+", 1)[0]
    except metadata.PackageNotFoundError:
        return DEFAULT_TORCH


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


def init_project(root: Path) -> list[InitAction]:
    """Write what is missing under ``root``; report what was created, appended or kept."""
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
    try:
        actions = [_ensure_section(root / "pyproject.toml")]
        for relative, name in WORKFLOWS.items():
            actions.append(_ensure_file(root / relative, template(name)))
    except OSError as exc:
        raise ConfigError(f"deskcheck init could not write {exc.filename or root}: "
                          f"{exc.strerror or exc}", location=str(exc.filename or root),
                          fix="free the disk or make the folder writable, then rerun "
                              "`deskcheck init` (it keeps what it already wrote)") from exc
    return actions
