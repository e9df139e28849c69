from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import GitError
from deskcheck.mutants.auto.changes import (
    DEFAULT_TEST_PATHS,
    changed_production_lines,
    is_test_path,
    parse_unified_zero,
)
from tests.auto.fixture_repo import commit_all, git, init_repo, line_of, write

DIFF = """\
diff --git a/pkg/a.py b/pkg/a.py
index 1..2 100644
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -3 +3 @@ def f():
-    return 1
+    return 2
@@ -10,2 +10,0 @@ def g():
-    x = 1
-    y = 2
@@ -20,0 +19,3 @@ def h():
+    a = 1
+    b = 2
+    c = 3
diff --git a/pkg/gone.py b/pkg/gone.py
deleted file mode 100644
--- a/pkg/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-x = 1
-y = 2
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+x = 1
+y = 2
"""


def test_hunk_headers_give_new_side_lines_and_skip_pure_deletions():
    changed = parse_unified_zero(DIFF)
    assert changed == {"pkg/a.py": {3, 19, 20, 21}, "pkg/new.py": {1, 2}}, (
        f"the new side of each hunk must give the changed lines, pure deletions none; got {changed}"
    )


@pytest.mark.parametrize("path, is_test", [
    ("tests/test_x.py", True),
    ("pkg/tests/helpers.py", True),
    ("pkg/test_x.py", True),
    ("pkg/x_test.py", True),
    ("conftest.py", True),
    ("pkg/sub/conftest.py", True),
    ("pkg/testing.py", False),
    ("pkg/contest.py", False),
    ("pkg/latest_tests.py", False),
])
def test_default_test_path_rules(path: str, is_test: bool):
    assert is_test_path(path, DEFAULT_TEST_PATHS) is is_test, (
        f"with the default test_paths, {path} must {'be' if is_test else 'not be'} a test path"
    )


def test_configured_test_paths_replace_the_defaults():
    patterns = ("checks/", "pkg/*_spec.py")
    assert is_test_path("checks/a.py", patterns), (
        "with test_paths = ['checks/', 'pkg/*_spec.py'], checks/a.py must be a test path"
    )
    assert is_test_path("pkg/a_spec.py", patterns), (
        "with test_paths = ['checks/', 'pkg/*_spec.py'], pkg/a_spec.py must be a test path"
    )
    assert not is_test_path("tests/test_a.py", patterns), (
        "configured test_paths replace the defaults: tests/test_a.py must not be a test path"
    )


def test_changed_production_lines_of_the_fixture_branch(fixture_repo: Path):
    changes = changed_production_lines(fixture_repo, "main")
    assert [f.path for f in changes.files] == ["fixpkg/decide.py"], (
        "the fixture branch changes one production file, fixpkg/decide.py; got "
        f"{[f.path for f in changes.files]}"
    )
    assert changes.skipped_tests == ["tests/test_decide.py", "tests/test_ranks.py"], (
        "the changed test files must be skipped (tests/test_decide.py, tests/test_ranks.py); "
        f"skipped_tests is {changes.skipped_tests}"
    )
    lines = changes.files[0].lines
    decide = "fixpkg/decide.py"
    assert line_of(fixture_repo, decide, "return free_tokens >= need and need > 0") in lines, (
        "the changed line `return free_tokens >= need and need > 0` must be in the change set "
        f"{sorted(lines)}"
    )
    assert line_of(fixture_repo, decide, "return min(values) * 2") in lines, (
        f"the changed line `return min(values) * 2` must be in the change set {sorted(lines)}"
    )
    # unchanged lines are not in the change set
    assert line_of(fixture_repo, decide, "return all(v == self.votes[0]") not in lines, (
        "the unchanged line `return all(v == self.votes[0]...` must not be in the change set "
        f"{sorted(lines)}"
    )
    assert line_of(fixture_repo, decide, "def should_admit") not in lines, (
        f"the unchanged line `def should_admit` must not be in the change set {sorted(lines)}"
    )
    assert changes.base == git(fixture_repo, "merge-base", "main", "HEAD").strip(), (
        f"the change set's base must be the merge-base of main and HEAD; it is {changes.base}"
    )


def test_unknown_ref_is_a_git_error_with_a_fix(fixture_repo: Path):
    with pytest.raises(GitError) as caught:
        changed_production_lines(fixture_repo, "no-such-branch")
    assert "no-such-branch" in caught.value.render(), (
        f"an unknown ref must be named in the git error; it says {caught.value.render()!r}"
    )
    assert caught.value.fix, (
        f"a git error for an unknown ref must come with a fix; it says {caught.value.render()!r}"
    )


def test_outside_a_repository_is_a_git_error(tmp_path: Path):
    with pytest.raises(GitError) as caught:
        changed_production_lines(tmp_path, "main")
    assert "git" in caught.value.render().lower(), (
        f"outside a repository the error must say git failed; it says {caught.value.render()!r}"
    )


def test_the_branch_side_is_the_working_tree_untracked_files_only_with_add_n(tmp_path: Path):
    body = "def f(x):\n    return x\n"
    init_repo(tmp_path)
    for name in ("committed", "staged", "unstaged"):
        write(tmp_path, f"pkg/{name}.py", body)
    commit_all(tmp_path, "base")
    git(tmp_path, "checkout", "-q", "-b", "feature")
    changed = "def f(x):\n    return x + 1\n"
    write(tmp_path, "pkg/committed.py", changed)
    commit_all(tmp_path, "a committed change")
    write(tmp_path, "pkg/staged.py", changed)
    git(tmp_path, "add", "pkg/staged.py")
    write(tmp_path, "pkg/unstaged.py", changed)
    write(tmp_path, "pkg/untracked.py", changed)
    write(tmp_path, "pkg/intent.py", changed)
    git(tmp_path, "add", "-N", "pkg/intent.py")
    files = {f.path: sorted(f.lines) for f in changed_production_lines(tmp_path, "main").files}
    expected = {"pkg/committed.py": [2], "pkg/intent.py": [1, 2], "pkg/staged.py": [2],
                "pkg/unstaged.py": [2]}
    assert files == expected, (
        "docs/auto.md: committed, staged and unstaged changes to tracked files count, an "
        "untracked file does not (`git add -N FILE` includes it); the changed lines by file "
        f"were {files}, expected {expected}")
