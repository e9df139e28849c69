"""Issue 16 item 5: catalog validation reports every problem in one pass (one exit 2), with
did-you-mean suggestions for keys, operators and targets, and a missing owners list."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog import load_catalog

MODULE = '''
def local_admit_limit(free, reserved):
    return max(0, free - reserved)


class Budget:
    def headroom(self, limits):
        return min(limits)
'''


def _write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "limits.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_limits.py").write_text("def test_limit():\n    pass\n")
    catalog = tmp_path / "mutants.toml"
    catalog.write_text('[sweep]\ntests = ["tests"]\n\n' + body, encoding="utf-8")
    return catalog


BROKEN = '''[[mutant]]
id = "limits.M1"
title = "reserved ignored"
target = "pkg.limits:local_admit_limt"
operator = "replace"
old = "free - reserved"
new = "free"
owner = ["tests/test_limits.py::test_limit"]

[[mutant]]
id = "limits.M2"
title = "max not min"
target = "pkg.limits:Budget.headrom"
operator = "replce"
old = "min("
new = "max("
ownres = ["tests/test_limits.py::test_limit"]

[[mutant]]
id = "limits.M3"
title = "no owners at all"
target = "pkg.limits:local_admit_limit"
operator = "replace"
old = "max(0,"
new = "min(0,"
'''


def _problems(catalog: Path) -> list[str]:
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog)
    return [e.render() for e in info.value.errors]


def test_every_problem_in_one_pass_with_suggestions(tmp_path: Path):
    problems = _problems(_write(tmp_path, BROKEN))
    text = "\n".join(problems)
    expected = {
        "key typo `owner` -> owners": "unknown key 'owner'" in text and "did you mean 'owners'" in text,
        "key typo `ownres` -> owners": "unknown key 'ownres'" in text,
        "operator typo -> replace": "unknown operator 'replce'" in text and "'replace'?" in text,
        "function typo -> local_admit_limit": "local_admit_limt" in text
        and "did you mean 'local_admit_limit'" in text,
        "method typo -> headroom": "'headrom'" in text and "did you mean 'headroom'" in text,
        "missing owners of limits.M3": "'limits.M3' has no owners" in text,
    }
    missing = [name for name, found in expected.items() if not found]
    assert not missing, (f"one pass over the catalog did not report: {missing}\n"
                         f"it reported:\n{text}")
    assert all(":" in p.split(" ", 1)[0] for p in problems), (
        f"a problem does not start with file:line:\n{text}")


def test_ownres_suggests_owners_not_the_operators_keys(tmp_path: Path):
    problems = [p for p in _problems(_write(tmp_path, BROKEN)) if "'ownres'" in p]
    assert problems and "did you mean 'owners'" in problems[0], (
        f"the typo `ownres` got no `owners` suggestion: {problems}")


def test_a_sound_catalog_still_loads(tmp_path: Path):
    catalog = _write(tmp_path, BROKEN.split("[[mutant]]\nid = \"limits.M2\"")[0]
                     .replace("local_admit_limt", "local_admit_limit").replace("owner =", "owners ="))
    assert [m.id for m in load_catalog(catalog).mutants] == ["limits.M1"], (
        "a catalog with no problem was rejected")


def test_the_command_exits_2_once_listing_them_all(tmp_path: Path):
    catalog = _write(tmp_path, BROKEN)
    done = subprocess.run([sys.executable, "-m", "deskcheck", "mutants", "list", "--catalog",
                           str(catalog)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, f"exit {done.returncode}, not 2: {done.stderr}"
    assert "8 problem(s)" in done.stderr and done.stderr.count("did you mean") >= 5, (
        f"the command did not list every problem at once:\n{done.stderr}")
