"""Which code a sweep may mutate: the project's own source, nothing it merely runs on.

A mutant of the standard library, of an installed package or of deskcheck itself would judge
the tools (pytest, deskcheck's own engine use ``json``, ``inspect``, ...) instead of the
project's tests: the sweep dies or lies. Such targets are refused at validation.
"""

from __future__ import annotations

import site
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

import deskcheck

DESKCHECK_DIR = Path(deskcheck.__file__).resolve().parent


def _installed_dirs() -> list[Path]:
    paths = sysconfig.get_paths()
    found = [paths.get("purelib"), paths.get("platlib"), *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        found.append(site.getusersitepackages())
    return [Path(p).resolve() for p in dict.fromkeys(f for f in found if f)]


def _stdlib_dirs() -> list[Path]:
    paths = sysconfig.get_paths()
    found = [paths.get("stdlib"), paths.get("platstdlib"),
             str(Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}."
                 f"{sys.version_info[1]}")]
    return [Path(p).resolve() for p in dict.fromkeys(f for f in found if f)]


def _under(path: Path, folders: Sequence[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def outside_project(file: str, roots: Sequence[Path]) -> str | None:
    """Why ``file`` is not the project's own source (None: it is).

    The project's source is what lies under one of ``roots`` (the catalog's folder, the
    working directory, pytest's rootdir) and is neither an installed package (a virtualenv
    inside the project included) nor the standard library. deskcheck's own package counts
    as the project only where it lies under the roots (its own self-proof catalog).
    """
    if file.startswith("<"):
        return f"it has no source file ({file})"
    path = Path(file).resolve()
    folders = [Path(r).resolve() for r in roots]
    if "site-packages" in path.parts or "dist-packages" in path.parts or _under(
            path, _installed_dirs()):
        return f"it is in an installed package ({path}), not in this project's source"
    if _under(path, _stdlib_dirs()):
        return f"it is in Python's standard library ({path}), not in this project's source"
    if path.is_relative_to(DESKCHECK_DIR) and not _under(DESKCHECK_DIR, folders):
        return (f"it is deskcheck's own code ({path}): the sweep would mutate the tool that "
                "judges it")
    if not _under(path, folders):
        shown = ", ".join(str(f) for f in dict.fromkeys(folders))
        return f"{path} is outside the project's folders ({shown})"
    return None
