"""The persistent coverage map (issue 13): built once, refreshed only where a change made it
stale, never trusted silently, its age shown by ``deskcheck history``."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.mutants.auto.coverage_map import (
    build_map,
    describe,
    owners_coverage,
    owners_from_map,
    refresh_map,
)
from deskcheck.report.coverage_map import CoverageMap
from deskcheck.report.store import Store

TESTS = ("tests",)
TEST_PATHS = ("tests/",)


def _project(root: Path) -> Path:
    files = {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
                          '[tool.pytest.ini_options]\npythonpath = ["."]\n',
        "pkg/__init__.py": "",
        "pkg/a.py": "def inc(x):\n    return x + 1\n",
        "pkg/b.py": "def dec(x):\n    return x - 1\n\n\ndef twice(x):\n    return 2 * x\n",
        "tests/conftest.py": "",
        "tests/test_a.py": "from pkg.a import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n",
        "tests/test_b.py": "from pkg.b import dec, twice\n\n\ndef test_dec():\n"
                           "    assert dec(1) == 0\n\n\ndef test_twice():\n"
                           "    assert twice(2) == 4\n",
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def built(tmp_path: Path):
    root = _project(tmp_path / "p")
    with Store(root / ".deskcheck" / "results.sqlite", root=root) as store:
        cmap = CoverageMap(store)
        build_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
        yield root, cmap


def test_a_built_map_names_the_covering_test_of_each_line(built) -> None:
    root, cmap = built
    owners = owners_from_map(cmap, root, ["pkg/a.py", "pkg/b.py"])
    assert owners.owners_for("pkg/a.py", [2]) == ["tests/test_a.py::test_inc"], (
        f"line 2 of pkg/a.py is run by test_inc only: {owners.lines['pkg/a.py']}")
    assert owners.owners_for("pkg/b.py", [6]) == ["tests/test_b.py::test_twice"], (
        f"line 6 of pkg/b.py (twice's body) is run by test_twice only: {owners.lines['pkg/b.py']}")
    info = cmap.info()
    assert info is not None and info.tests == 3 and info.production_files >= 2, (
        f"the map holds the 3 tests and the production files: {info}")


def test_an_untouched_project_re_measures_nothing(built) -> None:
    root, cmap = built
    refresh = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    assert refresh.remeasured == 0 and not refresh.reasons and not refresh.unusable, (
        f"nothing changed, nothing may run: {refresh}")
    assert describe(refresh) == ["coverage map: up to date, no test re-measured"], (
        "an untouched project's refresh must say 'coverage map: up to date, no test re-measured'; "
        f"it says {describe(refresh)}"
    )


def test_a_production_change_re_measures_only_the_tests_that_ran_the_changed_lines(
        built) -> None:
    root, cmap = built
    (root / "pkg/b.py").write_text(
        "def dec(x):\n    return x - 1\n\n\ndef twice(x):\n    y = x\n    return 2 * y\n",
        encoding="utf-8")
    refresh = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    assert refresh.remeasured == 1, (
        f"only test_twice ran the changed line of pkg/b.py; test_dec (same file, other "
        f"function) and test_inc must not run again: {refresh}")
    assert any(r.startswith("production file pkg/b.py changed") and "1 covering test(s)" in r
               for r in refresh.reasons), f"the refresh must say why: {refresh.reasons}"
    owners = owners_from_map(cmap, root, ["pkg/b.py"])
    assert owners.owners_for("pkg/b.py", [7]) == ["tests/test_b.py::test_twice"], (
        f"the new line 7 (return 2 * y) is owned by test_twice after the refresh: "
        f"{owners.lines['pkg/b.py']}")
    assert owners.owners_for("pkg/b.py", [2]) == ["tests/test_b.py::test_dec"], (
        f"test_dec's line, not re-measured, is still known: {owners.lines['pkg/b.py']}")
    again = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    assert again.remeasured == 0 and not again.reasons, (
        f"a refreshed map is up to date: a second refresh re-measures nothing: {again}")


def test_lines_of_tests_not_re_measured_move_with_an_insertion_above_them(built) -> None:
    root, cmap = built
    (root / "pkg/b.py").write_text(
        "def dec(x):\n    x = x + 0\n    return x - 1\n\n\ndef twice(x):\n    return 2 * x\n",
        encoding="utf-8")
    refresh = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    owners = owners_from_map(cmap, root, ["pkg/b.py"])
    assert refresh.remeasured == 1 and owners.owners_for("pkg/b.py", [7]) == [
        "tests/test_b.py::test_twice"], (
        f"test_dec is re-measured (a line was inserted in dec); test_twice is not, and its "
        f"line moved from 6 to 7: {refresh} {owners.lines['pkg/b.py']}")


def test_a_module_level_change_re_measures_every_test_of_the_file(built) -> None:
    root, cmap = built
    (root / "pkg/b.py").write_text(
        "def dec(x, step=1):\n    return x - step\n\n\ndef twice(x):\n    return 2 * x\n",
        encoding="utf-8")
    refresh = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    assert refresh.remeasured == 2 and any("changed at module level" in r
                                           for r in refresh.reasons), (
        f"a changed def line runs at import: both tests of pkg/b.py are stale: {refresh}")


def test_a_changed_and_a_new_test_file_are_measured_and_a_deleted_one_dropped(built) -> None:
    root, cmap = built
    (root / "tests/test_a.py").write_text(
        "from pkg.a import inc\n\n\ndef test_inc_again():\n    assert inc(2) == 3\n",
        encoding="utf-8")
    (root / "tests/test_c.py").write_text(
        "from pkg.b import dec\n\n\ndef test_dec_c():\n    assert dec(3) == 2\n",
        encoding="utf-8")
    (root / "tests/test_b.py").unlink()
    refresh = refresh_map(cmap, root, TESTS, TEST_PATHS, timeout_s=300)
    text = "\n".join(refresh.reasons)
    assert "test file tests/test_a.py changed" in text and "tests/test_c.py new" in text \
        and "tests/test_b.py deleted: 2 test(s) dropped" in text, f"reasons: {text}"
    tests = set(cmap.tests())
    assert tests == {"tests/test_a.py::test_inc_again", "tests/test_c.py::test_dec_c"}, (
        f"renamed test replaced, new test added, deleted ones gone: {sorted(tests)}")


def test_a_map_for_other_pytest_arguments_is_not_used_and_says_why(built) -> None:
    root, cmap = built
    refresh = refresh_map(cmap, root, ("tests/test_a.py",), TEST_PATHS, timeout_s=300)
    assert refresh.unusable and "pytest_args" in refresh.unusable, (
        f"a map measured for other tests must not answer for these: {refresh}")
    assert "not used" in describe(refresh)[0], describe(refresh)


def test_without_a_store_the_whole_suite_runs_as_before(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    coverage, refresh = owners_coverage(root, ["pkg/a.py"], TESTS, TEST_PATHS, 300,
                                        use_map=True)
    assert refresh is None and len(coverage.outcomes) == 3, (
        f"no store, no map: one full pass over the 3 tests: {refresh} {coverage.outcomes}")
    assert not (root / ".deskcheck").exists(), "looking for a map must not create a store"


def test_history_shows_the_maps_age(built, capsys) -> None:
    from deskcheck.cli import main

    root, _ = built
    assert main(["history", "--db", str(root / ".deskcheck" / "results.sqlite")]) == 0, (
        "`deskcheck history --db <store>` must exit 0"
    )
    out = capsys.readouterr().out
    assert "coverage map: 3 tests" in out and "last refreshed" in out and "ago" in out, (
        f"history must show the map and its age: {out}")


def test_a_refresh_that_cannot_run_falls_back_to_the_whole_suite_and_says_so(
        tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    (root / "pkg/a.py").write_text("SIZES = [1, 2]\n\n\ndef inc(x):\n    return x + 1\n",
                                   encoding="utf-8")
    (root / "tests/test_p.py").write_text(
        "import pytest\n\nfrom pkg.a import SIZES, inc\n\n\n@pytest.mark.parametrize('n', SIZES)"
        "\ndef test_n(n):\n    assert inc(n) == n + 1\n", encoding="utf-8")
    with Store(root / ".deskcheck" / "results.sqlite", root=root) as store:
        build_map(CoverageMap(store), root, TESTS, TEST_PATHS, timeout_s=300)
    (root / "pkg/a.py").write_text("SIZES = [1, 3]\n\n\ndef inc(x):\n    return x + 1\n",
                                   encoding="utf-8")  # test_n[2] is no more
    coverage, refresh = owners_coverage(root, ["pkg/a.py"], TESTS, TEST_PATHS, 300,
                                        use_map=True)
    assert refresh is not None and "could not run" in refresh.unusable, (
        f"a refresh naming a test that no longer exists must say it could not run: {refresh}")
    assert "tests/test_p.py::test_n[3]" in coverage.outcomes, (
        f"the whole suite ran instead, new ids included: {sorted(coverage.outcomes)}")
