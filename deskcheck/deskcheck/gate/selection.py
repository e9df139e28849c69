"""The tests a branch adds or changes, at test-function granularity.

A test file that is new contributes all its tests. A test file that changed contributes the
test functions (and ``Test*`` class methods) whose ``ast`` differs from the base version:
decorators, signature and body count; comments and formatting do not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from deskcheck.gate.doctests import (
    docstring_doctest_ids,
    has_doctest,
    module_name,
    text_doctest_id,
)
from deskcheck.gate.git import GitRepo
from deskcheck.gate.layout import PytestNaming, TestLayout
from deskcheck.gate.param_cases import changed_cases

ADDED = "added"
MODIFIED = "modified"


@dataclass(frozen=True)
class SelectedTest:
    """A test function the branch adds or modifies: ``id`` is pytest's node id sans params."""

    id: str
    path: str
    line: int
    change: str  # ADDED | MODIFIED


@dataclass(frozen=True)
class ChangeSet:
    """What ``redfirst`` found between the base commit and the working tree."""

    selected: list[SelectedTest]
    changed_test_files: list[str]
    unparsable: list[str]  # changed test files whose branch version does not parse


def _test_functions(tree: ast.Module, naming: PytestNaming) -> Iterator[tuple[str, ast.AST]]:
    """``(qualified name, node)`` for each test function pytest would collect."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if naming.is_test_function(node.name):
                    yield prefix + node.name, node
            elif isinstance(node, ast.ClassDef) and (naming.is_test_class(node.name)
                                                     or _is_unittest_case(node)):
                yield from walk(node.body, f"{prefix}{node.name}::")

    yield from walk(tree.body, "")


def _is_unittest_case(node: ast.ClassDef) -> bool:
    """pytest collects ``unittest.TestCase`` subclasses whatever their name."""
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def _fingerprints(source: str, naming: PytestNaming) -> dict[str, tuple[int, str, ast.AST]]:
    tree = ast.parse(source)
    return {name: (getattr(node, "lineno", 1), ast.dump(node), node)
            for name, node in _test_functions(tree, naming)}


def _within(path: str, prefix: str) -> bool:
    prefix = prefix.strip("/")
    return prefix in ("", ".") or path == prefix or path.startswith(prefix + "/")


def changed_tests(repo: GitRepo, base: str, layout: TestLayout,
                  limit_to: list[str] | None = None) -> ChangeSet:
    """Tests in the working tree that are new or changed against ``base``."""
    base_blobs = repo.tree_blobs(base)
    candidates = [p for p in repo.working_files() if layout.is_test_module(p)
                  and layout.is_test_file(p)
                  and (not limit_to or any(_within(p, x) for x in limit_to))]
    current = repo.working_blob_ids(candidates)
    selected: list[SelectedTest] = []
    changed: list[str] = []
    unparsable: list[str] = []
    for path in candidates:
        if base_blobs.get(path) == current[path]:
            continue
        changed.append(path)
        try:
            branch_tests = _fingerprints((repo.root / path).read_text(encoding="utf-8"),
                                         layout.naming)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            unparsable.append(path)  # run whole: the branch side reports its collection error
            selected.append(SelectedTest(path, path, 1, MODIFIED))
            continue
        base_tests: dict[str, tuple[int, str, ast.AST]] = {}
        if path in base_blobs:
            try:
                base_tests = _fingerprints(repo.show(base, path), layout.naming)
            except (SyntaxError, ValueError):
                base_tests = {}
        for name, (line, dump, node) in branch_tests.items():
            if name not in base_tests:
                selected.append(SelectedTest(f"{path}::{name}", path, line, ADDED))
            elif base_tests[name][1] != dump:
                cases = changed_cases(base_tests[name][2], node)
                if cases is None:  # judged whole
                    selected.append(SelectedTest(f"{path}::{name}", path, line, MODIFIED))
                else:  # only its cases changed, and their ids are stable: judged per case
                    selected += [SelectedTest(f"{path}::{name}[{case}]", path, line, MODIFIED)
                                 for case in cases]
    selected += _changed_doctests(repo, base, base_blobs, layout, limit_to, changed)
    return ChangeSet(selected=selected, changed_test_files=changed, unparsable=unparsable)


def _changed_doctests(repo: GitRepo, base: str, base_blobs: dict[str, str], layout: TestLayout,
                      limit_to: list[str] | None, changed: list[str]) -> list[SelectedTest]:
    """Doctest items (text files, and docstrings with ``--doctest-modules``) new or changed."""
    files = repo.working_files()
    candidates = [p for p in files
                  if (layout.is_doctest_file(p) or (layout.doctest_modules and p.endswith(".py")
                                                    and layout.is_collected(p)))
                  and (not limit_to or any(_within(p, x) for x in limit_to))]
    current = repo.working_blob_ids(candidates)
    all_files = set(files)
    found: list[SelectedTest] = []
    for path in candidates:
        if base_blobs.get(path) == current[path]:
            continue
        try:
            text = (repo.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not path.endswith(".py"):
            if has_doctest(text):
                found.append(SelectedTest(text_doctest_id(path), path, 1,
                                          ADDED if path not in base_blobs else MODIFIED))
                if path not in changed:
                    changed.append(path)
            continue
        base_text = repo.show(base, path) if path in base_blobs else None
        for nodeid, line, added in docstring_doctest_ids(
                path, module_name(path, all_files), text, base_text):
            found.append(SelectedTest(nodeid, path, line, ADDED if added else MODIFIED))
    return found
