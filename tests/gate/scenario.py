"""The history every gate test builds on: one base commit, one feature branch.

Base (``main``): package ``calc`` with ``sub`` wrong and ``neg`` wrong.
Branch (``feature``), exercising every classification:

- redfirst: ``test_sub_is_fixed`` (new, RED_GREEN), ``test_add_still_adds`` (new, pinned:
  PIN), ``test_add_unmarked`` (new, green on base, unmarked: GREEN_ON_BASE),
  ``test_broken_on_branch`` (new, RED_ON_BRANCH), ``test_div_exact`` (modified body, red
  on base: RED_GREEN), ``tests/test_square.py`` (new file importing a module that does not
  exist on base: WEAK_RED).
- regress: ``test_neg`` fails on both (pre-existing), ``test_sub_old`` fails only on base
  (repair), ``test_div_true`` fails only on branch (regression), ``test_flaky`` fails on its
  second run only (flaky), ``test_broken_on_branch`` is new and failing (regression, new).
"""

from __future__ import annotations

from pathlib import Path

from tests.gate.gitproject import GitProject

PYPROJECT = """
[tool.pytest.ini_options]
testpaths = ["tests"]
"""

BASE_OPS = """
def add(a, b):
    return a + b


def sub(a, b):
    return a + b  # wrong on base


def div(a, b):
    return a / b


def neg(a):
    return a  # wrong on both sides
"""

BRANCH_OPS = BASE_OPS.replace("return a + b  # wrong on base", "return a - b").replace(
    "return a / b", "return a // b  # the regression")

FLAKY = """
import os
from pathlib import Path


def test_flaky():
    counter = Path(os.environ["GATE_FLAKY_COUNTER"])
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    assert runs != 2, "fails on its second run only"
"""

BASE_TESTS = """
from calc.ops import add, div, neg, sub


def test_add():
    assert add(1, 2) == 3


def test_div_true():
    assert div(3, 2) == 1.5


def test_div_exact():
    assert div(4, 2) == 2


def test_neg():
    assert neg(1) == -1


def test_sub_old():
    assert sub(3, 1) == 2
"""

BRANCH_TESTS = BASE_TESTS.replace(
    "def test_div_exact():\n    assert div(4, 2) == 2",
    "def test_div_exact():\n    assert sub(4, 2) == 2  # changed body",
) + '''

def test_sub_is_fixed():
    assert sub(5, 3) == 2


@pytest.mark.pin("add is unchanged by this branch")
def test_add_still_adds():
    assert add(2, 2) == 4


def test_add_unmarked():
    assert add(0, 0) == 0


def test_broken_on_branch():
    assert sub(1, 1) == 1
'''
BRANCH_TESTS = "import pytest\n" + BRANCH_TESTS

SQUARE_TESTS = """
from calc.square import square


def test_square():
    assert square(3) == 9
"""


def build(root: Path) -> GitProject:
    """The repository, checked out on ``feature`` (HEAD), ``main`` being the base."""
    project = GitProject(root)
    project.write("pyproject.toml", PYPROJECT)
    project.write("calc/__init__.py", "")
    project.write("calc/ops.py", BASE_OPS)
    project.write("tests/test_ops.py", BASE_TESTS)
    project.write("tests/test_flaky.py", FLAKY)
    project.write(".gitignore", "__pycache__/\n.deskcheck/\n")
    project.commit("base")
    project.git("checkout", "-q", "-b", "feature")
    project.write("calc/ops.py", BRANCH_OPS)
    project.write("calc/square.py", "def square(x):\n    return x * x\n")
    project.write("tests/test_ops.py", BRANCH_TESTS)
    project.write("tests/test_square.py", SQUARE_TESTS)
    project.commit("feature")
    return project
