"""Sharp arms for catalog validation: every problem at once, each at its own line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from tests.owner_files import write_placeholder_owners

GOOD = '''
[[mutant]]
id = "a"
title = "fine"
target = "pkg.mod:func"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
'''


def _problems(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "mutants.toml"
    path.write_text(textwrap.dedent(text))
    write_placeholder_owners(tmp_path)
    try:
        load_catalog(path)
    except CatalogError as error:
        return {e.location.rsplit(":", 1)[-1]: e.message for e in error.errors}
    return {}


def test_a_duplicate_id_is_refused_at_its_line(tmp_path):
    problems = _problems(tmp_path, GOOD + GOOD.replace('"fine"', '"again"'))
    assert any("duplicate mutant id 'a'" in m for m in problems.values()), (
        f"catalog validation let a duplicate mutant id through: {problems}")
    assert "duplicate mutant id 'a' (first at line 2)" in problems.get("10", ""), (
        f"the duplicate is not reported at line 10 naming line 2: {problems}")


def test_a_line_number_target_is_refused(tmp_path):
    problems = _problems(tmp_path, GOOD.replace("pkg.mod:func", "pkg/mod.py:42"))
    assert "line numbers are never used" in problems.get("5", ""), (
        f"catalog validation accepted a line-number target: {problems}")


def test_every_problem_is_reported_at_once(tmp_path):
    text = (GOOD.replace("pkg.mod:func", "pkg/mod.py:42")
            + GOOD.replace('id = "a"', 'id = "b"').replace('"return"', '"teleport"')
            + GOOD.replace('id = "a"', 'id = "c"').replace('owners = [', 'expect = "("\nowners = ['))
    problems = _problems(tmp_path, text)
    assert len(problems) == 3, (
        f"catalog validation stopped short of reporting every problem at once: {problems}")
    assert "unknown operator 'teleport'" in problems.get("14", ""), problems
    assert "not a valid regex" in problems.get("24", ""), problems
