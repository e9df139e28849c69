"""The first-split recorder records project code only: "not the standard library,
site-packages or deskcheck". The site-packages of a virtualenv inside the project folder
(``.venv``, as `make setup` makes, or one whose packages are symlinks into another venv, as
in a copied tree) are site-packages all the same: never taken for the project's decisions."""

from __future__ import annotations

from pathlib import Path

from deskcheck.suites.recorder import is_project_file

SITE = Path(".venv", "lib", "python3.12", "site-packages")


def _write(path: Path, text: str = "def format(record):\n    return record\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_venvs_packages_inside_the_project_are_not_project_code(tmp_path: Path) -> None:
    project = tmp_path / "project"
    own = _write(project / "pkg" / "policy.py")
    library = _write(project / SITE / "_pytest" / "logging.py")
    assert is_project_file(str(own)), f"{own} is the project's own code, not taken for it"
    assert not is_project_file(str(library)), (
        f"{library.relative_to(tmp_path)} is taken for project code: the site-packages of a "
        f"virtualenv under the project folder are never project code, their frames no decisions")


def test_a_site_packages_file_symlinked_from_another_venv_is_not_project_code(
        tmp_path: Path) -> None:
    real = _write(tmp_path / "original" / SITE / "_pytest" / "logging.py")
    link = tmp_path / "copy" / SITE / "_pytest" / "logging.py"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert not is_project_file(str(link)), (
        f"{link.relative_to(tmp_path)} (a symlink to {real.relative_to(tmp_path)}) is taken for "
        f"project code: a file in a site-packages folder is never project code, wherever the "
        f"link points")
