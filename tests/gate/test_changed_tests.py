"""Which test functions a branch adds or changes (docs/gate.md, *Which tests are selected*),
without git: a small in-memory repository stands in for it. Only added and changed test
functions are selected, with their lines; nested ``Test*`` classes are walked, other classes
are not; ``--paths`` limits by folder; a file that does not parse runs whole."""

from __future__ import annotations

import ast
import locale
import textwrap

import pytest

from deskcheck.gate.layout import PytestNaming, TestLayout
from deskcheck.gate.selection import (
    ADDED,
    MODIFIED,
    _test_functions,
    _within,
    changed_tests,
)
from tests.gate.pure_sides import FakeRepo, selected

BASE_TESTS = '''
import unittest

def test_same():
    assert 1

def test_body_changes():
    assert 1

def helper():
    return 1

class TestBox:
    def test_kept(self):
        assert 1

class Plain(unittest.TestCase):
    def test_case(self):
        self.assertTrue(1)
'''


BRANCH_TESTS = '''
import unittest

def test_same():
    # a comment and other formatting are no change
    assert (1)

def test_body_changes():
    assert 2

def test_added():
    assert 1

def helper():
    return 2

class TestBox:
    def test_kept(self):
        assert 1

    def test_new_method(self):
        assert 1

class Plain(unittest.TestCase):
    def test_case(self):
        self.assertTrue(2)
'''


def test_only_added_and_changed_test_functions_are_selected(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS},
                           {"tests/test_x.py": BRANCH_TESTS})
    expected = {
        "tests/test_x.py::test_body_changes": MODIFIED,
        "tests/test_x.py::test_added": ADDED,
        "tests/test_x.py::TestBox::test_new_method": ADDED,
        "tests/test_x.py::Plain::test_case": MODIFIED,
    }
    assert got == expected, (
        f"red-first selected {got}; it must select exactly the test functions and Test* / "
        f"TestCase methods whose ast differs (not test_same, changed only in comments and "
        f"parentheses, not the helper, not the unchanged test_kept): {expected}")
    assert change.changed_test_files == ["tests/test_x.py"], (
        f"the changed test files are {change.changed_test_files}, not ['tests/test_x.py']")


def test_a_test_whose_only_change_is_its_signature_is_selected(tmp_path):
    """docs/gate.md: a test is selected when its ast differs in decorators, signature or body:
    a new fixture argument or a changed default changes what the test runs with."""
    base = "def test_fixture():\n    assert 1\n\ndef test_default(n=1):\n    assert n\n"
    work = ("def test_fixture(tmp_path):\n    assert 1\n\n"
            "def test_default(n=2):\n    assert n\n")
    _, got = selected(tmp_path, {"tests/test_sig.py": base}, {"tests/test_sig.py": work})
    expected = {"tests/test_sig.py::test_fixture": MODIFIED,
                "tests/test_sig.py::test_default": MODIFIED}
    assert got == expected, (
        "a test whose only change is its signature (a new fixture argument, a changed default) "
        f"must be selected as MODIFIED; red-first selected {got}")


def test_a_new_test_file_contributes_all_its_tests_with_their_lines(tmp_path):
    change, got = selected(tmp_path, {}, {"tests/test_new.py": BASE_TESTS})
    assert set(got.values()) == {ADDED} and len(got) == 4, (
        f"a new test file must contribute its 4 tests, each ADDED; got {got}")
    lines = {s.id.rpartition("::")[2]: s.line for s in change.selected}
    assert lines["test_same"] == 4 and lines["test_kept"] == 14, (
        f"each selected test must carry its def line (test_same at 4, test_kept at 14): {lines}")


def test_an_unchanged_file_and_files_outside_the_paths_select_nothing(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS, "other/test_y.py": ""},
                           {"tests/test_x.py": BASE_TESTS, "other/test_y.py": BRANCH_TESTS,
                            "tests_more/test_z.py": BRANCH_TESTS}, limit_to=["tests"])
    assert got == {} and change.changed_test_files == [], (
        f"with TEST_PATHS = tests, an unchanged tests/test_x.py and changes outside tests/ "
        f"(other/, tests_more/) must select nothing; got {got}, files "
        f"{change.changed_test_files}")


def test_an_unparsable_branch_file_runs_whole(tmp_path):
    change, got = selected(tmp_path, {"tests/test_x.py": BASE_TESTS},
                           {"tests/test_x.py": "def test_broken(:\n"})
    assert got == {"tests/test_x.py": MODIFIED} and change.unparsable == ["tests/test_x.py"], (
        f"a changed test file that does not parse must be selected whole (its collection "
        f"error is the branch's verdict); got {got}, unparsable {change.unparsable}")


def test_nested_test_classes_are_walked_and_other_classes_are_not():
    tree = ast.parse(textwrap.dedent('''
        class TestOuter:
            class TestInner:
                def test_deep(self): pass
            def helper_test(self): pass
        class Helper:
            def test_hidden(self): pass
        async def test_async(): pass
    '''))
    names = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert names == ["TestOuter::TestInner::test_deep", "test_async"], (
        f"pytest collects test functions in Test* classes (nested too) and async tests, "
        f"never methods of a non-test class; the selection walked {names}")


