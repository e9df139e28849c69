"""An ``occurrence`` the target does not have is a catalog error at its line (exit 2, nothing
run), found while the catalog is read (statically) or, for a target only the import can
find, when the sweep resolves it; a snippet that does not match stays STALE, saying so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog

from .conftest import deskcheck

SOURCE = '''def pick(vals, reduced):
    admit = reduced[0]
    budget = reduced[1]
    return admit, budget
'''
ENTRY = '''
[[mutant]]
id = "pick.slot"
title = "a slot read at the wrong index"
target = "{target}"
operator = "slot-shift"
packed = "reduced"
occurrence = {occurrence}
owners = ["test_pick.py::test_pick"]
'''
TEST = "from pick import pick\n\n\ndef test_pick():\n    assert pick([], [1, 2]) == (1, 2)\n"


def project(tmp_path: Path, occurrence: int, target: str = "pick:pick") -> Path:
    (tmp_path / "pick.py").write_text(SOURCE)
    (tmp_path / "test_pick.py").write_text(TEST)
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    catalog = tmp_path / "mutants.toml"
    catalog.write_text(ENTRY.format(target=target, occurrence=occurrence))
    return catalog


def test_an_occurrence_the_target_does_not_have_is_named_at_its_line(tmp_path):
    catalog = project(tmp_path, 3)
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog)
    [error] = info.value.errors
    assert error.location == f"{catalog.resolve()}:8", (
        f"the occurrence problem is not placed at the occurrence key (line 8): {error.location}")
    assert "occurrence 3 requested but function pick:pick" in error.message, error.message
    assert "has 2 site(s)" in error.message, error.message
    assert "occurrence to one of them" in error.fix, error.fix


def test_an_occurrence_the_target_has_is_accepted(tmp_path):
    assert [m.id for m in load_catalog(project(tmp_path, 2)).mutants] == ["pick.slot"], (
        "an occurrence the target has (2 of 2 sites) must be accepted; the catalog loaded "
        f"{[m.id for m in load_catalog(project(tmp_path, 2)).mutants]}"
    )


def test_the_sweep_exits_2_on_a_wrong_occurrence_it_finds_after_importing(tmp_path):
    """``pick.choose`` is bound by an assignment: only the import finds it."""
    catalog = project(tmp_path, 3, target="pick:choose")
    with (tmp_path / "pick.py").open("a") as handle:
        handle.write("\n\nchoose = pick\n")
    load_catalog(catalog)  # statically unknown: accepted while reading
    proc = deskcheck("sweep", "--catalog", str(catalog), "--no-store", cwd=tmp_path)
    assert proc.returncode == 2, (f"a wrong occurrence found at import time gave exit "
                                  f"{proc.returncode}, not 2:\n{proc.stdout}\n{proc.stderr}")
    assert f"{catalog}:2" in proc.stderr and "occurrence 3 requested" in proc.stderr, proc.stderr


def test_a_snippet_that_does_not_match_is_stale_with_a_fix(tmp_path):
    catalog = project(tmp_path, 1)
    catalog.write_text(catalog.read_text().replace('packed = "reduced"',
                                                   'packed = "reduced"\nindex = "7"')
                       .replace("occurrence = 1\n", ""))
    out = tmp_path / "out.json"
    proc = deskcheck("sweep", "--catalog", str(catalog), "--no-store", "--json", str(out),
                     cwd=tmp_path)
    [mutant] = json.loads(out.read_text())["mutants"]
    assert mutant["verdict"] == "STALE", mutant
    assert "stale: the operator does not match the target's source" in proc.stdout, proc.stdout
    assert "fix: compare the entry's snippet and occurrence with the target's source" in \
        proc.stdout, f"the STALE block carries no fix line:\n{proc.stdout}"
