"""Three small projects of the kinds `deskcheck init` must fit, each a git repository with a
base commit on `main` and a pull-request branch `pr` that fixes a bug and adds the test that
proves it (red on base, green on the branch)."""

from __future__ import annotations

from pathlib import Path

from tests.gate.gitproject import GitProject

BUDGET_BASE = '''
class Budget:
    def limit(self):
        return self.cap - self.used
'''
BUDGET_FIXED = '''
class Budget:
    def limit(self):
        return max(0, self.cap - self.used)
'''
PYPROJECT = '''
[project]
name = "calc"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

ADHOC_TEST = '''
from calc.budget import Budget


def _budget(cap, used):
    budget = Budget.__new__(Budget)  # a hand-built stand-in
    budget.cap, budget.used = cap, used
    return budget


def test_limit_is_what_is_left():
    assert _budget(5, 2).limit() == 3
'''
ADHOC_NEW_TEST = '''

def test_limit_is_never_negative():
    assert _budget(2, 5).limit() == 0
'''

HARNESS_TEST = '''
from deskcheck.harness import Harness, bind, state

from calc.budget import Budget


class BudgetHarness(Harness, model=Budget, roots=["limit"]):
    limit = bind(Budget.limit)
    cap = state(5)
    used = state(2)


def test_limit_is_what_is_left():
    assert BudgetHarness().limit() == 3
'''
HARNESS_NEW_TEST = '''

def test_limit_is_never_negative():
    harness = BudgetHarness()
    harness.used = 9
    assert harness.limit() == 0
'''
CATALOG = '''
[sweep]
tests = ["tests"]

[[mutant]]
id = "budget.clamp_dropped"
title = "the clamp at zero is dropped"
target = "calc.budget:Budget.limit"
operator = "replace"
old = "max(0, self.cap - self.used)"
new = "self.cap - self.used"
owners = ["tests/test_budget.py::test_limit_is_never_negative"]
'''

METAL_TEST = '''
import pytest

from calc.budget import Budget


@pytest.mark.metal
def test_limit_on_the_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no GPU here")
    budget = Budget.__new__(Budget)
    budget.cap, budget.used = torch.tensor(5, device="cuda"), 2
    assert int(budget.limit()) == 3


def test_limit_is_what_is_left():
    budget = Budget.__new__(Budget)
    budget.cap, budget.used = 5, 2
    assert budget.limit() == 3
'''
METAL_NEW_TEST = '''

def test_limit_is_never_negative():
    budget = Budget.__new__(Budget)
    budget.cap, budget.used = 2, 5
    assert budget.limit() == 0
'''

KINDS = {
    "adhoc": (ADHOC_TEST, ADHOC_NEW_TEST, None),
    "harness": (HARNESS_TEST, HARNESS_NEW_TEST, CATALOG),
    "metal": (METAL_TEST, METAL_NEW_TEST, None),
}


def make_project(root: Path, kind: str) -> GitProject:
    """``kind`` is ``adhoc``, ``harness`` (with a catalog) or ``metal``; HEAD is on ``pr``."""
    test, new_test, catalog = KINDS[kind]
    repo = GitProject(root)
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".gitignore", ".deskcheck/\n__pycache__/\n")
    repo.write("calc/__init__.py", "")
    repo.write("calc/budget.py", BUDGET_BASE)
    repo.write("tests/test_budget.py", test)
    if catalog is not None:
        repo.write("mutants.toml", catalog)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "pr")
    repo.write("calc/budget.py", BUDGET_FIXED)
    tests = root / "tests" / "test_budget.py"
    tests.write_text(tests.read_text() + new_test)
    repo.commit("clamp the limit at zero")
    return repo
