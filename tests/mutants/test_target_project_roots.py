"""Targets must be the project's own code (docs/mutants.md, *Targets*): the standard library,
an installed package (a virtualenv inside the project included) and deskcheck itself (unless
deskcheck is the project) are refused with why; a file of the project is accepted. Pure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import deskcheck
from deskcheck.mutants.roots import outside_project

REPO = Path(deskcheck.__file__).resolve().parents[1]


def test_a_file_of_the_project_is_its_own_code(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    why = outside_project(str(tmp_path / "pkg" / "mod.py"), [tmp_path])
    assert why is None, f"a module under the catalog's folder was refused: {why}"


@pytest.mark.parametrize(("where", "words"), [
    ("stdlib", "standard library"),
    ("venv", "installed package"),
    ("deskcheck", "deskcheck's own code"),
])
def test_code_that_is_not_the_projects_is_refused_with_why(tmp_path, where, words):
    if where == "stdlib":
        file = json.__file__
    elif where == "venv":  # a virtualenv inside the project
        site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg"
        site.mkdir(parents=True)
        (site / "mod.py").write_text("def f():\n    return 1\n")
        file = str(site / "mod.py")
    else:
        file = deskcheck.__file__
    why = outside_project(file, [tmp_path])
    assert why is not None and words in why, (
        f"docs/mutants.md: a target in {where} ({file}) is a catalog error saying it is "
        f"{words!r}; outside_project said {why!r}")


def test_deskcheck_is_its_own_project_when_the_roots_hold_it():
    why = outside_project(deskcheck.__file__, [REPO])
    assert why is None, (
        "docs/mutants.md: deskcheck's own code is a target where deskcheck is the project (its "
        f"self-proof catalog); with the roots at {REPO} it was refused: {why}")