def test_paths_limit_the_selection_by_folder_not_by_prefix(tmp_path):
    work = {"tests/test_x.py": BASE_TESTS, "tests2/test_y.py": BASE_TESTS,
            "t/test_z.py": BASE_TESTS}
    for limit, expected in ((["tests"], {"tests/test_x.py"}),
                            (["tests/"], {"tests/test_x.py"}),
                            (["."], set(work)), ([""], set(work)),
                            (["tests/test_x.py"], {"tests/test_x.py"})):
        change, _ = selected(tmp_path, {}, work, limit_to=limit)
        assert set(change.changed_test_files) == expected, (
            f"TEST_PATHS {limit} must select the files {sorted(expected)} (a folder, never a "
            f"mere prefix like tests2/; '.' or '' is everything); got "
            f"{sorted(change.changed_test_files)}")


def test_a_base_version_that_does_not_parse_makes_every_test_added(tmp_path):
    _, got = selected(tmp_path, {"tests/test_x.py": "def test_same(:\n"},
                      {"tests/test_x.py": BASE_TESTS})
    assert set(got.values()) == {ADDED} and len(got) == 4, (
        f"when the base version of a test file does not parse, every test of the branch "
        f"version is new; got {got}")


def test_selection_reads_every_changed_file_and_numbers_each_test(tmp_path):
    work = {"tests/test_a.py": BASE_TESTS, "tests/test_b.py": "def test_x(:\n",
            "tests/test_c.py": BRANCH_TESTS}
    change, got = selected(tmp_path, {"tests/test_a.py": BASE_TESTS,
                                      "tests/test_c.py": BASE_TESTS}, work)
    assert "tests/test_b.py" in got and "tests/test_c.py::test_added" in got, (
        f"an unchanged file and an unparsable one must not stop the selection of the files "
        f"after them; selected {sorted(got)}")
    lines = {(s.id, s.path, s.line) for s in change.selected}
    assert ("tests/test_b.py", "tests/test_b.py", 1) in lines and \
        ("tests/test_c.py::test_body_changes", "tests/test_c.py", 8) in lines and \
        ("tests/test_c.py::test_added", "tests/test_c.py", 11) in lines, (
            f"each selected test must carry its file and def line (an unparsable file: line "
            f"1); got {sorted(lines)}")


def test_a_unittest_case_imported_by_name_is_collected():
    tree = ast.parse("from unittest import TestCase\nclass Plain(TestCase):\n"
                     "    def test_x(self): pass\nclass Other(object):\n"
                     "    def test_y(self): pass\n")
    names = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert names == ["Plain::test_x"], (
        f"a TestCase subclass is collected whatever its name, a plain class is not: {names}")


@pytest.mark.parametrize("base", ["Generic[T]", "make_base()", "bases[0]"])
def test_a_class_with_a_base_that_is_not_a_name_is_walked_without_error(base):
    tree = ast.parse(f"class TestBox({base}):\n    def test_x(self):\n        pass\n"
                     f"class Other({base}):\n    def test_y(self):\n        pass\n")
    got = [name for name, _ in _test_functions(tree, PytestNaming())]
    assert got == ["TestBox::test_x"], (
        f"a class whose base is {base!r} (no name to read) is collected by its Test* name "
        f"alone, and a non-Test class with such a base is not a unittest case; got {got}")


@pytest.mark.parametrize(("path", "prefix", "within"), [
    ("XLA/test_a.py", "XLA", True), ("XLA/test_a.py", "XLA/", True),
    ("tests/X/test_a.py", "tests/X", True), ("tests/Xa/test_a.py", "tests/X", False),
    ("tests/test_a.py", "/tests/", True), ("tests/test_a.py", ".", True),
])
def test_a_path_limit_is_a_folder_whatever_its_name(path, prefix, within):
    assert _within(path, prefix) is within, (
        f"{path!r} is {'' if within else 'not '}under the limit {prefix!r}: a limit names a "
        f"folder (leading/trailing '/' ignored, '.' the whole tree), matched by whole "
        f"folder names")


@pytest.fixture
def ascii_locale():
    """The process's locale encoding set to ASCII (a C-locale or Windows-like machine) for the
    test: a file read without an explicit encoding then fails on non-ASCII text."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, old)


def test_a_changed_test_file_is_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    base = {"t/test_a.py": "def test_one():\n    assert 1\n"}
    work = {"t/test_a.py": "def test_one():\n    assert 'café'\n"}
    change = changed_tests(FakeRepo(tmp_path, base, work), "base", TestLayout())
    got = [(s.id, s.change) for s in change.selected]
    assert change.unparsable == [] and got == [("t/test_a.py::test_one", MODIFIED)], (
        f"a test file is Python source, UTF-8 by definition: under an ASCII locale its changed "
        f"test must still be selected as modified, not the file run whole as unparsable; got "
        f"selected {got}, unparsable {change.unparsable}")
