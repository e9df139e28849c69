"""``deskcheck init`` reads the tests where the project keeps them: pytest's ``testpaths``
(not only tests/), and the stand-ins conftest.py fixtures build."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.report.project_shape import read_project

STANDIN = textwrap.dedent('''
    from types import SimpleNamespace

    def make():
        return SimpleNamespace(queue=[])
''')


def test_stand_ins_under_pytests_testpaths_are_found(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "spec" / "test_queue.py").write_text(STANDIN)
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["spec"]\n')
    shape = read_project(tmp_path)
    assert shape.test_files == ["spec/test_queue.py"], (
        f"testpaths = ['spec'] names where the tests are; init read {shape.test_files}")
    assert shape.adhoc_standins == ["spec/test_queue.py:5 SimpleNamespace"], (
        f"the stand-in under spec/ was not found: {shape.adhoc_standins}")


def test_a_stand_in_built_in_a_conftest_fixture_is_found(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(STANDIN)
    shape = read_project(tmp_path)
    assert shape.adhoc_standins == ["tests/conftest.py:5 SimpleNamespace"], (
        f"a SimpleNamespace built in tests/conftest.py was not read: {shape.adhoc_standins}")
