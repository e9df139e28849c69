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


OWNER_TESTS = '''import pytest


def test_limit():
    pass


class TestBudget:
    def test_headroom(self):
        pass


def _make():
    def test():
        pass
    return test


test_generated = _make()


@pytest.mark.parametrize("n", [1, 2])
def test_many(n):
    pass


def test_patched(monkeypatch):  # patching is not binding test names at run time
    monkeypatch.setattr("os.sep", "/")
'''


def _owned(tmp_path: Path, owners: list[str], *, target: str = "local_admit_limit",
           key: str = "owners") -> Path:
    catalog = _write(tmp_path, "")
    (tmp_path / "tests" / "test_limits.py").write_text(OWNER_TESTS)
    listed = ", ".join(f'"{o}"' for o in owners)
    catalog.write_text(catalog.read_text() + f'''[[mutant]]
id = "limits.M1"
title = "reserved ignored"
target = "pkg.limits:{target}"
operator = "replace"
old = "free - reserved"
new = "free"
{key} = [{listed}]
''')
    return catalog


def test_a_key_typo_an_unknown_target_and_a_bad_owner_come_in_one_pass(tmp_path: Path):
    """The issue's case: three kinds of problem, one run, exit 2, before any test runs."""
    catalog = _write(tmp_path, '''[[mutant]]
id = "limits.M1"
title = "reserved ignored"
target = "pkg.limits:local_admit_limt"
operator = "replace"
old = "free - reserved"
new = "free"
owners = ["tests/test_limits.py::test_limit"]
timeuot_s = 3

[[mutant]]
id = "limits.M2"
title = "max not min"
target = "pkg.limits:Budget.headroom"
operator = "replace"
old = "min("
new = "max("
owners = ["tests/test_limits.py::test_limt"]
''')
    done = subprocess.run([sys.executable, "-m", "deskcheck", "sweep", "--catalog",
                           str(catalog), "--no-store"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    err = done.stderr
    assert done.returncode == 2, f"exit {done.returncode}, not 2 (a catalog error):\n{err}"
    expected = {
        "the key typo": "unknown key 'timeuot_s'" in err and "did you mean 'timeout_s'" in err,
        "the unknown target": "'local_admit_limt'" in err
        and "did you mean 'local_admit_limit'" in err,
        "the bad owner, at its line": f"{catalog}:21" in err and "test_limt" in err
        and "did you mean 'test_limit'" in err,
    }
    missing = [name for name, found in expected.items() if not found]
    assert not missing, f"one pass did not report {missing}; stderr:\n{err}"
    assert "3 problem(s)" in err, f"the three problems are not reported together:\n{err}"
    assert "baseline" not in err and "collected" not in err, (
        f"tests were collected or run before the catalog's errors were reported:\n{err}")


@pytest.mark.parametrize(("owner", "says"), [
    ("tests/test_limts.py::test_limit",
     "no file or folder 'tests/test_limts.py'; did you mean 'tests/test_limits.py'?"),
    ("tests/test_limits.py::TestBudgte::test_headroom",
     "defines no test 'TestBudgte'; did you mean 'TestBudget'?"),
    ("tests/test_limits.py::TestBudget::test_headrom",
     "TestBudget defines no test 'test_headrom'; did you mean 'test_headroom'?"),
    ("tests::test_limit", "'tests' is a folder"),
], ids=["missing-file", "missing-class", "missing-method", "folder"])
def test_a_bad_owner_node_id_is_a_catalog_error_with_a_suggestion(tmp_path: Path, owner: str,
                                                                   says: str):
    problems = _problems(_owned(tmp_path, [owner]))
    assert len(problems) == 1 and says in problems[0], (
        f"owner {owner!r}: expected one problem saying {says!r}, got {problems}")
    assert problems[0].startswith(f"{tmp_path / 'mutants.toml'}:11"), (
        f"the problem is not located at the owners line (11): {problems[0]}")


def test_owners_only_collection_can_decide_are_not_reported(tmp_path: Path):
    owners = ["tests/test_limits.py::test_generated", "tests/test_limits.py::test_many[1]",
              "tests/test_limits.py::TestBudget", "tests/test_limits.py", "tests",
              "-k limit", "tests/test_limits.py::test_many[99]"]
    catalog = _owned(tmp_path, owners)
    assert [m.owners for m in load_catalog(catalog).mutants] == [tuple(owners)], (
        "an owner that exists, or that only collection can judge (a generated test, a "
        "parameter id, an expression), was rejected")


def test_a_conftest_that_makes_items_defers_owners_to_collection(tmp_path: Path):
    catalog = _owned(tmp_path, ["tests/test_limits.py::test_made_by_the_conftest"])
    (tmp_path / "tests" / "conftest.py").write_text(
        "def pytest_pycollect_makeitem(collector, name, obj):\n    return None\n")
    assert len(load_catalog(catalog).mutants) == 1, (
        "a conftest hook can make items of any name: the owner must be left to collection")
