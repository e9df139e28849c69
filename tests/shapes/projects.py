"""Fixture projects of ordinary test shapes nobody here wrote: unittest ``subTest``, rst and
docstring doctests, pytest configured in ``.pytest.ini`` / ``setup.cfg`` / ``tox.ini``.

``escape_project``: a src-layout library ``esc`` whose base ``escape`` forgets the quote;
the branch fixes it. Tests on the branch:

- ``tests/test_escape.py::EscapeTest::test_table`` (new): three ``subTest`` cases, two of
  which fail on base (the quote ones) and all pass on the branch;
- ``tests/test_escape.py::EscapeTest::test_plain`` (unchanged);
- ``docs/usage.rst`` (new doctest lines failing on base);
- ``src/esc/__init__.py``: ``escape``'s docstring gains a doctest that fails on base.

``config`` chooses the file that configures pytest (all five are readable by deskcheck).
"""

from __future__ import annotations

from pathlib import Path

from tests.gate.gitproject import GitProject

BASE_CODE = '''
"""Escape text for a quoted config value."""


def escape(text):
    """Backslash-escape what a quoted value cannot hold."""
    return text.replace("\\\\", "\\\\\\\\")
'''

BRANCH_CODE = '''
"""Escape text for a quoted config value."""


def escape(text):
    """Backslash-escape what a quoted value cannot hold.

    >>> escape('say "hi"')
    'say \\\\\\\\"hi\\\\\\\\"'
    """
    return text.replace("\\\\", "\\\\\\\\").replace('"', '\\\\"')
'''

BASE_TESTS = '''
import unittest

from esc import escape


class EscapeTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(escape("abc"), "abc")
'''

BRANCH_TESTS = BASE_TESTS + '''
    def test_table(self):
        cases = [("a", "a"), ('"', '\\\\"'), ('x"y', 'x\\\\"y')]
        for given, wanted in cases:
            with self.subTest(given=given):
                self.assertEqual(escape(given), wanted)
'''

BASE_RST = """
Usage
=====

>>> from esc import escape
>>> escape("abc")
'abc'
"""

BRANCH_RST = BASE_RST + """>>> escape('"')
'\\\\"'
"""

INI_BODY = "testpaths = tests docs src\naddopts = --doctest-modules --doctest-glob=*.rst\n"
CONFIGS = {
    "pytest.ini": ("pytest.ini", "[pytest]\n" + INI_BODY),
    ".pytest.ini": (".pytest.ini", "[pytest]\n" + INI_BODY),
    "tox.ini": ("tox.ini", "[tox]\nenvlist = py\n\n[pytest]\n" + INI_BODY),
    "setup.cfg": ("setup.cfg", "[metadata]\nname = esc\n\n[tool:pytest]\n" + INI_BODY),
    "pyproject.toml": ("pyproject.toml", '[tool.pytest.ini_options]\n'
                       'testpaths = ["tests", "docs", "src"]\n'
                       'addopts = "--doctest-modules --doctest-glob=*.rst"\n'),
}


def escape_project(root: Path, config: str = ".pytest.ini") -> GitProject:
    """The base commit on ``main``, the branch's changes committed on ``feature``."""
    project = GitProject(root)
    name, text = CONFIGS[config]
    project.write(name, text)
    if config != "pyproject.toml":  # a project file that does not configure pytest
        project.write("pyproject.toml", '[project]\nname = "esc"\nversion = "0"\n')
    project.write("src/esc/__init__.py", BASE_CODE)
    project.write("tests/test_escape.py", BASE_TESTS)
    project.write("docs/usage.rst", BASE_RST)
    project.commit("base")
    project.git("checkout", "-q", "-b", "feature")
    project.write("src/esc/__init__.py", BRANCH_CODE)
    project.write("tests/test_escape.py", BRANCH_TESTS)
    project.write("docs/usage.rst", BRANCH_RST)
    project.commit("fix the quote")
    return project
