"""Doctests and parametrized cases are selected like test functions (docs/gate.md, *Which tests
are selected*), without git: a small in-memory repository stands in for it. A changed text file
pytest collects doctests from is one item; with ``--doctest-modules`` each new or changed
docstring holding ``>>>`` is one, named by the dotted module pytest imports; a test whose
parametrize cases alone changed is judged per new or changed case."""

from __future__ import annotations

import locale
from pathlib import Path

import pytest

from deskcheck.gate.layout import TestLayout
from deskcheck.gate.selection import ADDED, MODIFIED, changed_tests
from tests.gate.pure_sides import FakeRepo

MODULE = '''
"""The package's module.

>>> 1 + 1
2
"""


def kept():
    """Same on both sides.

    >>> kept()
    """


def changed():
    """Its example changes on the branch.

    >>> changed()
    """


def plain():
    """No example here."""
'''

BRANCH_MODULE = MODULE.replace(">>> changed()", ">>> changed() is None\n    True") + '''

class Box:
    def new(self):
        """>>> Box().new()"""
'''


def _select(tmp_path: Path, base: dict[str, str], work: dict[str, str],
            layout: TestLayout = TestLayout(), limit_to: list[str] | None = None):
    change = changed_tests(FakeRepo(tmp_path, base, work), "base", layout, limit_to)
    wrong_path = [s.id for s in change.selected if s.path != s.id.split("::")[0]]
    assert not wrong_path, f"a selected item must carry its own file as its path: {wrong_path}"
    return change, {s.id: (s.change, s.line) for s in change.selected}


def test_a_text_doctest_file_is_one_item_added_or_modified(tmp_path):
    base = {"docs/test_usage.txt": ">>> 1\n1\n", "docs/test_same.txt": ">>> 2\n2\n"}
    work = {"docs/test_usage.txt": ">>> 1 + 0\n1\n", "docs/test_same.txt": ">>> 2\n2\n",
            "docs/test_new.txt": "Intro.\n\n    >>> 3\n    3\n",
            "docs/test_prose.txt": "No example at all.\n"}
    change, got = _select(tmp_path, base, work)
    expected = {"docs/test_usage.txt::test_usage.txt": (MODIFIED, 1),
                "docs/test_new.txt::test_new.txt": (ADDED, 1)}
    assert got == expected, (
        f"a changed doctest text file must be one MODIFIED item and a new one one ADDED item "
        f"(pytest's id path::name, line 1); an unchanged one and one without '>>>' nothing: "
        f"expected {expected}, got {got}")
    assert sorted(change.changed_test_files) == ["docs/test_new.txt", "docs/test_usage.txt"], (
        f"the changed doctest files must count as changed test files (they run from the "
        f"branch on both sides): {change.changed_test_files}")


def test_doctest_files_outside_the_paths_are_not_selected(tmp_path):
    work = {"docs/test_usage.txt": ">>> 1\n1\n", "tests/test_here.txt": ">>> 1\n1\n"}
    change, got = _select(tmp_path, {}, work, limit_to=["tests"])
    assert list(got) == ["tests/test_here.txt::test_here.txt"], (
        f"with TEST_PATHS = tests, a doctest file under docs/ must not be selected: {got}")


def test_docstring_doctests_are_selected_only_with_doctest_modules(tmp_path):
    base = {"src/pkg/__init__.py": "", "src/pkg/mod.py": MODULE}
    work = {"src/pkg/__init__.py": "", "src/pkg/mod.py": BRANCH_MODULE,
            "src/notes.md": ">>> 1\n1\n", "scripts/tool.py": MODULE}
    _, without = _select(tmp_path / "a", base, work, TestLayout(collected_paths=("src",)))
    assert without == {}, (
        f"without --doctest-modules no docstring is a test; selected {without}")
    layout = TestLayout(doctest_modules=True, collected_paths=("src",))
    _, got = _select(tmp_path / "b", base, work, layout)
    expected = {"src/pkg/mod.py::pkg.mod.changed": (MODIFIED, 16),
                "src/pkg/mod.py::pkg.mod.Box.new": (ADDED, 29)}
    assert got == expected, (
        f"with --doctest-modules each new or changed docstring holding '>>>' is one item, "
        f"path::<dotted module up through __init__.py>.<qualname> at its def line (ADDED when "
        f"the base lacks it); the unchanged ones are not, nor a module outside pytest's "
        f"testpaths (scripts/tool.py), nor a text file the doctest glob does not match "
        f"(src/notes.md): expected {expected}, got {got}")


def test_a_new_module_brings_every_docstring_doctest_it_holds(tmp_path):
    _, got = _select(tmp_path, {}, {"lib.py": MODULE}, TestLayout(doctest_modules=True))
    expected = {"lib.py::lib": (ADDED, 1), "lib.py::lib.kept": (ADDED, 9),
                "lib.py::lib.changed": (ADDED, 16)}
    assert got == expected, (
        f"a module new on the branch brings each docstring doctest as ADDED, the module's own "
        f"named by the module alone: expected {expected}, got {got}")


CASES = '''
import pytest

@pytest.mark.parametrize("x", [1, 2])
def test_p(x):
    assert x
'''


def test_a_test_whose_cases_alone_changed_is_judged_per_new_case(tmp_path):
    work = CASES.replace("[1, 2]", "[1, 2, 3, 4]")
    change, got = _select(tmp_path, {"tests/test_p.py": CASES}, {"tests/test_p.py": work})
    expected = {"tests/test_p.py::test_p[3]": (MODIFIED, 5),
                "tests/test_p.py::test_p[4]": (MODIFIED, 5)}
    assert got == expected, (
        f"when only a test's parametrize cases changed, each new or changed case is one "
        f"MODIFIED item (pytest's case id, the def's line), the unchanged cases none: "
        f"expected {expected}, got {got}")


def test_an_added_test_before_a_test_whose_cases_changed_is_kept(tmp_path):
    base = {"tests/test_p.py": CASES}
    work = {"tests/test_p.py": CASES.replace("import pytest\n",
                                             "import pytest\n\ndef test_new():\n    pass\n")
            .replace("[1, 2]", "[1, 3]")}
    _, got = _select(tmp_path, base, work)
    assert set(got) == {"tests/test_p.py::test_new", "tests/test_p.py::test_p[3]"}, (
        f"a new test and a changed case of a later test must both be selected: {sorted(got)}")


@pytest.fixture
def ascii_locale():
    """The process's locale encoding set to ASCII for the test: a file read without an
    explicit encoding then fails on non-ASCII text."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_doctest_files_are_read_as_utf8_and_an_unreadable_one_is_passed_over(tmp_path,
                                                                               ascii_locale):
    work = {"docs/test_a.txt": ">>> 1\n1\n", "docs/test_b.txt": ">>> 'café'\n'café'\n"}
    repo = FakeRepo(tmp_path, {}, work)
    (tmp_path / "docs" / "test_a.txt").write_bytes(b">>> 1\n\xff\n")  # not UTF-8
    got = [s.id for s in changed_tests(repo, "base", TestLayout()).selected]
    assert got == ["docs/test_b.txt::test_b.txt"], (
        f"a doctest file that is not UTF-8 must be passed over and the next one still read, "
        f"as UTF-8 whatever the locale (test_b.txt holds 'café'); selected {got}")
