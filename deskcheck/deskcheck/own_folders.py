"""deskcheck's own folders in a user's tree (``.deskcheck/``: the results store, the coverage
map): they ignore themselves, as pytest's ``.pytest_cache`` does, and gates never count them
as changes of the branch."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

OWN_FOLDER_NAMES = frozenset({".deskcheck"})
GITIGNORE_TEXT = "# Created by deskcheck automatically.\n*\n"


def ignore_own_folder(folder: Path) -> None:
    """Write ``folder/.gitignore`` ignoring everything in it, unless one is there already.
    Only for deskcheck's own folders: a store path the user chose elsewhere is theirs."""
    if folder.name not in OWN_FOLDER_NAMES:
        return
    marker = folder / ".gitignore"
    if marker.exists():
        return
    try:
        marker.write_text(GITIGNORE_TEXT, encoding="utf-8")
    except OSError:  # a read-only folder: the store still works, git shows it
        pass


def is_own_path(path: str) -> bool:
    """A repository-relative path inside one of deskcheck's own folders."""
    return any(part in OWN_FOLDER_NAMES for part in PurePosixPath(path).parts[:-1])
