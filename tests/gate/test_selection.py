"""Which tests redfirst picks, and how files are classified (no pytest runs here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.config import load_config
from deskcheck.errors import ConfigError
from deskcheck.gate.git import GitRepo
from deskcheck.gate.layout import TestLayout, load_layout
from deskcheck.gate.selection import changed_tests
from tests.gate.gitproject import GitProject

BASE = '''
import pytest


def helper():
    return 1


def test_kept():
    # a comment
    assert helper() == 1


def test_reformatted():
    assert helper() == 1


def test_decorated():
    assert True


class TestGroup:
    def test_method(self):
        assert True

    def test_other(self):
        assert True
'''


def _repo(tmp_path: Path) -> GitProject:
    project = GitProject(tmp_path / "repo")
    project.write("pkg/__init__.py", "")
    project.write("tests/test_a.py", BASE)
    project.commit("base")
    return project


def test_only_new_or_changed_functions_are_selected(tmp_path: Path) -> None:
    project = _repo(tmp_path)
    base = project.git("rev-parse", "HEAD").strip()
    text = BASE.replace("    # a comment\n", "    # another comment\n")
    text = text.replace("assert helper() == 1\n\n\ndef test_decorated",
                        "assert (helper()\n            == 1)\n\n\ndef test_decorated")
    text = text.replace("def test_decorated", "@pytest.mark.slow\ndef test_decorated")
    text = text.replace("    def test_other(self):\n        assert True",
                        "    def test_other(self):\n        assert not False")
    text = text.replace("def helper():\n    return 1", "def helper():\n    return 2")
    text += "\n\nasync def test_new_async():\n    pass\n\n\nclass Helper:\n" \
            "    def test_not_collected(self):\n        pass\n"
    project.write("tests/test_a.py", text)
    project.write("tests/test_b.py", "import unittest\n\n\ndef test_in_new_file():\n    pass\n"
                  "\n\nclass Legacy(unittest.TestCase):\n    def test_case(self):\n"
                  "        pass\n")
    project.write("tests/helpers.py", "def test_like_name():\n    pass\n")
    changes = changed_tests(GitRepo(project.root), base, TestLayout())
    selected = {s.id: s.change for s in changes.selected}
    assert selected == {
        "tests/test_a.py::test_decorated": "modified",
        "tests/test_a.py::TestGroup::test_other": "modified",
        "tests/test_a.py::test_new_async": "added",
        "tests/test_b.py::test_in_new_file": "added",
        "tests/test_b.py::Legacy::test_case": "added",
    }, (
        "only new or changed test functions must be selected (added or modified); selected "
        f"{selected}"
    )
    assert changes.changed_test_files == ["tests/test_a.py", "tests/test_b.py"], (
        "the changed test files must be tests/test_a.py and tests/test_b.py; they are "
        f"{changes.changed_test_files}"
    )


def test_limit_to_paths_and_unparsable_files(tmp_path: Path) -> None:
    project = _repo(tmp_path)
    base = project.git("rev-parse", "HEAD").strip()
    project.write("tests/test_b.py", "def test_x(:\n")
    project.write("other/test_c.py", "def test_y():\n    pass\n")
    repo = GitRepo(project.root)
    changes = changed_tests(repo, base, TestLayout(), limit_to=["tests"])
    assert [s.id for s in changes.selected] == ["tests/test_b.py"], (
        "an unparsable test file under --limit tests must be selected whole; selected "
        f"{[s.id for s in changes.selected]}"
    )
    assert changes.unparsable == ["tests/test_b.py"], (
        f"the unparsable file tests/test_b.py must be named; unparsable {changes.unparsable}"
    )
    everything = changed_tests(repo, base, TestLayout())
    assert "other/test_c.py::test_y" in {s.id for s in everything.selected}, (
        "without a limit other/test_c.py::test_y must be selected; selected "
        f"{[s.id for s in everything.selected]}"
    )


def test_default_classification() -> None:
    layout = TestLayout(test_paths=("qa",))
    assert layout.is_test_file("pkg/test_mod.py") and layout.is_test_file("pkg/mod_test.py"), (
        "test_*.py and *_test.py must be test files by default"
    )
    assert layout.is_test_file("conftest.py") and layout.is_test_file("qa/support.py"), (
        "conftest.py and files under a configured test path (qa/) must be test files"
    )
    assert layout.is_test_file("tests/helpers.py"), (
        "a file in a folder named tests must be a test file"
    )  # folder named tests
    assert layout.is_production_file("pkg/mod.py"), "pkg/mod.py must be a production file"
    assert not layout.is_production_file("tests/helpers.py"), (
        "a test file (tests/helpers.py) must not be a production file"
    )
    assert not layout.is_production_file(".venv/lib/x.py"), (
        "a file under .venv must not be a production file"
    )
    files = ["src/pkg/__init__.py", "src/pkg/sub/__init__.py", "src/pkg/sub/m.py",
             "tools/script.py", "setup_helpers.py", "tests/test_x.py", "json.py"]
    modules, notes = layout.production_modules(files)
    assert modules == {"pkg": "src", "setup_helpers": ""}, (
        "the importable production modules must be pkg (under src) and setup_helpers; they are "
        f"{modules}"
    )  # tools/ scripts are not importable
    assert notes == ["json: shadows a standard-library module; not redirected"], (
        "a module shadowing the standard library (json) must be noted, not redirected; notes "
        f"{notes}"
    )


def test_configured_paths_win(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["checks"]\npython_files = ["check_*.py"]\n'
        '[tool.deskcheck]\ntest_paths = ["checks"]\nsource_paths = ["src"]\n')
    layout = load_layout(load_config(tmp_path), tmp_path)
    assert layout.test_paths == ("checks",) and layout.source_paths == ("src",), (
        f"configured test_paths and source_paths must win; they are {layout.test_paths}, "
        f"{layout.source_paths}"
    )
    assert layout.is_test_module("checks/check_a.py"), (
        "checks/check_a.py must be a test module under python_files = [\"check_*.py\"]"
    )
    assert not layout.is_test_module("checks/test_a.py"), (
        "checks/test_a.py must not be a test module under python_files = [\"check_*.py\"]"
    )
    assert not layout.is_test_file("tests/helpers.py"), (
        "with explicit test_paths the tests-folder heuristic must not apply"
    )  # explicit test_paths: no heuristic
    assert not layout.is_production_file("scripts/run.py"), (
        "a file outside source_paths must not be a production file"
    )  # outside source_paths
    modules, _ = layout.production_modules(["src/ns/pkg/__init__.py", "src/top.py"])
    assert modules == {"ns": "src", "top": "src"}, (
        f"namespace packages under a source root must be production modules; they are {modules}"
    )  # namespace packages under a source root


def test_bad_config_names_file_line_and_fix(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.deskcheck]\nsource_paths = 3\n')
    with pytest.raises(ConfigError) as err:
        load_layout(load_config(tmp_path), tmp_path)
    assert err.value.location.endswith("pyproject.toml:2"), (
        f"a bad config must be located at pyproject.toml:2; it is at {err.value.location}"
    )
    assert 'source_paths = ["src"]' in err.value.fix, (
        f"the fix must show source_paths = [\"src\"]; it is {err.value.fix!r}"
    )


@pytest.mark.parametrize("path", ["pkg/conftest.py", "pkg/test_mod.py", "pkg/mod_test.py",
                                  "checks/helper.py"])
def test_conftest_and_test_named_files_are_always_tests_even_outside_test_paths(path: str):
    layout = TestLayout(test_paths=("checks",), folder_heuristic=False)
    assert layout.is_test_file(path) and not layout.is_production_file(path), (
        f"docs/gate.md: files named like python_files (test_*.py, *_test.py), conftest.py and "
        f"everything under test_paths are always tests, run from the branch on both sides; "
        f"{path} with test_paths = ['checks'] is a test: {layout.is_test_file(path)}")


@pytest.mark.parametrize("path", ["pkg/mod.py", "pkg/testing.py", "tests_util/mod.py",
                                  "checksum/mod.py"])
def test_other_files_outside_test_paths_are_production(path: str):
    layout = TestLayout(test_paths=("checks",), folder_heuristic=False)
    assert layout.is_production_file(path) and not layout.is_test_file(path), (
        f"with test_paths = ['checks'], {path} is production code (from each side); it is a "
        f"test: {layout.is_test_file(path)}")
